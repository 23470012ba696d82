// Every differentiable primitive and construct in reverse mode, through small programs at seeded random points:
// the reverse Jacobian (gradient, or one sweep per output) against forward mode and central finite differences; the
// vjp program against the forward Jacobian transposed; and the dot-product test <J t, c> = <t, Jᵀ c>. `field`, which
// only reverse mode writes, is differentiated in second derivatives (forward over reverse, reverse over reverse). Each
// derivative program runs in the interpreter and compiled, which agree (test/reverse/harness.ts). A last test checks
// that the cases really contain every primitive with a derivative rule.

import { describe, expect, test } from "vitest";
import { someNode } from "../../src/ir/free.js";
import { PRIM_NAMES, type PrimName } from "../../src/prims/names.js";
import { PRIMS } from "../../src/prims/table.js";
import { reverseGradient } from "../../src/api/reverse-programs.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { VECTOR } from "../../src/types/types.js";
import {
  dot,
  expectClose,
  FD_TOL,
  load,
  MODE_TOL,
  Point,
  runIrBoth,
  seededRandom,
  uniform,
  type Json,
} from "./harness.js";
import { gradientDotProgram } from "./nested-programs.js";

interface Case {
  readonly name: string;
  /** `let f = fun ... -> ...` (the parameters annotated). */
  readonly source: string;
  /** A random point (the arguments of f). */
  readonly point: (rnd: () => number) => Json[];
  /** The primitives the case is about (each must occur in the lowered program). */
  readonly prims: readonly PrimName[];
  /** Where the primitives occur: the program (default), or only its reverse gradient (as the interpreter runs it). */
  readonly where?: "gradient";
}

const r = (rnd: () => number, lo = -2, hi = 2) => uniform(rnd, lo, hi);
const vec = (rnd: () => number, n: number, lo = -2, hi = 2) => Array.from({ length: n }, () => r(rnd, lo, hi));
const mat = (rnd: () => number, rows: number, cols: number) => Array.from({ length: rows }, () => vec(rnd, cols));
/** A number in [lo, hi] at least `gap` away from every kink in `kinks`. */
const awayFrom = (rnd: () => number, lo: number, hi: number, kinks: (x: number) => number, gap = 0.05) => {
  for (;;) {
    const x = r(rnd, lo, hi);
    if (kinks(x) > gap) return x;
  }
};
const distToInteger = (x: number) => Math.abs(x - Math.round(x));

const unary = (prim: PrimName, body: string, lo: number, hi: number, kinks?: (x: number) => number): Case => ({
  name: prim,
  source: `let f = fun (x: Double) -> ${body}`,
  point: (rnd) => [kinks ? awayFrom(rnd, lo, hi, kinks) : r(rnd, lo, hi)],
  prims: [prim],
});

const binary = (prim: PrimName, op: string, y: readonly [number, number] = [-2, 2]): Case => ({
  name: prim,
  // Two operands that are themselves active, and a use of the result that is not linear.
  source: `let f = fun (x: Double) (y: Double) -> let z = ${op} in z * z + z`,
  point: (rnd) => {
    for (;;) {
      const [a, b] = [r(rnd, 0.3, 2), r(rnd, ...y)];
      if (Math.abs(a - b) > 0.05) return [a, b];
    }
  },
  prims: [prim],
});

const CASES: readonly Case[] = [
  binary("add", "x + y"),
  binary("sub", "x - y"),
  binary("mul", "x * y"),
  binary("div", "x / y", [0.5, 2]),
  binary("pow", "x ** y"),
  binary("max", "max x y"),
  binary("min", "min x y"),
  unary("neg", "-(x * x)", -2, 2),
  unary("sin", "sin (x * x)", -2, 2),
  unary("cos", "cos x * x", -2, 2),
  unary("tan", "tan x", -1.2, 1.2),
  unary("log", "log (x * x)", 0.2, 3),
  unary("exp", "exp (sin x)", -2, 2),
  unary("sqrt", "sqrt x", 0.2, 3),
  unary("tanh", "tanh (2 * x)", -2, 2),
  unary("atan", "atan (x * x - 1)", -2, 2),
  unary("asin", "asin (x / 3) * x", -2, 2),
  unary("acos", "acos (x / 3) * x", -2, 2),
  binary("atan2", "atan2 y x"),
  {
    // An Index shifted without sign, a Double: a step function of nothing differentiable (its derivative is zero).
    name: "shiftRightUnsigned",
    source: "let f = fun (x: Double) (n: Index) -> x * shiftRightUnsigned n 1 + sin x",
    point: (rnd) => [r(rnd), Math.floor(uniform(rnd, -5, 5))],
    prims: ["shiftRightUnsigned"],
  },
  unary("abs", "abs x * x", -2, 2, Math.abs),
  unary("floor", "floor x * x + floor (x * 3)", -2, 2, (x) => Math.min(distToInteger(x), distToInteger(3 * x))),
  {
    // The shift cancels, so finite differences agree with the derivative that stopGradient cuts through m.
    name: "stopGradient",
    source:
      "let f = fun (x: Double) (y: Double) -> let m = stopGradient (max x y) in m + log (exp (x - m) + exp (y - m))",
    point: (rnd) => [r(rnd), r(rnd)],
    prims: ["stopGradient"],
  },
  {
    // The value is x y; the derivative that of exp (log x + log y), the same function (x, y > 0): finite differences of
    // the value agree with it. (A min fold is differentiated this way: test/ad/selection-folds.test.ts.)
    name: "withDerivativeOf",
    source: "let f = fun (x: Double) (y: Double) -> sin (withDerivativeOf (x * y) (exp (log x + log y)))",
    point: (rnd) => [uniform(rnd, 0.5, 2), uniform(rnd, 0.5, 2)],
    prims: ["withDerivativeOf"],
  },
  {
    name: "toDouble",
    source: "let f = fun (x: Double) (n: Index) -> x * double n + double (n * n) * sin x",
    point: (rnd) => [r(rnd), Math.floor(uniform(rnd, 0, 5))],
    prims: ["toDouble"],
  },
  {
    name: "get of a vector, length",
    source: "let f = fun (v: Vector) (i: Index) -> v[i] * v[i] + v[0] * double (length v) + sin v[length v - 1]",
    point: (rnd) => [vec(rnd, 4), Math.floor(uniform(rnd, 0, 4))],
    prims: ["get", "length"],
  },
  {
    name: "get of a matrix element and of a whole row",
    source: "let f = fun (m: Matrix) -> let row = m[1] in m[1][0] * m[0][2] + sin m[1][1] + vectorSum row * row[2]",
    point: (rnd) => [mat(rnd, 2, 3)],
    prims: ["get"],
  },
  {
    name: "get of an array of tuples",
    source:
      "let f = fun (v: Vector) -> let ps = build (length v) (fun i -> (v[i] * v[i], i)) in fst ps[1] * fst ps[2] + double (snd ps[2])",
    point: (rnd) => [vec(rnd, 3)],
    prims: ["get"],
  },
  {
    // The array of tuples comes from a loop, so that no optimisation fuses the reads away (both engines see the get).
    name: "get of an array of tuples written by setAt in a loop",
    source: `let f = fun (v: Vector) ->
  let ps = ifold (fun acc i -> setAt acc i (v[i], v[i] * v[i])) (build (length v) (fun i -> (0., 0.))) (length v)
  fst ps[1] * snd ps[2]`,
    point: (rnd) => [vec(rnd, 3)],
    prims: ["get", "setAt"],
  },
  {
    name: "tuples built, projected and returned (with an Index in the result)",
    source:
      "let f = fun (x: Double) (y: Double) -> let t = (x * y, (sin x, 3)) in let (a, (b, n)) = t in (a + b * y, (b, n))",
    point: (rnd) => [r(rnd), r(rnd)],
    prims: ["mul", "sin"],
  },
  {
    name: "if on a Double comparison, scalar and array branches",
    source:
      "let f = fun (x: Double) (v: Vector) -> if x > v[0] then vectorMap v (fun a -> a * x) else vectorMap v (fun a -> sin a + x)",
    point: (rnd) => {
      const v = vec(rnd, 3);
      return [awayFrom(rnd, -2, 2, (x) => Math.abs(x - v[0]!)), v];
    },
    prims: ["gt"],
  },
  {
    name: "build of a vector and of a matrix",
    source:
      "let f = fun (v: Vector) (s: Double) -> build (length v) (fun i -> build 2 (fun j -> v[i] * s + double (i + j) * v[j]))",
    point: (rnd) => [vec(rnd, 3), r(rnd)],
    prims: ["mul", "get"],
  },
  {
    name: "ifold with a Double state (Horner)",
    source: "let f = fun (v: Vector) (x: Double) -> ifold (fun s i -> s * x + v[i]) 0. (length v)",
    point: (rnd) => [vec(rnd, 4), r(rnd)],
    prims: ["get"],
  },
  {
    // The initial state is a differentiated parameter that the body also reads: its adjoint gets both contributions.
    name: "ifold whose initial state the body also reads (Double)",
    source: "let f = fun (x: Double) (v: Vector) -> ifold (fun s i -> s * x + v[i]) x (length v)",
    point: (rnd) => [r(rnd), vec(rnd, 3)],
    prims: ["mul", "get"],
  },
  {
    name: "ifold whose initial state the body also reads (Vector)",
    source: "let f = fun (v: Vector) -> ifold (fun w i -> addAt w i (v[i] * v[0])) v (length v)",
    point: (rnd) => [vec(rnd, 3)],
    prims: ["addAt", "get"],
  },
  {
    name: "ifold with a tuple state",
    source: `let f = fun (v: Vector) (x: Double) ->
  let (a, b) = ifold (fun st i -> let (a, b) = st in (a * x + sin b, b + v[i] * a)) (x, 1.) (length v)
  a * b`,
    point: (rnd) => [vec(rnd, 3, -1, 1), r(rnd, -1, 1)],
    prims: ["sin"],
  },
  {
    name: "ifold with a vector state",
    source: "let f = fun (v: Vector) (x: Double) -> ifold (fun w k -> vectorMap w (fun a -> sin a * x + double k)) v 3",
    point: (rnd) => [vec(rnd, 3), r(rnd)],
    prims: ["sin"],
  },
  {
    name: "setAt",
    source: "let f = fun (v: Vector) (x: Double) -> let w = setAt v 1 (x * v[1]) in setAt w 2 (w[1] * w[0])",
    point: (rnd) => [vec(rnd, 3), r(rnd)],
    prims: ["setAt"],
  },
  {
    name: "addAt",
    source: "let f = fun (v: Vector) (x: Double) -> let w = addAt v 2 (x * v[0]) in addAt w 0 (sin w[2])",
    point: (rnd) => [vec(rnd, 3), r(rnd)],
    prims: ["addAt"],
  },
  {
    name: "addArray",
    source:
      "let f = fun (v: Vector) (w: Vector) -> let s = addArray v (vectorMap w sin) in vectorMap s (fun a -> a * s[0])",
    point: (rnd) => [vec(rnd, 3), vec(rnd, 3)],
    prims: ["addArray"],
  },
  {
    name: "zerosLike",
    source: "let f = fun (v: Vector) -> let z = zerosLike v in let y = addAt z 1 (v[1] * v[2]) in vectorDot y v",
    point: (rnd) => [vec(rnd, 3)],
    prims: ["zerosLike", "addAt"],
  },
  {
    name: "setAt and addAt inside a loop (state updated in place)",
    source: `let f = fun (v: Vector) (x: Double) ->
  ifold (fun w i -> addAt (setAt w i (w[i] * x)) (length w - 1 - i) (sin w[i])) v (length v)`,
    point: (rnd) => [vec(rnd, 4), r(rnd)],
    prims: ["setAt", "addAt"],
  },
  {
    // A loop whose state changes shape (a growing vector) cannot be taped in a regular array: reverse mode checks the
    // shape as the primal runs and falls back to recomputing each state from the start.
    name: "ifold whose state grows (no regular tape; states recomputed)",
    source:
      "let f = fun (x: Double) -> vectorSum (ifold (fun acc i -> build (length acc + 1) (fun j -> if j < length acc then sin (acc[j] * x) else x)) (build 1 (fun _ -> x)) 4)",
    point: (rnd) => [r(rnd, 0.2, 1.2)],
    prims: ["sin"],
  },
];

// `field` is made by reverse mode only: a build whose body computes costly scalars stores them as residuals (an array
// of tuples whose components `field` takes apart). Its derivative rules run in second derivatives of such programs.
const RESIDUALS: Case = {
  name: "field (residuals of a build, in the reverse gradient program)",
  source: "let f = fun (v: Vector) -> let w = build (length v) (fun i -> exp (sin v[i]) * v[i]) in vectorDot w w",
  point: (rnd) => [vec(rnd, 3, -1, 1)],
  prims: ["field"],
  where: "gradient",
};

// `record` too: the tape of a loop whose state is an array is allocated by recording the initial state.
const RECORDS: Case = {
  name: "record (the tape of a loop with an array state, in the reverse gradient program)",
  source:
    "let f = fun (v: Vector) -> vectorSum (ifold (fun w i -> build (length w) (fun j -> sin (w[j] * v[i]))) v (length v))",
  point: (rnd) => [vec(rnd, 3, -1, 1)],
  prims: ["record"],
  where: "gradient",
};

const TAPES: Case = {
  name: "newTape, tapePush, tapePop (a recursive function, in the reverse gradient program's functions)",
  source:
    "let rec g (v: Vector) (i: Index) : Double = if i = length v then 1. else sin (v[i] * g v (i + 1))\n" +
    "let f = fun (v: Vector) -> g v 0",
  point: (rnd) => [vec(rnd, 3, -1, 1)],
  prims: ["newTape", "tapePush", "tapePop"],
  where: "gradient",
};

const POINTS = 3;

describe.each(CASES)("$name", (c) => {
  const p = load(c.source);
  test("reverse = forward = finite differences; vjp and the dot-product test", () => {
    const rnd = seededRandom(c.name.length * 7919 + 17);
    for (let k = 0; k < POINTS; k++) new Point(p, "f", c.point(rnd)).checkAll(rnd);
  });
});

describe.each([RESIDUALS, RECORDS])("$name, differentiated in second derivatives", (c) => {
  const p = load(c.source);
  test("first order as every case; forward over reverse = FD of the gradient; reverse over reverse = H w", () => {
    const rnd = seededRandom(4242);
    for (let k = 0; k < POINTS; k++) {
      const at = new Point(p, "f", c.point(rnd));
      at.checkAll(rnd);
      const h = at.hessian();
      expectClose(h, at.fdHessian(), FD_TOL, "Hessian vs FD of the reverse gradient");
      const w = vec(rnd, 3);
      const hw = reverseGradient(gradientDotProgram(at.specs("gradient").interp.lowered), { wrt: [0] });
      const values = [at.values[0]!, valueFromJson(w, VECTOR, "w")];
      expectClose(
        runIrBoth(hw, values),
        h.map((row) => dot(row, w)),
        MODE_TOL,
        "H w by reverse over reverse",
      );
    }
  });
});

describe("tapes, differentiated in second derivatives (forward over reverse)", () => {
  const p = load(TAPES.source);
  test("first order as every case; the Hessian against finite differences of the gradient", () => {
    const rnd = seededRandom(77);
    for (let k = 0; k < POINTS; k++) {
      const at = new Point(p, "f", TAPES.point(rnd));
      at.checkAll(rnd);
      expectClose(at.hessian(), at.fdHessian(), FD_TOL, "Hessian vs FD of the reverse gradient");
    }
  });
});

describe("coverage", () => {
  test("every primitive with a derivative rule occurs in a case's program", () => {
    const seen = new Set<string>();
    for (const c of [...CASES, RESIDUALS, RECORDS, TAPES]) {
      const at = new Point(load(c.source), "f", c.point(seededRandom(1)));
      const lowered =
        c.where === "gradient"
          ? at.specs("gradient").interp.lowered
          : at.p.specialise("f", at.argTypes, "interp").lowered;
      for (const op of c.prims) {
        const bodies = [lowered, ...(lowered.functions ?? [])].map((f) => f.body);
        expect(
          bodies.some((body) => someNode(body, (e) => e.kind === "prim" && e.op === op)),
          `${c.name} uses ${op}`,
        ).toBe(true);
        seen.add(op);
      }
    }
    const differentiable = PRIM_NAMES.filter((n) => PRIMS[n].derivative.kind !== "no-tangent");
    expect(differentiable.filter((n) => !seen.has(n))).toEqual([]);
  });
});
