// bench:latency's persistent compile cache rows (src/cache/): for each GradBench eval, the tool's `define` (load the
// module's program, compile its functions and their derivatives) in a fresh process with an empty cache directory
// (cold) and then in another fresh process with the directory the first one filled (warm); and the library's first
// call of the GMM gradient (./library-gmm.mjs) in a fresh process, cold and warm. Each is the median of RUNS pairs,
// every pair with a directory of its own. The V8 code cache of the compiler (src/node-entry/loader.ts) is left as it
// is: both processes of a pair find it warm after the first pair.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const TOOL = fileURLToPath(new URL("../../dist/bundle/gradbench.js", import.meta.url));
const LIBRARY_GMM = fileURLToPath(new URL("./library-gmm.mjs", import.meta.url));
export const CACHE_EVALS = ["gmm", "lstm", "ba", "kmeans", "lse", "llsq", "ht", "saddle"];
const RUNS = Number(process.env.CACHE_RUNS ?? 3);

/** One fresh tool process defining `module` with the cache in `dir`: the tool's define time in ms. */
function defineMs(module, dir, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOOL], {
      env: { ...process.env, SMOOTH_CACHE: "on", SMOOTH_CACHE_DIR: dir, ...env },
    });
    const answers = [];
    createInterface({ input: child.stdout }).on("line", (line) => {
      answers.push(JSON.parse(line));
      if (answers.length === 2) child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", () => {
      const define = answers[1];
      if (define === undefined || define.success === false) reject(new Error(`${module}: define failed`));
      else resolve(define.timings[0].nanoseconds / 1e6);
    });
    child.stdin.write(JSON.stringify({ id: 0, kind: "start" }) + "\n");
    child.stdin.write(JSON.stringify({ id: 1, kind: "define", module }) + "\n");
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * `measure(dir, env)` in a cold and then a warm process, and a warm one with V8's default (lazy) wasm tiering instead
 * of the optimising compile of the whole module at once (src/wasm/compile-tier.ts), which is most of a warm define;
 * RUNS times with fresh directories: the medians.
 */
async function coldWarm(measure) {
  const cold = [];
  const warm = [];
  const lazy = [];
  for (let r = 0; r < RUNS; r++) {
    const dir = mkdtempSync(join(tmpdir(), "smooth-cache-bench-"));
    try {
      cold.push(await measure(dir));
      warm.push(await measure(dir));
      lazy.push(await measure(dir, { SMOOTH_WASM_TIER: "lazy" }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { cold: median(cold), warm: median(warm), warmLazy: median(lazy) };
}

export async function cacheRows() {
  const tool = [];
  for (const module of CACHE_EVALS) {
    const { cold, warm, warmLazy } = await coldWarm((dir, env) => defineMs(module, dir, env));
    tool.push({ eval: module, coldDefineMs: cold, warmDefineMs: warm, warmLazyDefineMs: warmLazy });
    console.log(
      `${module} define: cold cache ${cold.toFixed(0)} ms, warm cache ${warm.toFixed(1)} ms ` +
        `(lazy wasm tiering ${warmLazy.toFixed(1)})`,
    );
  }
  const library = {};
  for (const backend of ["wasm", "js"]) {
    const run = (dir, env = {}) =>
      JSON.parse(
        execFileSync(process.execPath, [LIBRARY_GMM, backend], {
          encoding: "utf8",
          env: { ...process.env, SMOOTH_CACHE: "on", SMOOTH_CACHE_DIR: dir, ...env },
        }),
      ).firstMs;
    library[backend] = await coldWarm(run);
    console.log(
      `library GMM gradient first call (${backend}): cold cache ${library[backend].cold.toFixed(0)} ms, ` +
        `warm cache ${library[backend].warm.toFixed(1)} ms (lazy wasm tiering ${library[backend].warmLazy.toFixed(1)})`,
    );
  }
  const table = [
    "| eval | define, cold cache ms | define, warm cache ms | warm, lazy wasm tiering ms |",
    "| --- | ---: | ---: | ---: |",
    ...tool.map(
      (r) =>
        `| ${r.eval} | ${r.coldDefineMs.toFixed(0)} | ${r.warmDefineMs.toFixed(1)} | ${r.warmLazyDefineMs.toFixed(1)} |`,
    ),
    ...Object.entries(library).map(
      ([backend, r]) =>
        `| library: GMM gradient's first call (${backend}) | ${r.cold.toFixed(0)} | ${r.warm.toFixed(1)} | ` +
        `${r.warmLazy.toFixed(1)} |`,
    ),
  ].join("\n");
  return { tool, library, table };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await cacheRows()).table);
