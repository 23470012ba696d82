// The JavaScript back end (src/backends/backend.ts): optimised, first-order IR becomes one JavaScript function
// (./compile.ts), made once with `new Function`; its text is the generated code that `smooth compile` prints.

import type { Backend } from "../backends/backend.js";
import { compileFunction } from "./compile.js";

export const JS_BACKEND = {
  name: "js",
  description: "compiled",
  input: "optimised",
  compile(fn) {
    const compiled = compileFunction(fn);
    return {
      run: (args) => compiled(args),
      runBorrowed: (args) => compiled(args, true),
      code: { language: "javascript", text: compiled.source },
    };
  },
} as const satisfies Backend;
