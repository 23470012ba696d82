// The tool as the suite runs it: `node dist/bundle/gradbench.js` (built by `npm run build`, which `npm test` runs
// first), a session over a pipe touching every eval, then stdin closed. Every stdout line is one JSON response
// with the message's id, bad messages included, and the process exits 0 when its input ends.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { maxRho, randoms } from "./harness.js";
import * as ref from "./references.js";

const main = new URL("../../dist/bundle/gradbench.js", import.meta.url).pathname;
const runs = { min_runs: 2, min_seconds: 0 };

describe("the tool over a pipe", () => {
  it("answers a session of every eval, one JSON line per message, and exits when stdin closes", () => {
    expect(existsSync(main), `${main} is missing: run npm run build first`).toBe(true);
    const x = randoms(4, 21);
    const A = randoms(9, 22);
    const points = [
      [0, 0],
      [1, 0],
      [0, 1],
      [5, 5],
      [6, 5],
    ];
    const lstmInput = {
      main_params: [randoms(8, 23), randoms(8, 24)],
      extra_params: [randoms(2, 25), randoms(2, 26), randoms(2, 27)],
      state: [randoms(2, 28), randoms(2, 29)],
      sequence: [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
    };
    const gmmInput = {
      d: 1,
      k: 2,
      n: 2,
      alpha: [0.1, -0.2],
      mu: [[0], [1]],
      q: [[0.3], [-0.1]],
      l: [[], []],
      x: [[0.5], [0.2]],
      gamma: 1,
      m: 0,
    };
    const messages: (object | string)[] = [
      { id: 0, kind: "start", eval: "all" },
      "this is not JSON",
      { id: 2, kind: "define", module: "no-such-eval" },
      ...["hello", "lse", "llsq", "ode", "det", "kmeans", "gmm", "lstm"].map((module, i) => ({
        id: 3 + i,
        kind: "define",
        module,
      })),
      { id: 11, kind: "evaluate", module: "hello", function: "cube", input: 2 },
      { id: 12, kind: "evaluate", module: "hello", function: "double", input: 2.5 },
      { id: 13, kind: "evaluate", module: "lse", function: "gradient", input: { x, ...runs } },
      { id: 14, kind: "evaluate", module: "llsq", function: "primal", input: { x, n: 9, ...runs } },
      { id: 15, kind: "evaluate", module: "ode", function: "primal", input: { x, s: 3, ...runs } },
      { id: 16, kind: "evaluate", module: "det", function: "gradient", input: { A, ell: 3, ...runs } },
      {
        id: 17,
        kind: "evaluate",
        module: "kmeans",
        function: "dir",
        input: {
          points,
          centroids: [
            [0, 0],
            [5, 5],
          ],
          ...runs,
        },
      },
      { id: 18, kind: "evaluate", module: "gmm", function: "jacobian", input: { ...gmmInput, ...runs } },
      { id: 19, kind: "evaluate", module: "lstm", function: "jacobian", input: { ...lstmInput, ...runs } },
      { id: 20, kind: "evaluate", module: "det", function: "primal", input: { A: [1, 2], ell: 3, ...runs } },
      { id: 21, kind: "analysis", of: 19, valid: true },
    ];
    const stdin = messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m)) + "\n").join("");
    const child = spawnSync(process.execPath, [main], { input: stdin, encoding: "utf8", timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const lines = child.stdout.split("\n");
    expect(lines.pop()).toBe("");
    const responses = lines.map(
      (l) => JSON.parse(l) as { id: unknown; success?: boolean; output?: unknown; error?: string; timings?: unknown[] },
    );
    expect(responses.map((r) => r.id)).toEqual([0, null, ...Array.from({ length: 20 }, (_, i) => i + 2)]);

    const byId = (id: number) => responses.find((r) => r.id === id)!;
    expect(byId(0)).toEqual({ id: 0, tool: "smooth" });
    expect(responses[1]).toMatchObject({ success: false, error: expect.stringMatching(/not valid JSON/) });
    expect(byId(2)).toMatchObject({ success: false, error: expect.stringMatching(/no module named "no-such-eval"/) });
    for (let id = 3; id <= 10; id++) expect(byId(id)).toMatchObject({ success: true });
    expect(byId(11)).toMatchObject({ success: false, error: expect.stringMatching(/no function "cube"/) });
    expect(byId(12)).toMatchObject({ success: true, output: 5 });
    for (let id = 13; id <= 19; id++) {
      expect(byId(id), JSON.stringify(byId(id))).toMatchObject({ success: true });
      expect(byId(id).timings).toHaveLength(2);
    }
    expect(
      maxRho(
        byId(13).output,
        x.map((v) => Math.exp(v - ref.lse(x))),
      ),
    ).toBeLessThan(1e-12);
    expect(maxRho(byId(14).output, ref.llsq(x, 9))).toBeLessThan(1e-13);
    expect(maxRho(byId(15).output, ref.ode(x, 3))).toBeLessThan(1e-14);
    expect(maxRho(byId(16).output, ref.detGradient(A, 3))).toBeLessThan(1e-13);
    expect(
      maxRho(
        byId(17).output,
        ref.kmeansDir(points, [
          [0, 0],
          [5, 5],
        ]),
      ),
    ).toBeLessThan(1e-13);
    expect(byId(18).output).toMatchObject({ l: [[], []] });
    expect(byId(19).output).toHaveLength(8 * 1 * 2 + 3 * 2);
    expect(byId(20)).toMatchObject({
      success: false,
      error: expect.stringMatching(/must hold ell \* ell = 9 numbers/),
    });
    expect(byId(21)).toEqual({ id: 21 });
  });

  it("compiles with the back end SMOOTH_ENGINE names (wasm: the same gradients), and refuses an unknown one", () => {
    const x = randoms(4, 31);
    const A = randoms(9, 32);
    const stdin = [
      { id: 0, kind: "start" },
      { id: 1, kind: "define", module: "lse" },
      { id: 2, kind: "define", module: "det" },
      { id: 3, kind: "evaluate", module: "lse", function: "gradient", input: { x, ...runs } },
      { id: 4, kind: "evaluate", module: "det", function: "gradient", input: { A, ell: 3, ...runs } },
    ]
      .map((m) => JSON.stringify(m) + "\n")
      .join("");
    const env = { ...process.env, SMOOTH_ENGINE: "wasm" };
    const child = spawnSync(process.execPath, [main], { input: stdin, encoding: "utf8", timeout: 60_000, env });
    expect(child.status, child.stderr).toBe(0);
    const responses = child.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; output?: unknown });
    const output = (id: number) => responses.find((r) => r.id === id)!.output;
    expect(
      maxRho(
        output(3),
        x.map((v) => Math.exp(v - ref.lse(x))),
      ),
    ).toBeLessThan(1e-12);
    expect(maxRho(output(4), ref.detGradient(A, 3))).toBeLessThan(1e-13);

    const bad = spawnSync(process.execPath, [main], {
      input: stdin,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, SMOOTH_ENGINE: "fortran" },
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toBe(
      "smooth gradbench: argument error: unknown engine `fortran`\n  expected: wasm or js or interp or wasm-f32 or webgpu\n  found:    fortran\n",
    );
  });
});
