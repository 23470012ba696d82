// The WebAssembly back ends (src/backends/backend.ts): optimised, first-order IR becomes one wasm module
// (./module.ts), compiled and instantiated once; each call runs it on the module's own linear memory (./runtime.ts).
// `wasm` computes Doubles in float64; `wasm-f32` in float32 end to end (every operation rounds to single precision,
// SIMD in four f32 lanes; arguments are rounded to float32 on the way in). A program `wasm` does not compile yet
// (recursive functions; a function past the engines' limit on locals) runs as the JavaScript back end compiles it;
// `wasm-f32` refuses one instead, since JavaScript would compute it in float64.

import type { Backend, Executable } from "../backends/backend.js";
import { JS_BACKEND } from "../codegen/backend.js";
import { runChecked } from "../codegen/compile.js";
import type { IrFunction } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import { transposeLaneRows } from "../lowering/transpose-rows.js";
import { generateModule, type WasmProgram } from "./module.js";
import { instantiate } from "./runtime.js";
import { RECORDABLE_RAISE } from "../cache/sites.js";
import { startWorkers, wasmThreads } from "./parallel-run.js";
import type { Real } from "./slots.js";
import { timed } from "../opt/stage-times.js";

/** The most locals a WebAssembly function may declare in the engines we run on (V8: kV8MaxWasmFunctionLocals). */
const MAX_FUNCTION_LOCALS = 50_000;

/** What `fn` runs as when wasm cannot take it: JavaScript (float64), its code saying why; float32 is an error. */
function notWasm(fn: IrFunction, real: Real, why: string): Executable {
  if (real === "f32")
    fail("unsupported", `float32 (the wasm-f32 back end) cannot compile \`${fn.name}\`: ${why}`, undefined, {
      hint: "run it in float64 (the wasm or js back end)",
    });
  const js = JS_BACKEND.compile(fn);
  const note = `// The wasm back end cannot compile this program (${why}): it runs as JavaScript.\n`;
  return { ...js, code: { language: "javascript", text: note + (js.code?.text ?? "") } };
}

function compileWasm(fn: IrFunction, real: Real): Executable {
  // Recursive functions (calls, and the tapes their derivatives pass) are not lowered to wasm yet.
  if (fn.functions !== undefined && fn.functions.length > 0) return notWasm(fn, real, "recursive functions");
  const rows = timed("transpose-rows", () => transposeLaneRows(fn));
  const threads = wasmThreads();
  const program = timed("generate module", () =>
    generateModule(rows, RECORDABLE_RAISE, real, threads, () => startWorkers(threads)),
  );
  // Engines refuse a function of more than 50,000 locals (V8's limit, and the JS API's); the wasm back end gives
  // each value a local of its own, so a straight-line program of some 10⁴ operations and its gradient runs as
  // JavaScript, which keeps such a function's locals on the heap (src/codegen/).
  if (program.localCount > MAX_FUNCTION_LOCALS)
    return notWasm(fn, real, `too many values for one wasm function: ${program.localCount} locals`);
  return wasmExecutable(program);
}

/**
 * A module, instantiated, as an Executable (also one read from the persistent compile cache, src/cache/: its error
 * sites raise through RECORDABLE_RAISE, so that they can be stored as data).
 */
export function wasmExecutable(program: WasmProgram): Executable {
  const real = program.real;
  if (program.parallelCosts.length > 0) startWorkers(program.threads);
  const run = timed("instantiate", () => instantiate(program));
  return {
    run: (args) => runChecked(run, args, false),
    runBorrowed: (args) => runChecked(run, args, true),
    artefact: { kind: "wasm", program },
    code: {
      language: "wasm",
      text:
        `;; a WebAssembly module of ${program.bytes.length} bytes` +
        (real === "f32" ? ", computing in float32" : "") +
        (program.parallelCosts.length > 0
          ? `, ${program.parallelCosts.length} builds across ${program.threads} threads when large`
          : "") +
        (program.laneLoops > 0 ? `; ${program.laneLoops} loops in SIMD lanes` : "") +
        (program.outerLaneLoops > 0 ? ` (${program.outerLaneLoops} of them in outer lanes)` : "") +
        (program.fusedFolds > 0 ? `; ${program.fusedFolds} folds in the loop of the array they read` : "") +
        (program.buildsInPlace > 0 ? `; ${program.buildsInPlace} builds written over an array they read` : "") +
        (program.steppedLoops > 0 ? `; ${program.steppedLoops} loops stepping index arithmetic by differences` : "") +
        (program.outlined > 0 ? `; ${program.outlined} loops as functions of their own` : "") +
        ((program.checkpointBranches ?? 0) > 0
          ? ` (${program.checkpointBranches} of them checkpointed branches, compiled without node splitting)`
          : ""),
    },
  };
}

export const WASM_BACKEND = {
  name: "wasm",
  description: "compiled to WebAssembly",
  input: "optimised",
  compile: (fn) => compileWasm(fn, "f64"),
} as const satisfies Backend;

export const WASM_F32_BACKEND = {
  name: "wasm-f32",
  description: "WebAssembly in float32",
  input: "optimised",
  compile: (fn) => compileWasm(fn, "f32"),
} as const satisfies Backend;
