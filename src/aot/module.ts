// Ahead-of-time compilation: compiled functions written out as one standalone ES module, for pages whose
// Content-Security-Policy forbids evaluating code (`script-src 'self'`). The module holds the AOT runtime (the text
// scripts/generate.mjs bundled from ./runtime.ts), then each function's generated JavaScript (src/codegen/compile.ts)
// as a function declaration instead of a `new Function` body, and its data as JSON. Nothing in it evaluates code or
// imports anything; like all generated code it contains no text of the user's program: spans become line, column and
// width only, identifiers are the compiler's, and the export names are fixed by the caller of writeModule.

import type { GeneratedFunction } from "../codegen/compile.js";
import { CLOSURE_PARAMS } from "../codegen/compile.js";
import { AOT_RUNTIME } from "../generated/aot-runtime.js";
import { lineCol, type Span } from "../syntax/source.js";
import type { EntryData, Place } from "./runtime.js";

/** One export of a module: its fixed name, its generated code and how its arguments and result are converted. */
export interface ModuleExport {
  readonly name: "value" | "gradient";
  readonly generated: GeneratedFunction;
  readonly data: Omit<EntryData, "places" | "types" | "paramTypes" | "resultType">;
}

function place(span: Span): Place {
  const { line, col } = lineCol(span.file, span.start);
  const lineEnd = span.file.text.indexOf("\n", span.start);
  const end = lineEnd < 0 ? span.end : Math.min(span.end, lineEnd);
  return [line, col, Math.max(1, end - span.start)];
}

/** The text of an ES module exporting each function under its name (and the first one as the default export). */
export function writeModule(exports: readonly ModuleExport[]): string {
  const parts = [
    `// Compiled ahead of time by Smooth (smooth-ad). Standalone: it imports nothing and evaluates no code.`,
    `// Exports: ${exports.map((e) => e.name).join(", ")}.`,
    AOT_RUNTIME.trim(),
  ];
  exports.forEach((e, i) => {
    const g = e.generated;
    const data: EntryData = {
      ...e.data,
      places: g.spans.map(place),
      types: g.types,
      paramTypes: g.paramTypes,
      resultType: g.resultType,
    };
    parts.push(
      `function $make${i}(${CLOSURE_PARAMS.join(", ")}) {\n${g.source}}`,
      `export const ${e.name} = $smoothAot.entry($make${i}, ${JSON.stringify(data)});`,
    );
  });
  parts.push(`export default ${exports[0]!.name};`);
  return parts.join("\n") + "\n";
}
