// The JavaScript back end's entry point: a first-order IrFunction becomes a JavaScript function, made once with
// `new Function`. See emit.ts for statements and errors, lowering.ts for primitives, build.ts for loops over arrays,
// leaves.ts for how values are held in locals.
//
// Errors. Compiled code raises the interpreter's errors, with the same kind, message and span, in the same order:
// a bad index throws the SmoothError of `indexOutOfRange` (src/prims/table.ts) at the get's span (the check is left
// out only where it cannot fail, see emit.ts); a negative build size or ifold count, an irregular build, an Index
// division by zero likewise. Arguments that do not fit the parameter types are "argument" errors.
//
// The generated text contains no program text: identifiers are v<id> (variables), t<n> (temporaries) and names
// derived from those; literals are printed by writer.ts; spans and types reach the code through the closure arrays
// `$spans` and `$types`; `$rt` holds the helpers of runtime.ts.

import { typeOf, type IrFunction } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import type { Value } from "../runtime/value.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { leafStarts, leavesOf } from "../lowering/leaves.js";
import { Emitter } from "./emit.js";
import { FunctionsCode } from "./functions.js";
import { RUNTIME } from "./runtime.js";
import { slotNames, varName } from "./writer.js";
import { ownership } from "../lowering/ownership.js";

export interface CompiledFunction {
  /**
   * Runs the function. With `borrowed`, the result's arrays may be the function's own memory, valid until its next
   * call (no copy out of the arena, and large arrays are reused from call to call): for a caller that reads the
   * result before calling again.
   */
  (args: readonly Value[], borrowed?: boolean): Value;
  /** The generated JavaScript. */
  readonly source: string;
}

/**
 * The JavaScript of a function, before it becomes one: `source` is the body of a function of the closure parameters
 * `CLOSURE_PARAMS`, which returns the compiled function; `spans`, `types`, `paramTypes` and `resultType` are the values
 * those parameters take (besides `$rt`, the helpers of runtime.ts). compileFunction makes it with `new Function`;
 * the ahead-of-time module (src/aot/) writes it as a function declaration instead.
 */
export interface GeneratedFunction {
  readonly source: string;
  readonly spans: readonly Span[];
  readonly types: readonly Type[];
  readonly paramTypes: readonly Type[];
  readonly resultType: Type;
}

/** The closure parameters of a GeneratedFunction's source, in order. */
export const CLOSURE_PARAMS = ["$rt", "$spans", "$types", "$paramTypes", "$resultType"] as const;

export function generateFunction(fn: IrFunction): GeneratedFunction {
  const shared = { spans: [] as Span[], types: [] as Type[] };
  // The program's recursive functions (src/ir/lower-rec.ts), each a JS function and a generator (./functions.ts).
  const functions = fn.functions !== undefined && fn.functions.length > 0 ? new FunctionsCode(fn, shared) : undefined;
  const em = new Emitter(2, shared);
  if (functions !== undefined) em.callSite = functions.callSite(false);
  const owned = ownership(fn, functions?.byName);
  em.inPlace = owned.inPlace;
  em.copyOnEntry = owned.copyOnEntry;
  em.copyArgs = owned.copyArgs;
  const paramTypes = fn.params.map((p) => p.type);
  const resultType = typeOf(fn.body);
  em.out.line("const $in = $rt.unpackArgs(args, $paramTypes);");
  let at = 0;
  for (const p of fn.params) {
    const names = slotNames(varName(p.id), p.type);
    const leaves = leavesOf(p.type);
    // Arguments are whole arrays (value.ts: data is exactly the elements), so their offsets are the literal 0.
    const offsets = new Set(
      leafStarts(leaves)
        .filter((_, l) => leaves[l]!.rank > 0)
        .map((s) => s + 1),
    );
    const slots = names.map((name, i) => {
      if (offsets.has(i)) return "0";
      em.out.line(`const ${name} = $in[${at + i}];`);
      return name;
    });
    at += names.length;
    em.bind(p, slots);
    em.markDimensions(slots, p.type);
  }
  const result = em.expr(fn.body, em.fresh());
  leavesOf(resultType); // a function-typed result is reported as unsupported
  em.out.line(`return $rt.packResult([${result.join(", ")}], $resultType, $a);`);
  // A failed check saves its site in $ek and its numbers in $e0, $e1, ... and leaves $main (see Emitter.failIf).
  const saved = Array.from({ length: em.savedCount }, (_, q) => `, $e${q} = 0`).join("");
  const dispatch = em
    .errorDispatch()
    .map((line) => `    ${line}\n`)
    .join("");
  const main = em.out.text();
  const body =
    `  let $ek = 0${saved};\n  $a.reset(borrowed === true);\n${functions === undefined ? "" : "  $depth = 0;\n"}` +
    `  $main: {\n${onTheHeap(main)}\n  }\n  switch ($ek) {\n${dispatch}  }\n  return $rt.noError();\n`;
  const source =
    functions === undefined
      ? `"use strict";\nconst $a = $rt.newArena();\nreturn function compiled(args, borrowed) {\n${body}};\n`
      : `"use strict";\nconst $a = $rt.newArena();\n${functions.declarations}` +
        `function $run(args, borrowed) {\n${body}}\n${functions.retrying()}`;
  return { source, spans: em.spans, types: em.types, paramTypes, resultType };
}

export function compileFunction(fn: IrFunction): CompiledFunction {
  return functionFromGenerated(generateFunction(fn));
}

/** The function a GeneratedFunction describes (one just generated, or one read from the persistent compile cache). */
export function functionFromGenerated(generated: GeneratedFunction): CompiledFunction {
  const { source, spans, types, paramTypes, resultType } = generated;
  // The one place generated code becomes a function; it contains no user text (see ARCHITECTURE.md).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function(...CLOSURE_PARAMS, source) as (
    ...closure: unknown[]
  ) => (args: readonly Value[], borrowed?: boolean) => Value;
  const run = make(RUNTIME, spans, types, paramTypes, resultType);
  return Object.assign((args: readonly Value[], borrowed = false) => runChecked(run, args, borrowed), { source });
}

/** Above this many locals in one block, they are moved off the stack frame (see onTheHeap). */
const MOST_BLOCK_LOCALS = 25_000;

/**
 * Every local of a JavaScript function takes a slot of its stack frame, and a straight-line program of 10⁵ values
 * (a reverse sweep keeps its forward values) would need a frame larger than the whole stack. A function that
 * refers to the locals makes V8 keep them in a heap context instead: one is declared (hoisted, never called) at the
 * end of each block with too many, the function's outermost block or a loop body (whose context is then made once
 * per iteration: nothing next to the work of so many statements). `main` is the body's text: blocks open on lines
 * ending in `{` and close on lines starting with `}` (`} else {` does both).
 */
function onTheHeap(main: string): string {
  const blocks: { indent: string; names: string[] }[] = [{ indent: "    ", names: [] }];
  const out: string[] = [];
  const closeBlock = () => {
    const { indent, names } = blocks.pop()!;
    if (names.length > MOST_BLOCK_LOCALS) out.push(`${indent}function $locals() { return [${names.join(", ")}]; }`);
  };
  for (const line of main.split("\n")) {
    const trimmed = line.trimStart();
    if (trimmed.startsWith("}")) closeBlock();
    out.push(line);
    const declared = /^(?:const|let) ([$\w]+) =/.exec(trimmed);
    if (declared !== null) blocks[blocks.length - 1]!.names.push(declared[1]!);
    if (trimmed.endsWith("{")) blocks.push({ indent: `${line.slice(0, line.length - trimmed.length)}  `, names: [] });
  }
  closeBlock();
  return out.join("\n");
}

/** Runs compiled code; an array too large for JavaScript (a typed array's length limit) is a user-facing error. */
export function runChecked(
  run: (args: readonly Value[], borrowed: boolean) => Value,
  args: readonly Value[],
  borrowed: boolean,
): Value {
  try {
    return run(args, borrowed);
  } catch (e) {
    if (e instanceof RangeError && /array length|Array buffer allocation/i.test(e.message))
      fail("unsupported", "the program needs an array larger than JavaScript can allocate", undefined, {
        found: e.message,
        hint: "reduce the sizes (a reverse-mode tape holds one state per loop iteration)",
      });
    // Recursion moves to the heap (./functions.ts); what remains is one function whose values do not fit in a stack
    // frame: every value of a straight-line program is a local, and a reverse sweep keeps its forward values live.
    if (e instanceof RangeError && /call stack/i.test(e.message))
      fail("unsupported", "the compiled function needs more stack than is left to run it", undefined, {
        hint:
          "a straight-line program of about 10^5 values (each a local of one JavaScript function) is near the " +
          "limit: call it from a shallower point, split it into functions, or use the interpreter (--engine interp)",
      });
    throw e;
  }
}
