// The WebAssembly back end (src/backends/backend.ts): optimised, first-order IR becomes one wasm module
// (./module.ts), compiled and instantiated once; each call runs it on the module's own linear memory (./runtime.ts).
// A program with recursive functions is compiled by the JavaScript back end instead (see `compile`).

import type { Backend } from "../backends/backend.js";
import { JS_BACKEND } from "../codegen/backend.js";
import { runChecked } from "../codegen/compile.js";
import { generateModule } from "./module.js";
import { instantiate, RAISE } from "./runtime.js";

/** The most locals a WebAssembly function may declare in the engines we run on (V8: kV8MaxWasmFunctionLocals). */
const MAX_FUNCTION_LOCALS = 50_000;

export const WASM_BACKEND = {
  name: "wasm",
  description: "compiled to WebAssembly",
  input: "optimised",
  compile(fn) {
    // Recursive functions (calls, and the tapes their derivatives pass) are not lowered to wasm yet: such a program
    // runs as the JavaScript back end compiles it, and its code says so.
    if (fn.functions !== undefined && fn.functions.length > 0) {
      const js = JS_BACKEND.compile(fn);
      const note = "// The wasm back end does not compile recursive functions yet: this program runs as JavaScript.\n";
      return { ...js, code: { language: "javascript", text: note + (js.code?.text ?? "") } };
    }
    const program = generateModule(fn, RAISE);
    // Engines refuse a function of more than 50,000 locals (V8's limit, and the JS API's); the wasm back end gives
    // each value a local of its own, so a straight-line program of some 10⁴ operations and its gradient runs as
    // JavaScript, which keeps such a function's locals on the heap (src/codegen/).
    if (program.localCount > MAX_FUNCTION_LOCALS) {
      const js = JS_BACKEND.compile(fn);
      const note = `// Too many values for one wasm function (${program.localCount} locals): this program runs as JavaScript.\n`;
      return { ...js, code: { language: "javascript", text: note + (js.code?.text ?? "") } };
    }
    const run = instantiate(program);
    return {
      run: (args) => runChecked(run, args, false),
      runBorrowed: (args) => runChecked(run, args, true),
      code: {
        language: "wasm",
        text:
          `;; a WebAssembly module of ${program.bytes.length} bytes` +
          (program.laneLoops > 0 ? `; ${program.laneLoops} loops in SIMD lanes` : ""),
      },
    };
  },
} as const satisfies Backend;
