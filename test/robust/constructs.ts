// Programs of one construct at a given size, for the growth tests (./growth.test.ts, and the longer sweep of
// test/fuzz/growth.test.ts): each is the body of `main : Double -> Double`, nested `depth` levels deep or a chain of
// `length` steps. A cost that grows faster than the size of such a program is a compile-time blow-up (issue 29: nested
// `vectorSum (build 1 ...)` doubled per level; a loop body of 3,000 lets overflowed the stack; lets with `if` were
// quadratic).

export type Kind = "depth" | "length";

export interface Construct {
  readonly kind: Kind;
  /** The body of `main` (its parameter is `x`) at size n. */
  readonly body: (n: number) => string;
}

/** `let a0 = start in let a1 = step(a0) in ... a_k`. */
const chain = (k: number, step: (a: string) => string, start = "x"): string =>
  `let a0 = ${start} in ` +
  Array.from({ length: k }, (_, i) => `let a${i + 1} = ${step(`a${i}`)} in `).join("") +
  `a${k}`;

/** `inner` wrapped d times. */
const nest = (d: number, wrap: (e: string, i: number) => string, inner = "x"): string => {
  let e = inner;
  for (let i = 0; i < d; i++) e = wrap(e, i);
  return e;
};

const sinStep = (a: string) => `${a} + sin ${a} * 0.0001`;
const ifStep = (a: string) => `if ${a} > 0. then ${a} * 0.999 else ${a} + 0.001`;

export const CONSTRUCTS = {
  // Nesting.
  nestedSum: { kind: "depth", body: (d) => nest(d, (e, i) => `vectorSum (build 1 (fun i${i} -> ${e} + 1.))`) },
  nestedSum3: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `vectorSum (build 3 (fun i${i} -> ${e} * 0.5 + double i${i}))`),
  },
  nestedGet: { kind: "depth", body: (d) => nest(d, (e, i) => `(build 3 (fun i${i} -> ${e} * 2.))[1]`) },
  nestedGetIdx: { kind: "depth", body: (d) => nest(d, (e, i) => `(build 3 (fun i${i} -> ${e} * double i${i}))[1]`) },
  nestedGetSin: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `(build 3 (fun i${i} -> sin (${e}) + double i${i}))[2]`),
  },
  nestedIfold: { kind: "depth", body: (d) => nest(d, (e, i) => `ifold (fun s${i} j${i} -> s${i} * 0.5 + ${e}) 0. 2`) },
  nestedIfoldState: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `ifold (fun s${i} j${i} -> sin s${i} + ${e}) x 3`),
  },
  nestedIf: { kind: "depth", body: (d) => nest(d, (e, i) => `(if x > ${i}. then ${e} * 2. else x + ${i}.)`) },
  nestedIfBoth: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `(let y${i} = ${e} in if y${i} > ${i}. then y${i} * 2. else sin y${i})`),
  },
  nestedLambda: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `((fun y${i} -> ${e.replaceAll("x", `y${i}`)} * y${i}) (x + 1.))`),
  },
  nestedLet: { kind: "depth", body: (d) => nest(d, (e, i) => `(let y${i} = ${e} in y${i} * y${i} + 1.)`) },
  nestedTuple: {
    kind: "depth",
    body: (d) =>
      `fst (${nest(d, (e, i) => `(let p${i} = ${e} in (fst p${i} * 2., snd p${i} + fst p${i}))`, "(x, x)")})`,
  },
  nestedParens: { kind: "depth", body: (d) => nest(d, (e, i) => `(x * (${e}) + ${i}.)`) },
  nestedWhile: {
    kind: "depth",
    body: (d) => nest(d, (e, i) => `(while (fun w${i} -> w${i} < 1.) (fun w${i} -> w${i} + 1. + ${e} * 0.) 0.)`),
  },
  // Length.
  topLets: { kind: "length", body: (k) => chain(k, sinStep) },
  ifLets: { kind: "length", body: (k) => chain(k, ifStep) },
  loopLets: { kind: "length", body: (k) => `ifold (fun s i -> ${chain(k, sinStep, "s")}) x 3` },
  loopIfLets: { kind: "length", body: (k) => `ifold (fun s i -> ${chain(k, ifStep, "s")}) x 3` },
  buildLets: { kind: "length", body: (k) => `vectorSum (build 3 (fun i -> ${chain(k, sinStep, "x + double i")}))` },
  branchLets: { kind: "length", body: (k) => `if x > 0. then ${chain(k, sinStep)} else x` },
  lambdaLets: { kind: "length", body: (k) => `(fun z -> ${chain(k, sinStep, "z")}) (x * 2.)` },
  sumChain: { kind: "length", body: (k) => Array.from({ length: k }, (_, i) => `x * ${i + 1}.`).join(" + ") },
  mulChain: { kind: "length", body: (k) => Array.from({ length: k }, (_, i) => `(x + ${i + 1}.)`).join(" * ") },
  seqLoops: { kind: "length", body: (k) => chain(k, (a) => `ifold (fun s i -> s * 0.5 + ${a}) 0. 2`) },
  seqBuilds: { kind: "length", body: (k) => chain(k, (a) => `vectorSum (build 2 (fun i -> ${a} * double i))`) },
  tupleLets: {
    kind: "length",
    body: (k) =>
      "let p0 = (x, 1.) in " +
      Array.from({ length: k }, (_, i) => `let p${i + 1} = (fst p${i} * snd p${i}, snd p${i} + 0.001) in `).join("") +
      `fst p${k}`,
  },
} satisfies Record<string, Construct>;

export type ConstructName = keyof typeof CONSTRUCTS;

/** The source of `main` for a construct at size n. */
export const constructSource = (name: ConstructName, n: number): string =>
  `let main = fun (x: Double) -> ${CONSTRUCTS[name].body(n)}`;

/** What is compiled: `run` the primal, or a derivative of `main` with respect to x. */
export type Request = "run" | "grad" | "jacobian" | "hessian";
