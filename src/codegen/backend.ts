// The JavaScript back end (src/backends/backend.ts): optimised, first-order IR becomes one JavaScript function
// (./compile.ts), made once with `new Function`; its text is the generated code that `smooth compile` prints.

import type { Backend, Executable } from "../backends/backend.js";
import { functionFromGenerated, generateFunction, type GeneratedFunction } from "./compile.js";

/** The generated function as an Executable (also one read from the persistent compile cache, src/cache/). */
export function jsExecutable(generated: GeneratedFunction): Executable {
  const compiled = functionFromGenerated(generated);
  return {
    run: (args) => compiled(args),
    runBorrowed: (args) => compiled(args, true),
    code: { language: "javascript", text: compiled.source },
    artefact: { kind: "js", generated },
  };
}

export const JS_BACKEND = {
  name: "js",
  description: "compiled",
  input: "optimised",
  compile: (fn) => jsExecutable(generateFunction(fn)),
} as const satisfies Backend;
