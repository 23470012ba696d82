// Every prelude function with a Double in its inputs, differentiated along a random direction in all its Double
// inputs at once: the first order (jvp) against central finite differences of the function, the second order
// (jvp of jvp) against central finite differences of the first. Index inputs are held fixed; functions given to the
// higher-order ones are fixed lambdas. Interpreter and compiled code agree on every derivative program.

import { describe } from "vitest";
import { directionalDerivativeTests, load, seededRandom, uniform, type Json } from "./harness.js";

type Param =
  | { readonly k: "double" }
  | { readonly k: "vector"; readonly n: number; readonly lo?: number }
  | { readonly k: "matrix"; readonly r: number; readonly c: number }
  | { readonly k: "index"; readonly value: number };

const D: Param = { k: "double" };
const V = (n: number, lo?: number): Param => (lo === undefined ? { k: "vector", n } : { k: "vector", n, lo });
const M = (r: number, c: number): Param => ({ k: "matrix", r, c });
const I = (value: number): Param => ({ k: "index", value });

interface Case {
  readonly fn: string;
  readonly params: readonly Param[];
  /** The call, in terms of a1, a2, ...; by default the function applied to them. */
  readonly call?: string;
}

const CASES: readonly Case[] = [
  { fn: "vectorFill", params: [I(3), D] },
  { fn: "vectorMap", params: [V(4)], call: "vectorMap a1 (fun a -> sin a * a)" },
  { fn: "vectorMap2", params: [V(4), V(4)], call: "vectorMap2 a1 a2 (fun a b -> a * b + exp a)" },
  { fn: "vectorZip", params: [V(3), V(3)] },
  { fn: "vectorAdd", params: [V(4), V(4)] },
  { fn: "vectorEMul", params: [V(4), V(4)] },
  { fn: "vectorSMul", params: [V(4), D] },
  { fn: "vectorSum", params: [V(5)] },
  { fn: "vectorDot", params: [V(5), V(5)] },
  { fn: "vectorNorm", params: [V(5, 0.5)] },
  { fn: "vectorSlice", params: [V(6), I(1), I(3)] },
  { fn: "vectorMax", params: [V(5)] },
  { fn: "logsumexp", params: [V(5)] },
  { fn: "vectorToMatrix", params: [V(3)] },
  { fn: "matrixRows", params: [M(2, 3)] },
  { fn: "matrixCols", params: [M(2, 3)] },
  { fn: "matrixMap", params: [M(3, 2)], call: "matrixMap a1 (fun r -> vectorMap r tanh)" },
  { fn: "matrixMap2", params: [M(2, 3), M(2, 3)], call: "matrixMap2 a1 a2 vectorEMul" },
  { fn: "matrixAdd", params: [M(2, 3), M(2, 3)] },
  { fn: "matrixZip", params: [M(2, 2), M(2, 2)] },
  { fn: "matrixTranspose", params: [M(2, 3)] },
  { fn: "matrixMul", params: [M(2, 3), M(3, 2)] },
  { fn: "matrixMult", params: [M(3, 3), M(3, 2)] },
  { fn: "vectorOutProd", params: [V(3), V(2)] },
  { fn: "matrixTrace", params: [M(3, 3)] },
];

const TYPE = { double: "Double", vector: "Vector", matrix: "Matrix", index: "Index" } as const;

/** Smooth source: the function f, its first derivative d1 (jvp) and second d2 (jvp of jvp), all along a direction. */
function source(c: Case): string {
  const names = c.params.map((_, i) => `a${i + 1}`);
  const call = c.call ?? `${c.fn} ${names.join(" ")}`;
  const typed = (prefix: string, p: Param, i: number) => `(${prefix}${i + 1}: ${TYPE[p.k]})`;
  const withDirections = c.params
    .map((p, i) => (p.k === "index" ? typed("a", p, i) : `${typed("a", p, i)} ${typed("t", p, i)}`))
    .join(" ");
  const zip = (p: Param, x: string, t: string) =>
    p.k === "double" ? `(${x}, ${t})` : p.k === "vector" ? `(vectorZip ${x} ${t})` : `(matrixZip ${x} ${t})`;
  const zero = (p: Param, t: string) =>
    p.k === "double" ? "0." : p.k === "vector" ? `(vectorSMul ${t} 0.)` : `(matrixMap ${t} (fun r -> vectorSMul r 0.))`;
  const seed1 = c.params.map((p, i) => (p.k === "index" ? `a${i + 1}` : zip(p, `a${i + 1}`, `t${i + 1}`))).join(" ");
  const seed2 = c.params
    .map((p, i) =>
      p.k === "index"
        ? `a${i + 1}`
        : zip(p, zip(p, `a${i + 1}`, `t${i + 1}`), zip(p, `t${i + 1}`, zero(p, `t${i + 1}`))),
    )
    .join(" ");
  return `
let f = fun ${c.params.map((p, i) => typed("a", p, i)).join(" ")} -> ${call}
let d1 = fun ${withDirections} -> jvp f ${seed1}
let d2 = fun ${withDirections} -> jvp (jvp f) ${seed2}
`;
}

function randomValue(p: Param, rnd: () => number): Json {
  switch (p.k) {
    case "double":
      return uniform(rnd, -2, 2);
    case "vector":
      return Array.from({ length: p.n }, () => (p.lo === undefined ? uniform(rnd, -2, 2) : uniform(rnd, p.lo, 2)));
    case "matrix":
      return Array.from({ length: p.r }, () => Array.from({ length: p.c }, () => uniform(rnd, -2, 2)));
    case "index":
      return p.value;
  }
}

const TOL = 1e-6;

describe.each(CASES)("$fn", (c) => {
  const p = load(source(c));
  const rnd = seededRandom(c.fn.length * 31 + c.params.length);
  const active = c.params.map((q, i) => [q, i] as const).filter(([q]) => q.k !== "index");
  const points = Array.from({ length: 4 }, () => {
    const x = c.params.map((q) => randomValue(q, rnd));
    const d = active.map(([q]) => randomValue(q.k === "vector" ? { k: "vector", n: q.n } : q, rnd));
    return { x, d };
  });
  directionalDerivativeTests(
    p,
    points,
    active.map(([, i]) => i),
    c.fn,
    TOL,
  );
});
