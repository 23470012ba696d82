// Checkpointed reverse mode (src/ad/reverse-checkpoint.ts, src/ad/revolve.ts): a loop whose tapes would not fit in
// the memory budget stores snapshots and recomputes the other states, and its gradient is bit for bit the taped one
// (the same operations in the same order) in every back end; Revolve's schedule advances as few steps as any schedule
// can; a budget that cannot hold one state is a located error. Peak memory is measured in
// test/cli/checkpoint-memory.test.ts.

import { describe, expect, it } from "vitest";
import { AnfBuilder } from "../../src/ir/builder.js";
import { freshVar, type IrFunction } from "../../src/ir/ir.js";
import { revolveCost, revolveMinimum, revolveSplit, splitIr } from "../../src/ad/revolve.js";
import { backendOf } from "../../src/backends/registry.js";
import { runFunction } from "../../src/eval/interpreter.js";
import { withMemoryBudget } from "../../src/runtime/memory-budget.js";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { checkpointListener } from "../../src/prims/table.js";
import { DOUBLE, INT } from "../../src/types/types.js";
import { expectClose, load, Point, seededRandom, type Json } from "./harness.js";
import { forEachNode } from "../../src/ir/free.js";

const p = load(`
// A chain of masses (positions, then momenta) stepped by symplectic Euler: a new Vector per step, taped whole.
let chain = fun (x0: Vector) (steps: Index) ->
  let n = length x0
  let m = n / 2
  let x = ifold (fun (x: Vector) (i: Index) ->
      build n (fun j ->
        let k = if j < m then j else j - m
        let q = x[k]
        let l = if k = 0 then 0. else x[k - 1]
        let r = if k = m - 1 then 0. else x[k + 1]
        let force = r - 2. * q + l - 0.1 * sin q
        let p = x[k + m] + 0.1 * force
        if j < m then q + 0.1 * p else p)) x0 steps
  vectorDot x x
// A scalar state and a parameter every step reads (its adjoint is accumulated across the steps).
let scalar = fun (x0: Double) (w: Double) (steps: Index) -> ifold (fun x i -> sin (x * w) + 0.5 * x) x0 steps
// A tuple state: what the reverse reads, an output written per step it does not read, and a counter.
let outputs = fun (x0: Vector) (steps: Index) ->
  let (x, out, _) = ifold (fun (st: Vector * Vector * Index) (i: Index) ->
      let (x, out, c) = st
      let y = build (length x) (fun j -> sin x[j] + 0.5 * x[(j + c) - (j + c) / length x * length x])
      (y, setAt out i (y[0] * y[1]), c + 1)) (x0, vectorZeros steps, 0) steps
  vectorDot out out + vectorSum x
// An array state updated in place (undo logs when taped).
let inPlace = fun (v: Vector) (steps: Index) ->
  let a = ifold (fun (a: Vector) (i: Index) ->
    let j = i - i / length a * length a
    setAt a j (sin a[j] * a[j] + 0.25)) v steps
  vectorDot a a
// A while loop (counted, then reversed as the ifold of that many steps).
let whileLoop = fun (x0: Vector) (steps: Index) ->
  let (x, _) = while (fun (s: Vector * Index) -> snd s < steps)
    (fun s -> let (x, k) = s in (build (length x) (fun j -> sin x[j] * 0.9 + 0.1 * x[0]), k + 1)) (x0, 0)
  vectorSum x
// The state's adjoint passes through (a sum whose terms read a taped component): the reverse runs forwards.
let forwards = fun (w: Double) (steps: Index) ->
  fst (ifold (fun (st: Double * Double) (i: Index) -> let (s, t) = st in (s + sin t * w, t * 0.9 + 0.25)) (0., 0.5) steps)
// A loop in the step: the outer loop is checkpointed, the inner one is taped within a step.
let nested = fun (x0: Vector) (steps: Index) ->
  let x = ifold (fun (x: Vector) (i: Index) ->
    build (length x) (fun j -> ifold (fun s k -> s + 0.1 * sin (s * x[k])) x[j] (length x))) x0 steps
  vectorSum x
`);

const ENGINES = ["interp", "js", "wasm"] as const;

/**
 * The gradient of `name` at `args` with respect to `wrt`, under a memory budget, per engine (its numbers' exact
 * values as text); with the snapshots each checkpointed loop was given in the interpreter and compiled JavaScript
 * (which report their decisions; WebAssembly gives the same bits as JavaScript).
 */
function gradient(
  name: string,
  args: readonly Json[],
  wrt: readonly number[],
  budget: number,
): { bits: Record<string, string>; snapshots: number[] } {
  const types = p.argTypesFromJson(name, args);
  const values = args.map((a, k) => valueFromJson(a, types[k]!, `argument ${k}`));
  const bits: Record<string, string> = {};
  const snapshots: number[] = [];
  checkpointListener.current = (d) => snapshots.push(d.slots);
  try {
    for (const engine of ENGINES) {
      const spec = withMemoryBudget(budget, () => p.derivative(name, types, wrt, engine, undefined, "gradient"));
      bits[engine] = JSON.stringify(valueToJson(spec.run(values), spec.resultType), (_k, x: unknown) =>
        typeof x === "number" ? (Object.is(x, -0) ? "-0" : x.toString()) : x,
      );
    }
  } finally {
    checkpointListener.current = undefined;
  }
  return { bits, snapshots };
}

const vector = (n: number, seed: number) => Array.from({ length: n }, (_, i) => 0.4 * Math.sin(seed * (i + 1)));

describe("a checkpointed loop's gradient is the taped one, bit for bit, in every back end", () => {
  const cases: readonly [string, Json[], number[], number][] = [
    // name, arguments, wrt, the bytes of one stored state
    ["chain", [vector(8, 0.7), 40], [0], 64],
    ["scalar", [0.3, 1.7, 60], [0, 1], 8],
    ["outputs", [vector(5, 1.3), 30], [0], 48],
    ["inPlace", [vector(6, 0.9), 45], [0], 48],
    ["whileLoop", [vector(4, 0.5), 35], [0], 32],
    ["forwards", [0.8, 50], [0], 8],
    ["nested", [vector(4, 1.1), 25], [0], 32],
  ];
  for (const [name, args, wrt, state] of cases)
    it(name, () => {
      const taped = gradient(name, args, wrt, Infinity);
      expect(taped.snapshots).toEqual([]);
      // One snapshot (the quadratic schedule), a few, and many (one pass of advances).
      for (const budget of [state, 3 * state, 12 * state]) {
        const { bits, snapshots } = gradient(name, args, wrt, budget);
        for (const engine of ENGINES) expect(bits[engine], `${engine}, budget ${budget}`).toBe(taped.bits[engine]);
        // Checkpointed in the interpreter and in JavaScript, with the snapshots the budget holds (none when the
        // reverse runs forwards, carrying the state).
        expect(snapshots).toEqual(name === "forwards" ? [] : [budget / state, budget / state]);
      }
      // The compiled back ends agree with each other exactly.
      expect(taped.bits.wasm).toBe(taped.bits.js);
    });

  it("is a function of its own in wasm, called before the branch (the taped loops' code as without checkpointing)", () => {
    const args = [vector(8, 0.7), 40];
    // With a budget (automatic checkpointing is opt-in), the primal's and the reverse's checkpointed branches
    // (src/wasm/outline.ts, emitOutlinedBranch).
    const spec = withMemoryBudget(2 ** 30, () =>
      p.derivative("chain", p.argTypesFromJson("chain", args), [0], "wasm", undefined, "gradient"),
    );
    expect(spec.code?.text).toMatch(/\(2 of them checkpointed branches, compiled without node splitting\)/);
    const off = withMemoryBudget(Infinity, () =>
      p.derivative("chain", p.argTypesFromJson("chain", args), [0], "wasm", undefined, "gradient"),
    );
    expect(off.code?.text).not.toMatch(/checkpointed branches/);
  });
});

describe("a budget that cannot hold one state", () => {
  it("is a memory error at the loop, in every back end, naming the sizes", () => {
    const types = p.argTypesFromJson("chain", [vector(8, 0.7), 40]);
    for (const engine of ENGINES) {
      const spec = withMemoryBudget(63, () => p.derivative("chain", types, [0], engine, undefined, "gradient"));
      const run = () => spec.run([valueFromJson(vector(8, 0.7), types[0]!, "x0"), 40]);
      expect(run).toThrow(SmoothError);
      try {
        run();
      } catch (e) {
        const err = e as SmoothError;
        expect(err.kind).toBe("memory");
        expect(err.summary).toBe(
          "the memory budget of 63 bytes cannot hold one state of this loop (64 bytes), which its gradient must store at least once",
        );
        expect(err.message).toContain("let x = ifold (fun (x: Vector) (i: Index) ->");
      }
    }
  });

  it("is no error where the loop fits, or runs no step", () => {
    const types = p.argTypesFromJson("chain", [vector(8, 0.7), 0]);
    const spec = withMemoryBudget(63, () => p.derivative("chain", types, [0], "js", undefined, "gradient"));
    expect(() => spec.run([valueFromJson(vector(8, 0.7), types[0]!, "x0"), 0])).not.toThrow();
  });
});

describe("Revolve's schedule", () => {
  /** The least advances to reverse L steps from a stored start with c free slots: a search over every split. */
  function searched(maxL: number, maxC: number): number[][] {
    const t = Array.from({ length: maxC + 1 }, () => new Array<number>(maxL + 1).fill(0));
    for (let L = 2; L <= maxL; L++)
      for (let c = 0; c <= maxC; c++) {
        if (c === 0) t[c]![L] = (L * (L - 1)) / 2;
        else {
          let best = Infinity;
          for (let m = 1; m < L; m++) best = Math.min(best, m + t[c - 1]![L - m]! + t[c]![m]!);
          t[c]![L] = best;
        }
      }
    return t;
  }

  it("advances as few steps as any schedule (a search over all splits), holding at most s snapshots", () => {
    const best = searched(150, 6);
    for (let s = 1; s <= 7; s++)
      for (let n = 1; n <= 150; n++) {
        const cost = revolveCost(n, s);
        // The primal ran the first sweep: n - 1 steps to reach the last state reversed, the rest after it.
        const total = cost.advances + (cost.firstSweep.at(-1) ?? 0);
        expect(total, `n = ${n}, s = ${s}`).toBe(best[s - 1]![n]!);
        if (n >= 2) expect(total).toBe(revolveMinimum(n, s));
        expect(cost.peakSnapshots).toBeLessThanOrEqual(s);
      }
  });

  it("costs about r - 1 recomputed steps per step, r the repetitions binomials allow", () => {
    // 10^5 steps, 16,000 snapshots: beta(16000, 2) > 10^5, so each step is advanced at most twice.
    const cost = revolveCost(100_000, 16_000);
    expect(cost.advances / 100_000).toBeLessThan(1);
    expect(cost.peakSnapshots).toBeLessThanOrEqual(16_000);
    // 10^6 steps with 100 snapshots: a few repetitions, not a quadratic count.
    expect(revolveCost(1_000_000, 100).advances / 1_000_000).toBeLessThan(4);
  });

  it("splits the same in the IR, in every back end, as in TypeScript", () => {
    const [length, free] = [freshVar("length", INT), freshVar("free", INT)];
    const b = new AnfBuilder();
    const fn: IrFunction = { name: "split", params: [length, free], body: b.finish(splitIr(b, length, free)) };
    const js = backendOf("js").compile(fn);
    const wasm = backendOf("wasm").compile(fn);
    for (const [L, c] of [
      [2, 1],
      [3, 1],
      [10, 2],
      [100, 3],
      [1000, 5],
      [99_999, 16_000],
      [2_000_000_000, 2],
      [2_000_000_000, 1_000_000],
    ] as const) {
      const want = revolveSplit(L, c);
      expect(want).toBeGreaterThanOrEqual(1);
      expect(want).toBeLessThanOrEqual(L - 1);
      expect(runFunction(fn, [L, c])).toBe(want);
      expect(js.run([L, c])).toBe(want);
      expect(wasm.run([L, c])).toBe(want);
    }
  });
});

const q = load(`
let step = fun (x: Vector) -> build (length x) (fun j -> sin x[j] * x[(j + 1) - (j + 1) / length x * length x] + 0.5 * x[j])
let plain = fun (x0: Vector) (w: Double) ->
  let x = ifold (fun (x: Vector) (i: Index) -> vectorSMul (step x) w) x0 6
  vectorDot x x
let checkpointed = fun (x0: Vector) (w: Double) ->
  let x = ifold (fun (x: Vector) (i: Index) -> vectorSMul (checkpoint step x) w) x0 6
  vectorDot x x
// A checkpointed closure over the differentiated w (made an argument of it for reverse mode).
let closure = fun (x0: Vector) (w: Double) ->
  let x = ifold (fun (x: Vector) (i: Index) -> checkpoint (fun (y: Vector) -> vectorSMul (step y) w) x) x0 6
  vectorDot x x
// A step that runs a loop of its own: taped, its tape is what the outer loop's primal records per step.
let inner = fun (y: Double) -> ifold (fun s k -> sin s * y + 0.1) y 50
let outerPlain = fun (x0: Double) -> ifold (fun x i -> inner x * 0.5) x0 8
let outerCheckpointed = fun (x0: Double) -> ifold (fun x i -> checkpoint inner x * 0.5) x0 8
`);

describe("checkpoint f in the language", () => {
  const args: Json[] = [[0.3, 0.5, -0.2, 0.9], 0.9];
  it("is f to every derivative: reverse = forward = finite differences, Hessian, vjp, Jacobian rows", () => {
    for (const name of ["checkpointed", "closure"]) new Point(q, name, args).checkAll(seededRandom(7));
  });
  it("gives f's gradient and Hessian", () => {
    const want = new Point(q, "plain", args);
    for (const name of ["checkpointed", "closure"]) {
      const at = new Point(q, name, args);
      expectClose(at.run("gradient"), want.run("gradient"), 1e-14, name);
      expectClose(at.run("hessian"), want.run("hessian"), 1e-13, name);
    }
  });
  it("recomputes f in the reverse sweep instead of storing what its reverse reads", () => {
    // The outer loop's primal records, per step, the inner loop's tape (what f's reverse reads); checkpointed, it
    // records nothing: f's reverse runs f again (without a budget, so that the loops are only taped).
    const recordsPerStep = (name: string) => {
      const spec = withMemoryBudget(Infinity, () => new Point(q, name, [0.4]).specs("gradient").js);
      let n = 0;
      forEachNode(spec.optimised.body, (loop) => {
        if (loop.kind === "ifold")
          forEachNode(loop.body, (x) => {
            if (x.kind === "prim" && x.op === "record") n++;
          });
      });
      return n;
    };
    expect(recordsPerStep("outerPlain")).toBeGreaterThan(0);
    expect(recordsPerStep("outerCheckpointed")).toBe(0);
    const want = new Point(q, "outerPlain", [0.4]).run("gradient") as number;
    expectClose(new Point(q, "outerCheckpointed", [0.4]).run("gradient"), want, 1e-14);
    new Point(q, "outerCheckpointed", [0.4]).checkAll(seededRandom(3));
  });
  it("must take one argument without functions", () => {
    const bad = () =>
      load("let f = fun (x: Double) -> checkpoint (fun (g: Double -> Double) -> 1.) (fun y -> y)").specialise("f", [
        DOUBLE,
      ]);
    expect(bad).toThrow(/a checkpointed function must take one argument/);
  });
});
