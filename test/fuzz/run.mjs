// `npm run fuzz`: the fuzzing harness (test/fuzz/harness.ts), the generated plain functions
// (test/fuzz/plain-functions.test.ts) and the webgpu random programs (test/webgpu) at SMOOTH_FUZZ_SCALE times the
// CI slice (default 10; `npm run fuzz -- --long`: 100), with a fresh seed unless SMOOTH_RANDOM_SEED is set. The seed
// is printed first: SMOOTH_RANDOM_SEED=<seed> replays the run, and fast-check prints the seed and path of any
// counterexample.
import { spawnSync } from "node:child_process";

// --long: also the long sweeps (test/fuzz/growth.test.ts: every construct, request and back end at two sizes).
const long = process.argv.slice(2).includes("--long");
const seed = process.env.SMOOTH_RANDOM_SEED ?? String(Date.now() % 2 ** 31);
const scale = process.env.SMOOTH_FUZZ_SCALE ?? (process.argv.includes("--long") ? "100" : "10");
console.log(`fuzz seed ${seed} (replay: SMOOTH_RANDOM_SEED=${seed} SMOOTH_FUZZ_SCALE=${scale} npm run fuzz)`);
// The random programs on the webgpu back end too (skipped without the `webgpu` package).
const r = spawnSync("npx", ["vitest", "run", "test/fuzz", "test/webgpu/random.test.ts"], {
  stdio: "inherit",
  env: {
    ...process.env,
    SMOOTH_RANDOM_SEED: seed,
    SMOOTH_FUZZ_SCALE: scale,
    ...(long ? { SMOOTH_FUZZ_LONG: "1" } : {}),
  },
});
process.exitCode = r.status ?? 1;
