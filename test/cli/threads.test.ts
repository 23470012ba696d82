// `smooth --threads N`: the number of threads the wasm back end's large loops may use, for any command. Observable in
// `run --explain` (the module's listing says across how many threads its sites run; 1: no sites); results are the
// same whatever the number; a bad value is one argument error.

import { describe, expect, it } from "vitest";
import { file, smooth } from "./run.js";

const source = file(
  "threads.smooth",
  `let rowNorms = fun (W: Matrix) ->
  build (length W) (fun i -> sqrt (ifold (fun s k -> s + W[i][k] * W[i][k]) 0. (length W[i])))
`,
);
const W = JSON.stringify([Array.from({ length: 50 }, (_, i) => Array.from({ length: 9 }, (_, k) => Math.sin(i + k)))]);
const run = (...flags: string[]) => smooth("run", source, "--fn", "rowNorms", "--args", W, "--explain", ...flags);
const resultOf = (stdout: string) => stdout.trim().split("\n").pop();

describe("--threads", () => {
  it("sets the threads the compiled module runs its sites on, with the same results", () => {
    const three = run("--threads", "3");
    expect(three.code).toBe(0);
    expect(three.stdout).toMatch(/1 builds across 3 threads/);
    const one = smooth("--threads", "1", "run", source, "--fn", "rowNorms", "--args", W, "--explain");
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/a WebAssembly module/);
    expect(one.stdout).not.toMatch(/across/);
    expect(resultOf(three.stdout)).toBe(resultOf(one.stdout));
  });

  it.each(["0", "two", "1.5", "-2", "999"])("--threads %s is one argument error", (bad) => {
    const r = run("--threads", bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^argument error: --threads: threads must be a whole number from 1 to 257, not /);
    expect(r.stderr).not.toMatch(/at .*\.js/);
  });
});
