// What an ahead-of-time module (./module.ts) runs besides its generated functions: the code generator's helpers
// (src/codegen/runtime.ts) and the library's conversions between JavaScript values and runtime values, so that the
// module's exports take and return what the library's functions do. scripts/generate.mjs bundles this file with
// esbuild into src/generated/aot-runtime.ts (a text each module embeds); nothing here evaluates code.

import { RUNTIME } from "../codegen/runtime.js";
import { decode, encode } from "../library/convert.js";
import { describe, keyOf, showTree, type Tree } from "../library/pytree.js";
import type { Value } from "../runtime/value.js";
import { fail, SmoothError } from "../syntax/diagnostics.js";
import type { SourceFile, Span } from "../syntax/source.js";
import { fromConcrete } from "../types/mtype.js";
import type { Type } from "../types/types.js";

/** A location without the program's text: line, column and width of the span (the module embeds no user text). */
export type Place = readonly [line: number, col: number, width: number];

/** How an export turns the compiled function's result into its own. */
export interface Finish {
  readonly k: "value";
  readonly resultTree?: Tree;
}

/** Everything an export needs besides its generated code; plain data, written into the module as JSON. */
export interface EntryData {
  readonly places: readonly Place[];
  readonly types: readonly Type[];
  readonly paramTypes: readonly Type[];
  readonly resultType: Type;
  /** The types of the export's arguments (the primal's, for a gradient) and their key (./library/pytree.ts). */
  readonly argTypes: readonly Type[];
  readonly key: string;
  readonly shapes: boolean;
  readonly finish: Finish;
}

type Make = (...closure: unknown[]) => (args: readonly Value[], borrowed?: boolean) => Value;

/** A span at `place` of a blank file (the generated code only passes spans on to the errors it raises). */
function spanAt([line, col, width]: Place): Span {
  const file: SourceFile = { name: "<module>", text: "\n".repeat(line - 1) + " ".repeat(col - 1 + width) };
  const start = line - 1 + col - 1;
  return { file, start, end: start + width };
}

/** An error located in the program: the same error with its line and column, and no excerpt of a blank file. */
function relocated(e: unknown, places: Map<Span, Place>): unknown {
  const place = e instanceof SmoothError && e.span ? places.get(e.span) : undefined;
  if (!place || !(e instanceof SmoothError)) return e;
  return new SmoothError(
    e.kind,
    `${e.summary} (line ${place[0]}, column ${place[1]} of the Smooth source)`,
    undefined,
    {
      ...e.details,
    },
  );
}

/** The exported function: arguments checked against the types it was compiled for, then encoded, run, decoded. */
export function entry(make: Make, data: EntryData): (...args: unknown[]) => unknown {
  const spans = data.places.map(spanAt);
  const places = new Map(spans.map((span, i) => [span, data.places[i]!]));
  const run = make(RUNTIME, spans, data.types, data.paramTypes, data.resultType);
  const hints = data.argTypes.map(fromConcrete);
  const expected = data.argTypes.length;
  return (...args: unknown[]) => {
    if (args.length !== expected)
      fail("argument", `this function takes ${expected} argument(s), but ${args.length} were given`);
    const trees = args.map((a, k) => describe(a, hints[k], { what: `argument ${k}` }));
    if (keyOf(trees, data.shapes) !== data.key)
      fail("argument", "the arguments are not of the types this module was compiled for", undefined, {
        found: trees.map(showTree).join(", "),
        hint: "compile the module again with arguments like these",
      });
    const values = args.map((a, k) => encode(a, trees[k]!, () => ({ what: `argument ${k}` })));
    let out: Value;
    try {
      out = run(values);
    } catch (e) {
      throw relocated(e, places);
    }
    return decode(out, data.resultType, data.finish.resultTree);
  };
}
