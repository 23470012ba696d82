// The code cache of the compiler in Node (src/node-entry/loader.ts), as the package's bundle uses it: fresh processes
// import dist/bundle/index.js with SMOOTH_CODE_CACHE naming a directory of the test's own, compile and call a gradient,
// and print what the loader did with the cache (its report) and the gradient.

import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const index = fileURLToPath(new URL("../../dist/bundle/index.js", import.meta.url));

/** The gradient of v ↦ v·v + sin v₀ at (1, 2, 3), written by hand: (2 + cos 1, 4, 6). */
const EXPECTED = [2 + Math.cos(1), 4, 6];

const example = (path: string) => readFileSync(new URL(`../../examples/${path}`, import.meta.url), "utf8");
const GMM = example("adbench/gmm.smooth") + "\n" + example("gradbench/gmm.smooth");

const SCRIPT = `
const { smooth, grad } = await import(${JSON.stringify(index)});
const report = globalThis[Symbol.for("smooth-ad.codeCache")];
let gradient = null;
if (process.argv[1] === "gmm") {
  // A larger program through the same stages: the GMM gradient at a small point, its first number.
  const m = smooth([${JSON.stringify(GMM)}]);
  const row = (n, s) => Float64Array.from({ length: n }, (_, j) => Math.sin(s + j) * 0.5);
  const g = grad(m.gmmLogPosterior, { argnums: [0], backend: "wasm" });
  gradient = [...g(row(2, 0), [row(2, 1), row(2, 2)], [row(3, 3), row(3, 4)], [row(2, 5), row(2, 6), row(2, 7)], 1, 0)[0]];
} else if (process.argv[1] !== "import") {
  const m = smooth(["let f = fun (v: Vector) -> vectorDot v v + sin v[0]"]);
  gradient = [...grad(m.f, { backend: process.argv[1] })(new Float64Array([1, 2, 3]))];
}
console.log(JSON.stringify({ status: report.status, gradient }));
`;

interface Outcome {
  readonly status: string;
  readonly gradient: number[] | null;
}

/** A process that imports the package, and compiles and calls a gradient with the `wasm` (or `js`) back end. */
function run(cache: string, what: "wasm" | "js" | "import" | "gmm" = "wasm"): Outcome {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", SCRIPT, what], {
    encoding: "utf8",
    env: { ...process.env, SMOOTH_CODE_CACHE: cache },
    timeout: 60_000,
  });
  return JSON.parse(out.trim()) as Outcome;
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".v8cache"));
/** The header of the one cache file: the compiler's stages its writers ran. */
const stagesIn = (dir: string): string[] => {
  const bytes = readFileSync(join(dir, cacheFiles(dir)[0]!));
  return JSON.parse(bytes.subarray(4, 4 + bytes.readUInt32LE(0)).toString("utf8")) as string[];
};
const fresh = () => mkdtempSync(join(tmpdir(), "smooth-code-cache-"));

describe("the compiler's code cache", () => {
  it("is written by the first process, when it exits, and accepted by the next; the answers are the same", () => {
    const dir = fresh();
    const first = run(dir);
    expect(first.status).toBe("absent");
    expect(cacheFiles(dir)).toHaveLength(1);
    expect(stagesIn(dir)).toEqual(expect.arrayContaining(["check", "reverse-ad", "back end wasm"]));
    const second = run(dir);
    expect(second.status).toBe("accepted");
    for (const g of [first.gradient!, second.gradient!]) g.forEach((x, i) => expect(x).toBeCloseTo(EXPECTED[i]!, 12));
    expect(second.gradient).toEqual(first.gradient);
  });

  it("is written again by a process that ran a stage its writers had not, and only then", () => {
    const dir = fresh();
    const file = () => join(dir, cacheFiles(dir)[0]!);
    expect(run(dir, "import").status).toBe("absent");
    expect(stagesIn(dir)).toEqual([]);
    expect(run(dir, "js").status).toBe("accepted");
    expect(stagesIn(dir)).toContain("back end js");
    expect(stagesIn(dir)).not.toContain("back end wasm");
    expect(run(dir, "wasm").status).toBe("accepted");
    expect(stagesIn(dir)).toEqual(expect.arrayContaining(["back end js", "back end wasm"]));
    const written = readFileSync(file());
    expect(run(dir, "js").status).toBe("accepted");
    expect(run(dir, "wasm").status).toBe("accepted");
    expect(readFileSync(file()).equals(written)).toBe(true);
  });

  it("is written again by a process that ran much more of the compiler through the same stages", () => {
    const dir = fresh();
    const file = () => join(dir, cacheFiles(dir)[0]!);
    run(dir, "wasm");
    const small = readFileSync(file());
    const stages = stagesIn(dir);
    const gmm = run(dir, "gmm");
    expect(gmm.status).toBe("accepted");
    // The mixture weights' gradient sums to zero (the posterior depends on them through a softmax).
    expect(gmm.gradient).toHaveLength(2);
    expect(Math.abs(gmm.gradient![0]!)).toBeGreaterThan(0.01);
    expect(gmm.gradient![0]! + gmm.gradient![1]!).toBeCloseTo(0, 12);
    // The GMM gradient's compile ran the stages the small one ran (and perhaps more), and far more of their code.
    expect(stagesIn(dir)).toEqual(expect.arrayContaining(stages));
    expect(readFileSync(file()).length).toBeGreaterThan(small.length * 1.05);
    // The small program again adds nothing: the cache stays as the GMM process wrote it.
    const large = readFileSync(file());
    expect(run(dir, "wasm").status).toBe("accepted");
    expect(readFileSync(file()).equals(large)).toBe(true);
  });

  it("a damaged cache is rejected by V8, the process computes the same, and the cache is written anew", () => {
    const dir = fresh();
    run(dir);
    const file = join(dir, cacheFiles(dir)[0]!);
    const bytes = readFileSync(file);
    // V8's data begins after the header: its first bytes (a magic number, V8's version) zeroed.
    const start = 4 + bytes.readUInt32LE(0);
    bytes.fill(0, start, start + 32);
    writeFileSync(file, bytes);
    const damaged = run(dir);
    expect(damaged.status).toBe("rejected");
    damaged.gradient!.forEach((x, i) => expect(x).toBeCloseTo(EXPECTED[i]!, 12));
    expect(run(dir).status).toBe("accepted");
  });

  it("caches of other builds unused for 30 days are removed when a cache is written; one in use is kept", () => {
    const dir = fresh();
    run(dir);
    const ours = join(dir, cacheFiles(dir)[0]!);
    const old = join(dir, "core-0123456789abcdef0123456789abcdef.v8cache");
    const recent = join(dir, "core-fedcba9876543210fedcba9876543210.v8cache");
    writeFileSync(old, "an old build's cache");
    writeFileSync(recent, "a recent build's cache");
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    utimesSync(old, daysAgo(40), daysAgo(40));
    utimesSync(recent, daysAgo(10), daysAgo(10));
    // Our own cache, last written 40 days ago but read now: touched by the read, so kept.
    utimesSync(ours, daysAgo(40), daysAgo(40));
    expect(run(dir).status).toBe("accepted");
    expect(Date.now() - statSync(ours).mtimeMs).toBeLessThan(86_400_000);
    // A process that writes (here: one that ran the js back end, a stage the cache had not seen) sweeps.
    expect(run(dir, "js").status).toBe("accepted");
    expect(cacheFiles(dir).sort()).toEqual([basename(ours), basename(recent)].sort());
  });

  it("keeps the seven caches of other builds used last when a cache is written, not every build's", () => {
    const dir = fresh();
    run(dir);
    const ours = join(dir, cacheFiles(dir)[0]!);
    const hoursAgo = (n: number) => new Date(Date.now() - n * 3_600_000);
    // Ten other builds' caches, used 1 to 10 hours ago (all within the 30 days).
    const others = Array.from({ length: 10 }, (_, k) => {
      const path = join(dir, `core-${String(k).padStart(32, "0")}.v8cache`);
      writeFileSync(path, "another build's cache");
      utimesSync(path, hoursAgo(k + 1), hoursAgo(k + 1));
      return basename(path);
    });
    expect(run(dir, "js").status).toBe("accepted");
    expect(cacheFiles(dir).sort()).toEqual([basename(ours), ...others.slice(0, 7)].sort());
  });

  it("is not used from a directory others may write to, nor when turned off", () => {
    const dir = fresh();
    chmodSync(dir, 0o777);
    const shared = run(dir);
    expect(shared.status).toBe("unsafe");
    expect(cacheFiles(dir)).toHaveLength(0);
    shared.gradient!.forEach((x, i) => expect(x).toBeCloseTo(EXPECTED[i]!, 12));
    expect(run("off").status).toBe("off");
  });
});
