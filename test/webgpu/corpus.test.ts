// The hand-written corpus (test/programs/corpus) and the runtime-error programs on the webgpu back end (Mesa's
// software adapter here): every program gives wasm-f32's value within float32 tolerances, or its error, word for word.

import { beforeAll, describe, expect, it } from "vitest";
import { CORPUS_DIR, ERRORS_DIR, readPrograms } from "../gen/corpus.js";
import { gpuDisagreement, runOnBoth } from "./agreement.js";
import { useDawn } from "./gpu.js";
import { lastRun } from "../../src/webgpu/backend.js";

const corpus = readPrograms(CORPUS_DIR);
const errors = readPrograms(ERRORS_DIR, (f) => f.startsWith("runtime_"));
let ready = false;

beforeAll(async () => {
  ready = await useDawn();
});

describe("the corpus on webgpu", () => {
  it.each([...corpus, ...errors])("$file agrees with wasm-f32", async (p) => {
    if (!ready) return;
    let r;
    try {
      r = await runOnBoth(p.file, p.text, p.args);
    } catch (e) {
      // A program float32 cannot compile (recursive functions) is refused by both back ends.
      if (e instanceof Error && /cannot compile/.test(e.message)) return;
      throw e;
    }
    const problem = gpuDisagreement(r.cpu, r.gpu, r.type);
    if (problem) throw new Error(`${problem}\n--- kernels ---\n${r.gpuSpec.code?.text ?? ""}`);
    if (p.error !== undefined) expect(r.gpu.ok).toBe(false);
    // A program that runs is run by the parallel plan: no check of it fails, so no call goes to the sequential plan.
    else if (r.gpu.ok) expect(lastRun(r.gpuSpec)?.sequential).toBe(false);
  });
});
