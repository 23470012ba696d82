// The bulk operations and combinators of the prelude (paper 003 Fig. 7, paper 001 §1): values on small inputs against
// results worked out by hand; forward-mode derivatives (jvp, jvp of jvp) along random directions against central
// finite differences; grad and jacob against exact derivatives (prod at zeros, scans, scatter with collisions); the
// precondition errors with their messages; and user definitions shadowing the new prelude names. Every program runs
// in the interpreter (after forward-ad) and compiled (after the standard pipeline), which must agree.

import { describe, expect, test } from "vitest";
import type { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";
import { directionalDerivativeTests, load, runBoth, seededRandom, uniform, type Json } from "./harness.js";

describe("values on small inputs", () => {
  const p = load(`
let sumV = fun (a: Vector) -> sum a
let prodV = fun (a: Vector) -> prod a
let gatherV = fun (a: Vector) (idx: Array<Index>) -> gather a idx
let gatherRows = fun (m: Matrix) (idx: Array<Index>) -> gather m idx
let scatterV = fun (n: Card) (idx: Array<Index>) (vals: Vector) -> scatter n idx vals
let replicateD = fun (n: Card) (x: Double) -> replicate n x
let replicateV = fun (n: Card) (x: Vector) -> replicate n x
let replicateI = fun (n: Card) (x: Index) -> replicate n x
let transposeM = fun (m: Matrix) -> transpose m
let transposeI = fun (m: Array<Array<Index>>) -> transpose m
let reshapeV = fun (r: Card) (c: Card) (v: Vector) -> reshape r c v
let map2V = fun (a: Vector) (b: Vector) -> map2 (fun x y -> x * y - x) a b
let map2Pairs = fun (a: Vector) (b: Array<Index>) -> map2 pair a b
let reduceMax = fun (a: Vector) -> reduce max (-1000.) a
let reduceDigits = fun (a: Vector) -> reduce (fun s x -> 10 * s + x) 0. a
let scanlSum = fun (z: Double) (a: Vector) -> scanl (+) z a
let scanlDigits = fun (a: Vector) -> scanl (fun s x -> 10 * s + x) 0. a
let scanrDigits = fun (a: Vector) -> scanr (fun x s -> 10 * s + x) 0. a
let scanlVectors = fun (z: Vector) (a: Vector) -> scanl (fun s x -> vectorSMul s x) z a
let scanrVectors = fun (z: Vector) (a: Vector) -> scanr (fun x s -> vectorSMul s x) z a
`);

  // All values are exact in binary, so they are compared exactly.
  test.each<[string, Json[], Json]>([
    ["sumV", [[1, 2, 3.5]], 6.5],
    ["sumV", [[]], 0],
    ["prodV", [[2, -3, 0.5]], -3],
    ["prodV", [[]], 1],
    [
      "gatherV",
      [
        [10, 20, 30],
        [2, 0, 2, 1],
      ],
      [30, 10, 30, 20],
    ],
    ["gatherV", [[10, 20, 30], []], []],
    [
      "gatherRows",
      [
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        [2, 2, 0],
      ],
      [
        [5, 6],
        [5, 6],
        [1, 2],
      ],
    ],
    // Index 1 three times (1 + 3 + 5), index 3 once, index 0 once, index 2 never.
    ["scatterV", [4, [1, 3, 1, 0, 1], [1, 2, 3, 4, 5]], [4, 9, 0, 2]],
    ["scatterV", [3, [], []], [0, 0, 0]],
    ["replicateD", [3, 2.5], [2.5, 2.5, 2.5]],
    ["replicateD", [0, 2.5], []],
    [
      "replicateV",
      [2, [1, 2]],
      [
        [1, 2],
        [1, 2],
      ],
    ],
    ["replicateI", [2, 7], [7, 7]],
    [
      "transposeM",
      [
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
      ],
      [
        [1, 4],
        [2, 5],
        [3, 6],
      ],
    ],
    ["transposeM", [[[1, 2, 3]]], [[1], [2], [3]]],
    ["transposeM", [[]], []],
    [
      "transposeI",
      [
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [
        [1, 3],
        [2, 4],
      ],
    ],
    [
      "reshapeV",
      [2, 3, [1, 2, 3, 4, 5, 6]],
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
    [
      "reshapeV",
      [3, 2, [1, 2, 3, 4, 5, 6]],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    ["reshapeV", [1, 0, []], [[]]],
    ["reshapeV", [0, 4, []], []],
    [
      "map2V",
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      [3, 8, 15],
    ],
    ["map2V", [[], []], []],
    [
      "map2Pairs",
      [
        [1.5, 2.5],
        [3, 4],
      ],
      [
        [1.5, 3],
        [2.5, 4],
      ],
    ],
    ["reduceMax", [[3, -1, 7, 2]], 7],
    ["reduceDigits", [[1, 2, 3]], 123],
    ["scanlSum", [1, [1, 2, 3]], [1, 2, 4, 7]],
    ["scanlSum", [5, []], [5]],
    ["scanlDigits", [[1, 2, 3]], [0, 1, 12, 123]],
    ["scanrDigits", [[1, 2, 3]], [321, 32, 3, 0]],
    [
      "scanlVectors",
      [
        [1, 2],
        [2, 3],
      ],
      [
        [1, 2],
        [2, 4],
        [6, 12],
      ],
    ],
    [
      "scanrVectors",
      [
        [1, 2],
        [2, 3],
      ],
      [
        [6, 12],
        [3, 6],
        [1, 2],
      ],
    ],
  ])("%s %j", (name, args, expected) => {
    expect(runBoth(p, name, args)).toEqual(expected);
  });
});

// Forward mode along random directions, as in prelude.test.ts: fixed inputs (Index arrays) are not differentiated.

type Param =
  | { readonly k: "double" }
  | { readonly k: "vector"; readonly n: number }
  | { readonly k: "matrix"; readonly r: number; readonly c: number }
  | { readonly k: "fixed"; readonly type: string; readonly value: Json };

const D: Param = { k: "double" };
const V = (n: number): Param => ({ k: "vector", n });
const M = (r: number, c: number): Param => ({ k: "matrix", r, c });
const INDEXES = (value: number[]): Param => ({ k: "fixed", type: "Array<Index>", value });

interface Case {
  readonly name: string;
  readonly params: readonly Param[];
  /** The call, in terms of a1, a2, ... */
  readonly call: string;
}

const CASES: readonly Case[] = [
  { name: "sum", params: [V(5)], call: "sum a1" },
  { name: "prod", params: [V(5)], call: "prod a1" },
  { name: "gather", params: [V(5), INDEXES([4, 0, 2, 2, 1])], call: "gather a1 a2" },
  { name: "gather of rows", params: [M(3, 2), INDEXES([2, 0, 2])], call: "gather a1 a2" },
  { name: "scatter", params: [INDEXES([1, 3, 1, 0]), V(4)], call: "scatter 5 a1 (vectorMap a2 (fun x -> x * x))" },
  { name: "replicate", params: [D], call: "replicate 3 (a1 * a1)" },
  { name: "replicate of a vector", params: [V(3)], call: "replicate 2 (vectorMap a1 sin)" },
  { name: "transpose", params: [M(2, 3)], call: "transpose (matrixMap a1 (fun r -> vectorMap r exp))" },
  { name: "reshape", params: [V(6)], call: "reshape 2 3 (vectorMap a1 (fun x -> x * x))" },
  { name: "map2", params: [V(4), V(4)], call: "map2 (fun x y -> x * sin y + y) a1 a2" },
  { name: "reduce", params: [V(4), D], call: "reduce (fun s x -> s * x + sin s) a2 a1" },
  { name: "scanl", params: [V(4), D], call: "scanl (fun s x -> s * x + sin s) a2 a1" },
  { name: "scanr", params: [V(4), D], call: "scanr (fun x s -> x * s + cos x) a2 a1" },
  {
    name: "scanl over vectors",
    params: [V(3), V(2)],
    call: "scanl (fun s x -> vectorMap s (fun y -> y * x + tanh y)) a2 a1",
  },
];

const TYPE = { double: "Double", vector: "Vector", matrix: "Matrix" } as const;

/** Smooth source: f, its first derivative d1 (jvp) and its second d2 (jvp of jvp), along directions t1, t2, ... */
function source(c: Case): string {
  const annotation = (p: Param) => (p.k === "fixed" ? p.type : TYPE[p.k]);
  const typed = (prefix: string, p: Param, i: number) => `(${prefix}${i + 1}: ${annotation(p)})`;
  const withDirections = c.params.map((p, i) =>
    p.k === "fixed" ? typed("a", p, i) : `${typed("a", p, i)} ${typed("t", p, i)}`,
  );
  const zip = (p: Param, x: string, t: string) =>
    p.k === "double" ? `(${x}, ${t})` : p.k === "vector" ? `(vectorZip ${x} ${t})` : `(matrixZip ${x} ${t})`;
  const zero = (p: Param, t: string) =>
    p.k === "double" ? "0." : p.k === "vector" ? `(vectorSMul ${t} 0.)` : `(matrixMap ${t} (fun r -> vectorSMul r 0.))`;
  const seed1 = c.params.map((p, i) => (p.k === "fixed" ? `a${i + 1}` : zip(p, `a${i + 1}`, `t${i + 1}`)));
  const seed2 = c.params.map((p, i) => {
    if (p.k === "fixed") return `a${i + 1}`;
    const [a, t] = [`a${i + 1}`, `t${i + 1}`];
    return zip(p, zip(p, a, t), zip(p, t, zero(p, t)));
  });
  return `
let f = fun ${c.params.map((p, i) => typed("a", p, i)).join(" ")} -> ${c.call}
let d1 = fun ${withDirections.join(" ")} -> jvp f ${seed1.join(" ")}
let d2 = fun ${withDirections.join(" ")} -> jvp (jvp f) ${seed2.join(" ")}
`;
}

function randomValue(p: Param, rnd: () => number): Json {
  switch (p.k) {
    case "double":
      return uniform(rnd, -2, 2);
    case "vector":
      return Array.from({ length: p.n }, () => uniform(rnd, -2, 2));
    case "matrix":
      return Array.from({ length: p.r }, () => Array.from({ length: p.c }, () => uniform(rnd, -2, 2)));
    case "fixed":
      return p.value;
  }
}

const TOL = 1e-6;

describe.each(CASES)("forward mode: $name", (c) => {
  const p = load(source(c));
  const rnd = seededRandom(c.name.length * 131 + c.params.length);
  const active = c.params.flatMap((q, i) => (q.k === "fixed" ? [] : [i]));
  const points = Array.from({ length: 3 }, () => ({
    x: c.params.map((q) => randomValue(q, rnd)),
    d: active.map((i) => randomValue(c.params[i]!, rnd)),
  }));
  directionalDerivativeTests(p, points, active, c.name, TOL);
});

describe("grad and jacob against exact derivatives", () => {
  const p = load(`
let gradProd = fun (a: Vector) -> vectorMap (grad prod a) snd
let gradSum = fun (a: Vector) -> vectorMap (grad sum a) snd
let tangents = fun (j: Array<Array<Double * Double>>) -> matrixMap j (fun row -> vectorMap row snd)
let jacobScanl = fun (a: Vector) -> tangents (jacob (fun w -> scanl (+) 0. w) a)
let jacobScanr = fun (a: Vector) -> tangents (jacob (fun w -> scanr (*) 1. w) a)
let jacobScatter = fun (idx: Array<Index>) (a: Vector) -> tangents (jacob (fun w -> scatter 3 idx w) a)
let jacobGather = fun (idx: Array<Index>) (a: Vector) -> tangents (jacob (fun w -> gather w idx) a)
let diffReplicate = fun (x: Double) -> vectorMap (vdiff (fun y -> replicate 3 (y * y)) x) snd
`);

  // ∂ prod / ∂ a[i] is the product of the other elements: exact, with no division, so zeros are no special case.
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
  ])("the gradient of prod at %j is %j", (a, expected) => {
    expect(runBoth(p, "gradProd", [a])).toEqual(expected);
  });

  test("the gradient of sum is all ones", () => {
    expect(runBoth(p, "gradSum", [[1.5, -2, 0, 7]])).toEqual([1, 1, 1, 1]);
  });

  // jacob gives, for each input i, the derivatives of every output along input i (a column of the Jacobian).
  test("scanl (+): output k is the sum of the first k inputs", () => {
    expect(runBoth(p, "jacobScanl", [[3, 1, 4]])).toEqual([
      [0, 1, 1, 1],
      [0, 0, 1, 1],
      [0, 0, 0, 1],
    ]);
  });

  test("scanr (*): output k is the product of the inputs from k on", () => {
    // outputs [a0 a1 a2, a1 a2, a2, 1] at a = [2, 3, 5]
    expect(runBoth(p, "jacobScanr", [[2, 3, 5]])).toEqual([
      [15, 0, 0, 0],
      [10, 5, 0, 0],
      [6, 3, 1, 0],
    ]);
  });

  test("scatter with colliding indexes: each input moves the output at its index", () => {
    expect(
      runBoth(p, "jacobScatter", [
        [2, 0, 2, 2],
        [1, 2, 3, 4],
      ]),
    ).toEqual([
      [0, 0, 1],
      [1, 0, 0],
      [0, 0, 1],
      [0, 0, 1],
    ]);
  });

  test("gather with repeated indexes: an input moves every output that reads it", () => {
    expect(
      runBoth(p, "jacobGather", [
        [1, 1, 0],
        [5, 6],
      ]),
    ).toEqual([
      [0, 0, 1],
      [1, 1, 0],
    ]);
  });

  test("replicate copies the derivative", () => {
    expect(runBoth(p, "diffReplicate", [1.5])).toEqual([3, 3, 3]);
  });
});

describe("precondition errors are located at the user's call, then the prelude's check, the same in both back ends", () => {
  const p = load(`
let m2 = fun (a: Vector) (b: Vector) -> map2 (+) a b
let rs = fun (r: Card) (c: Card) (v: Vector) -> reshape r c v
let sc = fun (n: Card) (idx: Array<Index>) (vals: Vector) -> scatter n idx vals
let ga = fun (a: Vector) (idx: Array<Index>) -> gather a idx
let dm2 = fun (a: Vector) (b: Vector) -> jacob (fun w -> map2 (*) w b) a
`);

  /** The error of `name` on `args`, checked to be the same error in the interpreter and compiled code. */
  function failure(name: string, args: readonly Json[], kind: string): SmoothError {
    const interp = thrown(() => p.runJson(name, args, "interp"));
    const js = thrown(() => p.runJson(name, args, "js"));
    expect(interp.kind).toBe(kind);
    expect(js.headline).toBe(interp.headline);
    expect(interp.headline.startsWith("ad-test.smooth:")).toBe(true);
    expect(interp.message).toContain("inside the prelude, at <prelude>:");
    expect(js.message).toBe(interp.message);
    return interp;
  }

  test.each<[string, Json[], string, string]>([
    [
      "m2",
      [
        [1, 2, 3],
        [1, 2],
      ],
      "shape error: the sizes 3 and 2 differ",
      "map2 needs arrays of the same length",
    ],
    [
      "m2",
      [
        [1, 2],
        [1, 2, 3],
      ],
      "shape error: the sizes 2 and 3 differ",
      "map2 needs arrays of the same length",
    ],
    [
      "dm2",
      [
        [1, 2],
        [1, 2, 3],
      ],
      "shape error: the sizes 2 and 3 differ",
      "map2 needs arrays of the same length",
    ],
    ["rs", [2, 3, [1, 2, 3, 4, 5]], "shape error: the sizes 6 and 5 differ", "reshape needs length v = r * c"],
    ["rs", [2, 2, [1, 2, 3, 4, 5]], "shape error: the sizes 4 and 5 differ", "reshape needs length v = r * c"],
    ["rs", [0, 3, [1]], "shape error: the sizes 0 and 1 differ", "reshape needs length v = r * c"],
    [
      "sc",
      [3, [0, 3], [1, 2]],
      "index error: index 3 is out of range for an array of length 3",
      "addAt out idx[k] vals[k]",
    ],
    [
      "sc",
      [3, [-1], [1]],
      "index error: index -1 is out of range for an array of length 3",
      "addAt out idx[k] vals[k]",
    ],
    ["sc", [3, [0, 1], [1]], "shape error: the sizes 2 and 1 differ", "scatter needs as many values as indexes"],
    [
      "ga",
      [
        [1, 2],
        [0, 2],
      ],
      "index error: index 2 is out of range for an array of length 2",
      "a[idx[k]]",
    ],
  ])("%s %j", (name, args, headline, line) => {
    const e = failure(name, args, headline.split(" ")[0]!);
    expect(e.headline).toContain(headline);
    // The excerpt shows the prelude line, whose comment states the precondition.
    expect(e.message).toContain(line);
  });
});

describe("user definitions shadow the new prelude names", () => {
  test("a top-level sum, transpose or reduce is the user's; the prelude keeps its own", () => {
    const p = load(`
let sum = fun (v: Vector) -> 42.
let transpose = fun (x: Double) -> -x
let reduce = fun (x: Double) -> x
let main = fun (v: Vector) -> (sum v, transpose 1.5, reduce 2., prod v, scanl (+) 0. v)
`);
    expect(runBoth(p, "main", [[1, 2, 3]])).toEqual([42, -1.5, 2, 6, [0, 1, 3, 6]]);
  });
});
