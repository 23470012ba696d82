import { describe, expect, test } from "vitest";
import { litDouble, litIndex } from "../../src/ir/builder.js";
import { printIr } from "../../src/ir/print.js";
import { freshVar, type IrFunction } from "../../src/ir/ir.js";
import { runToFixpoint } from "../../src/opt/fixpoint.js";
import { runPipeline, type Pass } from "../../src/opt/pass.js";
import { PASSES, pipelineFromNames, STANDARD_PIPELINE } from "../../src/opt/pipeline.js";
import { simplify } from "../../src/opt/simplify.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { DOUBLE, VECTOR } from "../../src/types/types.js";
import { func } from "../ir/helpers.js";

/**
 * Needs three simplifier iterations: xs is first used in a tuple (so it is not fused), the projection of that tuple
 * then gives xs back, the next iteration fuses it, the last finds nothing to do.
 */
function slowToFuse(): IrFunction {
  return func("f", [["v", VECTOR]], (b, v) => {
    const xs = b.build(b.prim("length", [v]), (i, bb) => bb.prim("exp", [bb.prim("get", [v, i])]), "xs");
    const t = b.tuple([xs, litDouble(1)], "t");
    return b.prim("get", [b.proj(0, t, "ys"), litIndex(0)]);
  });
}

describe("the bounded fixpoint driver says why it stopped", () => {
  test("fixpoint", () => {
    const { fn, report } = simplify(slowToFuse());
    expect(printIr(fn)).toBe("let f (v: Vector) = exp v[0]");
    expect(report.reason).toBe("fixpoint");
    expect(report.iterations).toBe(3);
    // fused: v[checkIndex 0 (length v)], whose check the get makes again (get-checked); dead: t, then xs, its size
    // `length v` and the check; copy: ys = xs; let-tail: the element `exp v[0]` ends the function and the build body
    expect(report.fired).toEqual({
      "proj-of-tuple": 1,
      "copy-propagation": 1,
      "dead-let": 4,
      "get-of-build": 1,
      "get-checked": 1,
      "let-tail": 2,
    });
  });

  test("iteration limit", () => {
    const { fn, report } = simplify(slowToFuse(), { maxIterations: 1 });
    expect(report).toMatchObject({ reason: "iteration-limit", iterations: 1 });
    expect(printIr(fn)).toBe("let f (v: Vector) = (build (length v) (fun i -> exp v[i]))[0]");
  });

  test("size limit", () => {
    const { report } = simplify(slowToFuse(), { maxSize: 3 });
    expect(report).toMatchObject({ reason: "size-limit", iterations: 1 });
  });

  test("counts every step, including the last that changed nothing", () => {
    const x = freshVar("x", DOUBLE);
    const fn: IrFunction = { name: "f", params: [x], body: x };
    let calls = 0;
    const { report } = runToFixpoint(fn, (f) => ({ fn: f, fired: new Map([["r", ++calls < 4 ? 1 : 0]]) }), {
      maxIterations: 10,
      maxSize: 100,
    });
    expect(report).toEqual({ reason: "fixpoint", iterations: 4, fired: { r: 3 }, size: 1 });
  });
});

describe("pipelines", () => {
  test("run passes in order, trace each result", () => {
    const seen: string[] = [];
    const out = runPipeline(slowToFuse(), STANDARD_PIPELINE, {
      verify: true,
      trace: (name, f) => seen.push(`${name}: ${printIr(f).length}`),
    });
    expect(seen.map((s) => s.split(":")[0])).toEqual(STANDARD_PIPELINE.map((p) => p.name));
    expect(seen.slice(-2).map((s) => s.split(":")[0])).toEqual(["inline", "optimise"]);
    expect(printIr(out)).toBe("let f (v: Vector) = exp v[0]");
  });

  test("verification after each pass names the pass that broke the IR", () => {
    const breaker: Pass = {
      name: "breaker",
      run: (fn) => ({ ...fn, body: { kind: "prim", op: "neg", args: [freshVar("ghost", DOUBLE)], type: DOUBLE } }),
    };
    const fn = slowToFuse();
    expect(() => runPipeline(fn, [breaker], { verify: true })).toThrow(
      /^after pass breaker, in function f: IR invariant violated: ghost#\d+ is unbound/,
    );
    expect(() => runPipeline(fn, [breaker])).not.toThrow();
  });

  test("pipelines by name; an unknown name is a user error", () => {
    expect(pipelineFromNames(["simplify", "inline"]).map((p) => p.name)).toEqual(["simplify", "inline"]);
    let err: unknown;
    try {
      pipelineFromNames(["inline", "fuse"]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SmoothError);
    const names = Object.keys(PASSES).join(", ");
    expect(names).toMatch(/inline, simplify/);
    expect((err as SmoothError).message).toBe(
      `argument error: unknown pass \`fuse\`\n  expected: one of ${names}\n  found:    fuse`,
    );
  });
});
