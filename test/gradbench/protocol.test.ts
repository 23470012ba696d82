// The protocol loop on its own, with a small fake registry: one response line per message with the same id, and a
// well-formed failure for every kind of bad message; timings per run until min_runs and min_seconds are both met.

import { describe, expect, it } from "vitest";
import { GradbenchError, type EvalModule } from "../../src/gradbench/eval-module.js";
import { GradbenchTool } from "../../src/gradbench/protocol.js";
import { MAX_RUNS, runsOf, timeRuns } from "../../src/gradbench/timing.js";
import { session } from "./harness.js";

/** A module "twice" with `double` (2x) and `boom` (throws a plain Error when run); "broken" fails to define. */
function fakeRegistry(counter: { defines: number; runs: number }) {
  const twice: EvalModule = {
    name: "twice",
    functions: ["double", "boom"],
    define: () => void counter.defines++,
    prepare(fn, input) {
      if (typeof input !== "object" || input === null || typeof (input as { x?: unknown }).x !== "number")
        throw new GradbenchError("the input must be {x: number}");
      const x = (input as { x: number }).x;
      let last = NaN;
      return {
        run() {
          counter.runs++;
          if (fn === "boom") throw new Error("exploded");
          last = 2 * x;
        },
        output: () => last,
      };
    },
  };
  const broken: EvalModule = {
    name: "broken",
    functions: [],
    define() {
      throw new Error("cannot compile");
    },
    prepare() {
      throw new GradbenchError("never");
    },
  };
  return new Map([
    ["twice", () => twice],
    ["broken", () => broken],
  ]);
}

const define = (id: number, module: string) => ({ id, kind: "define", module });
const evaluate = (id: number, module: string, fn: string, input: unknown) => ({
  id,
  kind: "evaluate",
  module,
  function: fn,
  input,
});

describe("the GradBench protocol", () => {
  it("answers start, define, evaluate, analysis and end with the same ids", async () => {
    const counter = { defines: 0, runs: 0 };
    const responses = await session(
      [
        { id: 0, kind: "start", eval: "twice" },
        define(1, "twice"),
        evaluate(2, "twice", "double", { x: 21, min_runs: 3, min_seconds: 0 }),
        { id: 3, kind: "analysis", of: 2, valid: true },
        define(4, "twice"),
        { id: 5, kind: "end" },
      ],
      fakeRegistry(counter),
    );
    expect(responses[0]).toEqual({ id: 0, tool: "smooth" });
    expect(responses[1]).toMatchObject({ id: 1, success: true });
    expect(responses[2]).toMatchObject({ id: 2, success: true, output: 42 });
    expect(responses[2]!.timings!.map((t) => t.name)).toEqual(["evaluate", "evaluate", "evaluate"]);
    expect(responses.slice(3)).toEqual([{ id: 3 }, { id: 4, success: true }, { id: 5 }]);
    expect(counter).toEqual({ defines: 1, runs: 3 });
  });

  it("answers every bad message with one well-formed failure and carries on", async () => {
    const counter = { defines: 0, runs: 0 };
    const responses = await session(
      [
        "{not json",
        "[1, 2]",
        JSON.stringify({ kind: "start" }),
        JSON.stringify({ id: { deep: 1 }, kind: "start" }),
        // An id too large for a double: it would be echoed as null in a success.
        '{"id": 1e400, "kind": "start"}',
        { id: 10 },
        { id: 11, kind: "teleport" },
        define(12, "nothing"),
        evaluate(13, "twice", "double", { x: 1 }),
        define(14, "broken"),
        define(15, "twice"),
        evaluate(16, "twice", "triple", { x: 1 }),
        evaluate(17, "twice", "double", { y: 1 }),
        evaluate(18, "twice", "boom", { x: 1 }),
        evaluate(19, "twice", "double", { x: 1, min_runs: -1 }),
        { id: 20, kind: "define" },
        "",
        evaluate(21, "twice", "double", { x: 4 }),
      ],
      fakeRegistry(counter),
    );
    // The blank line gets no response; every other line gets one, with the message's id where it has one.
    expect(responses.map((r) => r.id)).toEqual([
      null,
      null,
      null,
      null,
      null,
      10,
      11,
      12,
      13,
      14,
      15,
      16,
      17,
      18,
      19,
      20,
      21,
    ]);
    for (const r of responses.filter((r) => r.id !== 15 && r.id !== 21)) {
      expect(Object.keys(r).sort()).toEqual(["error", "id", "success"]);
      expect(r.success).toBe(false);
      expect(typeof r.error).toBe("string");
    }
    const error = (id: number) => responses.find((r) => r.id === id)!.error;
    expect(responses[0]!.error).toMatch(/not valid JSON/);
    expect(responses[1]!.error).toMatch(/not a JSON object/);
    expect(responses[2]!.error).toMatch(/no `id`/);
    expect(responses[3]!.error).toMatch(/`id` must be a finite number or a string, got \{"deep":1\}/);
    expect(responses[4]!.error).toMatch(
      /`id` must be a finite number or a string, got a number too large for a double/,
    );
    expect(error(10)).toMatch(/no `kind`/);
    expect(error(11)).toMatch(/unknown message kind "teleport"/);
    expect(error(12)).toBe('no module named "nothing" (this tool has: twice, broken)');
    expect(error(13)).toMatch(/module "twice" has not been defined/);
    expect(error(14)).toBe("cannot compile");
    expect(responses.find((r) => r.id === 15)).toMatchObject({ success: true });
    expect(error(16)).toBe('module "twice" has no function "triple" (it has: double, boom)');
    expect(error(17)).toBe("the input must be {x: number}");
    expect(error(18)).toBe("exploded");
    expect(error(19)).toMatch(/min_runs must be an integer from 0 to 1000000/);
    expect(error(20)).toMatch(/`module` must be a string/);
    expect(responses.at(-1)).toMatchObject({ id: 21, success: true, output: 8 });
  });

  it("logs unexpected errors with their stacks, and only there", () => {
    const logged: string[] = [];
    const counter = { defines: 0, runs: 0 };
    const tool = new GradbenchTool(fakeRegistry(counter), { log: (m) => logged.push(m) });
    tool.respond(JSON.stringify(define(1, "twice")));
    const line = tool.respond(JSON.stringify(evaluate(2, "twice", "boom", { x: 1 })));
    expect(JSON.parse(line)).toEqual({ id: 2, success: false, error: "exploded" });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/Error: exploded\n\s+at /);
  });
});

describe("timing", () => {
  /** A clock advancing by `step` nanoseconds at every reading. */
  const clock = (step: bigint) => {
    let t = 0n;
    return () => (t += step);
  };

  it("runs until both min_runs and min_seconds are met, one timing per run", () => {
    let runs = 0;
    const timings = timeRuns(() => void runs++, { minRuns: 2, minSeconds: 1 }, clock(300_000_000n));
    // Each run reads the clock twice, 0.3 s apart: 4 runs reach 1.2 s.
    expect(runs).toBe(4);
    expect(timings).toEqual(Array.from({ length: 4 }, () => ({ name: "evaluate", nanoseconds: 300_000_000 })));
    expect(timeRuns(() => {}, { minRuns: 5, minSeconds: 1 }, clock(300_000_000n))).toHaveLength(5);
  });

  it("reads min_runs and min_seconds from the input, defaulting to one run", () => {
    expect(runsOf(3.5)).toEqual({ minRuns: 1, minSeconds: 0 });
    expect(runsOf({ x: [1] })).toEqual({ minRuns: 1, minSeconds: 0 });
    expect(runsOf({ min_runs: 10, min_seconds: 0.5 })).toEqual({ minRuns: 10, minSeconds: 0.5 });
    expect(runsOf({ min_runs: 0, min_seconds: 0 })).toEqual({ minRuns: 1, minSeconds: 0 });
    expect(() => runsOf({ min_runs: 1.5 })).toThrow(GradbenchError);
    expect(() => runsOf({ min_seconds: "1" })).toThrow(/min_seconds must be a number from 0 to 3600, got "1"/);
    // Values that would keep the tool busy for ever, or make a response of billions of timings.
    expect(() => runsOf({ min_runs: 1e300 })).toThrow(/min_runs must be an integer from 0 to 1000000, got 1e\+300/);
    expect(() => runsOf(JSON.parse('{"min_seconds": 1e400}'))).toThrow(/min_seconds must be .*, got Infinity/);
    expect(() => runsOf({ min_seconds: 1e9 })).toThrow(/min_seconds must be a number from 0 to 3600/);
  });

  it("stops at MAX_RUNS runs even when min_seconds is not reached (a clock that does not advance)", () => {
    expect(
      timeRuns(
        () => {},
        { minRuns: 1, minSeconds: 1 },
        () => 0n,
      ),
    ).toHaveLength(MAX_RUNS);
  });
});
