// The boundary between the compiler and its back ends. Everything before it (parse, check, lower, differentiate,
// optimise) produces core IR; a back end turns one IrFunction into something that runs. The registry
// (./registry.ts) lists the back ends; `SmoothProgram` (src/api/program.ts), the CLI's `--engine` and the library
// reach them only through it.
//
// A back end lives in a folder of its own and exports one `Backend` value: the reference interpreter in src/eval/,
// the JavaScript back end in src/codegen/. What compiled back ends share (ownership, leaf layout, bounds facts) is
// the lowering stage in src/lowering/; what is written per back end (the JavaScript text of a primitive) is in that
// back end's own lowering table, a mapped type over the primitive names.

import type { IrFunction } from "../ir/ir.js";
import type { Value } from "../runtime/value.js";
import type { Artefact } from "../cache/entry.js";

/** Code a back end generated, as text a person can read (`smooth compile`, `run --explain`, the library's inspect). */
export interface GeneratedCode {
  /** What the text is written in, e.g. "javascript". */
  readonly language: string;
  readonly text: string;
}

/** What a back end makes of one function: a way to run it, and the code it runs when there is any. */
export interface Executable {
  /** Runs the function on argument values of its parameter types; a user's error is a SmoothError. */
  readonly run: (args: readonly Value[]) => Value;
  /**
   * `run`, with a result that may share memory with the function's next call (no copy out of the back end's own
   * memory): for a caller that reads the result before calling again, such as a benchmark loop.
   */
  readonly runBorrowed: (args: readonly Value[]) => Value;
  /**
   * Runs the function and resolves to its result: the way to run a back end whose results arrive asynchronously
   * (webgpu, whose `run` is an error). Absent for the synchronous back ends, which callers run through `run`.
   */
  readonly runAsync?: (args: readonly Value[]) => Promise<Value>;
  /** The generated code (none for the interpreter, which runs the IR itself). */
  readonly code?: GeneratedCode;
  /** What it runs, in a form the persistent compile cache can store (src/cache/); none for the interpreter. */
  readonly artefact?: Artefact;
}

export interface Backend {
  /** The name users pick it by (`--engine NAME`). */
  readonly name: string;
  /** A few words for the CLI's help: what it is. */
  readonly description: string;
  /**
   * Which program `compile` is given. "optimised": the output of the optimiser pipeline (first-order IR, as compiled
   * back ends need), and derivative programs are built from the optimised primal. "lowered": the program as lowered,
   * unoptimised (the reference interpreter: comparing it with a compiled back end tests the optimiser too), and
   * derivative programs are built from the primal with derivatives expanded and functions inlined only.
   */
  readonly input: "optimised" | "lowered";
  compile(fn: IrFunction): Executable;
}
