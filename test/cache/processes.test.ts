// The persistent compile cache as the `smooth` command uses it (dist/bundle/cli.js, which installs the disk store from
// the environment): processes sharing a cache directory, at the same time or one after another; a directory that
// cannot be written or used; the cache turned off; and `smooth dev --timings`, which shows what a hit skips.

import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, file, root } from "../cli/run.js";

/** Σ sin vᵢ · vᵢ at (0.5, -1.25, 2), by hand. */
const F = [0.5, -1.25, 2].reduce((s, x) => s + Math.sin(x) * x, 0);
const program = file("cached.smooth", "let f = fun (v: Vector) -> sum (build (length v) (fun i -> sin v[i] * v[i]))\n");
const RUN = ["run", program, "--fn", "f", "--args", "[[0.5, -1.25, 2]]"];
const TIMINGS = ["dev", program, "--fn", "f", "--args", "[[0.5, -1.25, 2]]", "--timings"];

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `smooth ...args` with these settings of the cache, as a process of its own. */
function smooth(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: root,
      env: { ...process.env, SMOOTH_CACHE: "on", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const freshDir = () => mkdtempSync(join(tmpdir(), "smooth-cache-processes-"));
const expectRight = (r: Outcome) => {
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(Number(r.stdout)).toBeCloseTo(F, 12);
};

describe("the compile cache between processes", () => {
  it("two processes compiling the same program at once both answer right, and leave one whole entry", async () => {
    const dir = freshDir();
    const both = await Promise.all([
      smooth({ SMOOTH_CACHE_DIR: dir }, ...RUN),
      smooth({ SMOOTH_CACHE_DIR: dir }, ...RUN),
    ]);
    both.forEach(expectRight);
    expect(readdirSync(dir).filter((n) => n.endsWith(".entry"))).toHaveLength(1);
    expect(readdirSync(dir).filter((n) => n.endsWith(".partial"))).toEqual([]);
    const third = await smooth({ SMOOTH_CACHE_DIR: dir }, ...TIMINGS);
    expect(third.stdout).toMatch(/compile cache: 1 hit, 0 misses/);
  });

  it("smooth dev --timings: a cold compile's stages, then a warm one's cache load and no compiler stage", async () => {
    const dir = freshDir();
    const cold = await smooth({ SMOOTH_CACHE_DIR: dir }, ...TIMINGS);
    expect(cold.stderr).toBe("");
    for (const stage of [
      "parse",
      "check",
      "lower",
      "pipeline",
      "simplify",
      "back end wasm",
      "instantiate",
      "cache write",
    ])
      expect(cold.stdout).toMatch(new RegExp(`^ *${stage} +[\\d.]+ ms +\\d+ runs`, "m"));
    expect(cold.stdout).toMatch(/compile cache: 0 hits, 1 miss\n/);
    const warm = await smooth({ SMOOTH_CACHE_DIR: dir }, ...TIMINGS);
    expect(warm.stdout).toMatch(/^ *cache load +[\d.]+ ms/m);
    for (const stage of ["lower", "pipeline", "simplify", "generate module", "cache write"])
      expect(warm.stdout).not.toMatch(new RegExp(`^ *${stage} `, "m"));
    expect(warm.stdout).toMatch(/compile cache: 1 hit, 0 misses\n/);
    const both = await smooth({ SMOOTH_CACHE_DIR: dir }, ...TIMINGS, "--passes", "simplify");
    expect(both).toEqual({ code: 1, stdout: "", stderr: "argument error: --passes does not apply to --timings\n" });
  });

  it("a read-only cache directory: right answers, nothing on stderr", async () => {
    const dir = freshDir();
    chmodSync(dir, 0o500);
    try {
      for (let i = 0; i < 2; i++) expectRight(await smooth({ SMOOTH_CACHE_DIR: dir }, ...RUN));
      // (As root, the directory is writable all the same.)
      if (process.getuid?.() !== 0) expect(readdirSync(dir)).toEqual([]);
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it("a cache directory that cannot be made, or that others may write to, is not used", async () => {
    const blocked = join(freshDir(), "a-file");
    writeFileSync(blocked, "");
    expectRight(await smooth({ SMOOTH_CACHE_DIR: join(blocked, "cache") }, ...RUN));
    const open = freshDir();
    chmodSync(open, 0o777);
    expectRight(await smooth({ SMOOTH_CACHE_DIR: open }, ...RUN));
    expect(readdirSync(open)).toEqual([]);
  });

  it("SMOOTH_CACHE=off writes nothing", async () => {
    const dir = freshDir();
    expectRight(await smooth({ SMOOTH_CACHE_DIR: dir, SMOOTH_CACHE: "off" }, ...RUN));
    expect(readdirSync(dir)).toEqual([]);
  });
});
