// Random programs on the webgpu back end (Mesa's software adapter): random well-typed programs (test/gen) give
// wasm-f32's values or its errors, and random Double-valued programs (test/reverse/double-programs.ts) their
// gradients (reverse mode), forward-mode Jacobians and Hessians (forward over reverse) — float32 both, so within
// float32 tolerances. Software adapters are slow: CI runs a few dozen of each (SMOOTH_FUZZ_SCALE multiplies the
// counts; `npm run fuzz -- --long` runs more); the seed is fixed (SMOOTH_RANDOM_SEED replays another).

import fc from "fast-check";
import { beforeAll, describe, it } from "vitest";
import { loadProgram, type DerivativeKind } from "../../src/api/program.js";
import { describeParam } from "../../src/api/entry-types.js";
import { valueFromJson } from "../../src/runtime/json.js";
import { DERIVATIVE_PIPELINE } from "../../src/opt/pipeline.js";
import { arbProgram } from "../gen/program.js";
import { arbDoubleProgram } from "../reverse/double-programs.js";
import { gpuDisagreement, outcomeAsync, runOnBoth } from "./agreement.js";
import { useDawn } from "./gpu.js";

const SCALE = Number(process.env.SMOOTH_FUZZ_SCALE ?? 1);
const SEED = Number(process.env.SMOOTH_RANDOM_SEED ?? 34);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)), seed: SEED });
/** A software adapter compiles each kernel in some 50 ms: time in proportion to the count. */
const TIMEOUT = 120_000 * Math.max(1, SCALE);
/** Derivatives sum more terms in other orders: a looser tolerance than values. */
const DERIVATIVE_TOL = 2e-3;
let ready = false;

beforeAll(async () => {
  ready = await useDawn();
});

describe("random programs on webgpu", () => {
  it(
    "agree with wasm-f32 (40 programs)",
    async () => {
      if (!ready) return;
      await fc.assert(
        fc.asyncProperty(arbProgram({ maxDepth: 4 }), async (p) => {
          let r;
          try {
            r = await runOnBoth("random.smooth", p.source, p.args);
          } catch (e) {
            if (e instanceof Error && /cannot compile/.test(e.message)) return;
            throw e;
          }
          const problem = gpuDisagreement(r.cpu, r.gpu, r.type);
          if (problem !== undefined)
            throw new Error(`${problem}\n--- program ---\n${p.source}\n${r.gpuSpec.code?.text}`);
        }),
        runs(40),
      );
    },
    TIMEOUT,
  );

  it.each(["gradient", "forward", "hessian"] as const)(
    "Double-valued programs: the %s agrees with wasm-f32's (15 programs)",
    async (kind: DerivativeKind) => {
      if (!ready) return;
      await fc.assert(
        fc.asyncProperty(arbDoubleProgram(3), async (p) => {
          const program = loadProgram({ name: "f.smooth", text: p.source });
          const argTypes = program.argTypesFromJson("f", p.args);
          const def = program.definition("f");
          const values = p.args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
          const wrt = argTypes.flatMap((t, i) => (t.k === "int" ? [] : [i]));
          const spec = (engine: "wasm-f32" | "webgpu") =>
            program.derivative("f", argTypes, wrt, engine, DERIVATIVE_PIPELINE, kind);
          const cpu = spec("wasm-f32");
          const gpu = spec("webgpu");
          const problem = gpuDisagreement(
            await outcomeAsync(cpu, values),
            await outcomeAsync(gpu, values),
            cpu.resultType,
            DERIVATIVE_TOL,
          );
          if (problem !== undefined) throw new Error(`${problem}\n--- program ---\n${p.source}\n${gpu.code?.text}`);
        }),
        runs(15),
      );
    },
    TIMEOUT,
  );
});
