// Every prelude function (prelude/prelude.smooth), the bulk operations and combinators included, in reverse mode at
// seeded random points: the reverse Jacobian (gradient for a Double result, one sweep per output for an array of
// Doubles) against forward mode and central finite differences, the vjp program against the forward Jacobian
// transposed and the dot-product test (every result type, arrays of pairs included). Functions with no Double input
// or output (vectorRange, vectorHot, matrixEye, ...) are tested inside differentiable compositions. Then prod: its
// gradient is exact with one and two zero elements, and its optimised gradient program has no division (paper 001).

import { describe, expect, test } from "vitest";
import { preludeFile } from "../../src/api/program.js";
import { printIr } from "../../src/ir/print.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { withMemoryBudget } from "../../src/runtime/memory-budget.js";
import { expectClose, load, Point, seededRandom, uniform, type Json } from "./harness.js";

type Param =
  | { readonly k: "double" }
  | { readonly k: "vector"; readonly n: number; readonly lo?: number }
  | { readonly k: "matrix"; readonly r: number; readonly c: number }
  | { readonly k: "fixed"; readonly type: string; readonly value: Json };

const D: Param = { k: "double" };
const V = (n: number, lo?: number): Param => (lo === undefined ? { k: "vector", n } : { k: "vector", n, lo });
const M = (r: number, c: number): Param => ({ k: "matrix", r, c });
const I = (value: number): Param => ({ k: "fixed", type: "Index", value });
const INDEXES = (value: number[]): Param => ({ k: "fixed", type: "Array<Index>", value });

interface Case {
  /** The prelude functions the case is about (each must occur in its call). */
  readonly fns: readonly string[];
  readonly params: readonly Param[];
  /** The call, in terms of a1, a2, ... */
  readonly call: string;
}

const CASES: readonly Case[] = [
  {
    fns: ["vectorRange"],
    params: [V(4)],
    call: "vectorDot a1 (vectorMap (vectorMap (vectorRange (length a1)) (fun i -> double i)) (fun x -> x * x))",
  },
  { fns: ["vectorFill"], params: [D], call: "vectorFill 3 (a1 * a1)" },
  { fns: ["vectorZeros"], params: [V(3)], call: "vectorAdd (vectorZeros (length a1)) (vectorMap a1 sin)" },
  { fns: ["vectorHot"], params: [V(4)], call: "vectorDot (vectorHot (length a1) 1) (vectorMap a1 exp)" },
  { fns: ["vectorMap"], params: [V(4)], call: "vectorMap a1 (fun a -> sin a * a)" },
  { fns: ["vectorMap2"], params: [V(4), V(4)], call: "vectorMap2 a1 a2 (fun a b -> a * b + exp a)" },
  { fns: ["vectorZip"], params: [V(3), V(3)], call: "vectorZip a1 (vectorMap a2 cos)" },
  { fns: ["vectorAdd"], params: [V(4), V(4)], call: "vectorAdd a1 (vectorMap a2 (fun x -> x * x))" },
  { fns: ["vectorEMul"], params: [V(4), V(4)], call: "vectorEMul a1 a2" },
  { fns: ["vectorSMul"], params: [V(4), D], call: "vectorSMul a1 (a2 * a2)" },
  { fns: ["vectorSum"], params: [V(5)], call: "vectorSum (vectorMap a1 sin)" },
  { fns: ["vectorDot"], params: [V(5), V(5)], call: "vectorDot a1 a2" },
  { fns: ["vectorNorm"], params: [V(5, 0.5)], call: "vectorNorm a1" },
  { fns: ["vectorSlice"], params: [V(6), I(1), I(3)], call: "vectorSlice (vectorMap a1 tanh) a2 a3" },
  { fns: ["vectorMax"], params: [V(5)], call: "vectorMax (vectorMap a1 (fun x -> x * x))" },
  { fns: ["logsumexp"], params: [V(5)], call: "logsumexp a1" },
  { fns: ["vectorToMatrix"], params: [V(3)], call: "vectorToMatrix (vectorMap a1 exp)" },
  {
    fns: ["matrixRows", "matrixCols"],
    params: [M(2, 3)],
    call: "matrixMap a1 (fun r -> vectorSMul r (double (matrixRows a1 * 10 + matrixCols a1) * r[0]))",
  },
  {
    fns: ["matrixZeros", "matrixOnes"],
    params: [M(2, 3)],
    call: "matrixAdd (matrixZeros 2 3) (matrixMul (matrixOnes 2 2) (matrixMap a1 (fun r -> vectorEMul r r)))",
  },
  { fns: ["matrixEye"], params: [M(2, 2)], call: "matrixMul (matrixEye 2) (matrixMul a1 a1)" },
  {
    fns: ["matrixHot"],
    params: [M(2, 3)],
    call: "matrixTrace (matrixMul (matrixHot 2 3 1 2) (matrixTranspose (matrixMap a1 (fun r -> vectorMap r sin))))",
  },
  { fns: ["matrixMap"], params: [M(3, 2)], call: "matrixMap a1 (fun r -> vectorMap r tanh)" },
  { fns: ["matrixMap2"], params: [M(2, 3), M(2, 3)], call: "matrixMap2 a1 a2 vectorEMul" },
  { fns: ["matrixAdd"], params: [M(2, 3), M(2, 3)], call: "matrixAdd a1 (matrixMap a2 (fun r -> vectorMap r sin))" },
  { fns: ["matrixZip"], params: [M(2, 2), M(2, 2)], call: "matrixZip a1 a2" },
  { fns: ["matrixTranspose"], params: [M(2, 3)], call: "matrixTranspose (matrixMap a1 (fun r -> vectorMap r exp))" },
  { fns: ["matrixMul"], params: [M(2, 3), M(3, 2)], call: "matrixMul a1 a2" },
  { fns: ["matrixMult"], params: [M(3, 3), M(3, 2)], call: "matrixMult a1 a2" },
  { fns: ["vectorOutProd"], params: [V(3), V(2)], call: "vectorOutProd a1 a2" },
  { fns: ["matrixTrace"], params: [M(3, 3)], call: "matrixTrace (matrixMul a1 a1)" },
  // Bulk operations and combinators.
  { fns: ["sum"], params: [V(5)], call: "sum (vectorMap a1 (fun x -> x * x * x))" },
  { fns: ["prod"], params: [V(5)], call: "prod a1" },
  { fns: ["gather"], params: [V(5), INDEXES([4, 0, 2, 2, 1])], call: "gather (vectorMap a1 sin) a2" },
  { fns: ["gather"], params: [M(3, 2), INDEXES([2, 0, 2])], call: "gather a1 a2" },
  { fns: ["scatter"], params: [INDEXES([1, 3, 1, 0]), V(4)], call: "scatter 5 a1 (vectorMap a2 (fun x -> x * x))" },
  { fns: ["replicate"], params: [D], call: "replicate 3 (a1 * a1)" },
  { fns: ["replicate"], params: [V(3)], call: "replicate 2 (vectorMap a1 sin)" },
  { fns: ["transpose"], params: [M(2, 3)], call: "transpose (matrixMap a1 (fun r -> vectorMap r exp))" },
  { fns: ["reshape"], params: [V(6)], call: "reshape 2 3 (vectorMap a1 (fun x -> x * x))" },
  { fns: ["map2"], params: [V(4), V(4)], call: "map2 (fun x y -> x * sin y + y) a1 a2" },
  { fns: ["reduce"], params: [V(4), D], call: "reduce (fun s x -> s * x + sin s) a2 a1" },
  { fns: ["scanl"], params: [V(4), D], call: "scanl (fun s x -> s * x + sin s) a2 a1" },
  { fns: ["scanr"], params: [V(4), D], call: "scanr (fun x s -> x * s + cos x) a2 a1" },
  { fns: ["scanl"], params: [V(3), V(2)], call: "scanl (fun s x -> vectorMap s (fun y -> y * x + tanh y)) a2 a1" },
];

const TYPE = { double: "Double", vector: "Vector", matrix: "Matrix" } as const;
const annotation = (p: Param) => (p.k === "fixed" ? p.type : TYPE[p.k]);
const source = (c: Case) =>
  `let f = fun ${c.params.map((p, i) => `(a${i + 1}: ${annotation(p)})`).join(" ")} -> ${c.call}`;

function randomValue(p: Param, rnd: () => number): Json {
  switch (p.k) {
    case "double":
      return uniform(rnd, -2, 2);
    case "vector":
      return Array.from({ length: p.n }, () => uniform(rnd, p.lo ?? -2, 2));
    case "matrix":
      return Array.from({ length: p.r }, () => Array.from({ length: p.c }, () => uniform(rnd, -2, 2)));
    case "fixed":
      return p.value;
  }
}

const POINTS = 2;

describe.each(CASES)("$fns.0: $call", (c) => {
  test("reverse = forward = finite differences; vjp and the dot-product test", () => {
    const p = load(source(c));
    const rnd = seededRandom(c.call.length * 104729 + c.params.length);
    for (let k = 0; k < POINTS; k++) {
      new Point(
        p,
        "f",
        c.params.map((q) => randomValue(q, rnd)),
      ).checkAll(rnd);
    }
  });
});

describe("coverage", () => {
  test("every prelude function has a case that calls it", () => {
    const defined = parseProgram(preludeFile()).defs.map((d) => d.name);
    for (const c of CASES) for (const fn of c.fns) expect(c.call, fn).toMatch(new RegExp(`\\b${fn}\\b`));
    const covered = new Set(CASES.flatMap((c) => c.fns));
    expect(defined.filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe("vectorMax and logsumexp: the fold starts from v[0]", () => {
  const p = load(`
let maxV = fun (v: Vector) -> vectorMax v
let lse = fun (v: Vector) -> logsumexp v
`);
  // The initial state v[0] is read from v, which the loop body reads too: both adjoints must reach v.
  test.each<[number[], number[]]>([
    [
      [3, 1, 2],
      [1, 0, 0],
    ],
    [
      [1, 3, 2],
      [0, 1, 0],
    ],
    [
      [1, 2, 3],
      [0, 0, 1],
    ],
  ])("the gradient of vectorMax at %j is %j", (v, expected) => {
    expect(new Point(p, "maxV", [v]).run("gradient")).toEqual(expected);
  });
  test("the gradient of logsumexp is softmax, whichever element is largest", () => {
    for (const v of [
      [3, 1, 2],
      [1, 3, 2],
      [0.5, -1, 0.25],
    ]) {
      const e = v.map((x) => Math.exp(x));
      const total = e.reduce((a, b) => a + b, 0);
      expectClose(
        new Point(p, "lse", [v]).run("gradient"),
        e.map((x) => x / total),
        1e-12,
        `softmax at ${JSON.stringify(v)}`,
      );
    }
  });
});

describe("prod", () => {
  const p = load("let prodV = fun (a: Vector) -> prod a");

  // ∂ prod / ∂ a[i] is the product of the other elements, computed exactly (with no division) by reverse mode.
  test.each<[number[], number[]]>([
    [
      [2, 0, 3],
      [0, 6, 0],
    ],
    [
      [0, 2, 3],
      [6, 0, 0],
    ],
    [
      [2, 3, 0],
      [0, 0, 6],
    ],
    [
      [0, 0, 3],
      [0, 0, 0],
    ],
    [
      [2, 0, 3, 0],
      [0, 0, 0, 0],
    ],
    [
      [2, 0.5, -3, 4],
      [-6, -24, 4, -3],
    ],
    [[4], [1]],
    [[], []],
  ])("the reverse gradient at %j is exactly %j, in both engines", (a, expected) => {
    const at = new Point(p, "prodV", [a]);
    expect(at.run("gradient")).toEqual(expected);
    expect(at.run("value-gradient")).toEqual([a.reduce((x, y) => x * y, 1), expected]);
  });

  test("the optimised (taped) gradient program has no division", () => {
    const at = new Point(p, "prodV", [[2, 0, 3]]);
    // The taped program: with automatic checkpointing its Revolve schedule divides (binomials), the gradient does not.
    const text = printIr(withMemoryBudget(Infinity, () => at.specs("gradient")).js.optimised);
    expect(text).toContain("ifold"); // the reverse loop is there: the text is the gradient program
    expect(text).not.toMatch(/\//);
    expect(text).not.toMatch(/\bdiv\b/);
  });
});
