// The WebAssembly back end (src/backends/backend.ts): optimised, first-order IR becomes one wasm module
// (./module.ts), compiled and instantiated once; each call runs it on the module's own linear memory (./runtime.ts).

import type { Backend } from "../backends/backend.js";
import { runChecked } from "../codegen/compile.js";
import { generateModule } from "./module.js";
import { instantiate, RAISE } from "./runtime.js";

export const WASM_BACKEND = {
  name: "wasm",
  description: "compiled to WebAssembly",
  input: "optimised",
  compile(fn) {
    const program = generateModule(fn, RAISE);
    const run = instantiate(program);
    return {
      run: (args) => runChecked(run, args, false),
      runBorrowed: (args) => runChecked(run, args, true),
      code: { language: "wasm", text: `;; a WebAssembly module of ${program.bytes.length} bytes` },
    };
  },
} as const satisfies Backend;
