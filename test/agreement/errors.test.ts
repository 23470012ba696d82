// Programs that fail at run time (test/programs/errors/runtime_*.smooth): the interpreter, compiled JavaScript and
// WebAssembly all report the error the file names on its second line (`// error: index`), located in the program or
// the prelude.

import { describe, expect, it } from "vitest";
import { ERRORS_DIR, readPrograms } from "../gen/corpus.js";
import { runBothEngines } from "../gen/differential.js";

const programs = readPrograms(ERRORS_DIR, (f) => f.startsWith("runtime_"));

describe("runtime errors", () => {
  it("has error programs, each naming its error kind", () => {
    expect(programs.length).toBeGreaterThanOrEqual(8);
    for (const p of programs) expect(p.error, p.file).toBeDefined();
  });

  it.each(programs)("$file fails with the same kind of error in every back end", (p) => {
    const r = runBothEngines(p.file, p.text, p.args);
    for (const [engine, o] of [
      ["interp", r.interpOutcome],
      ["js", r.jsOutcome],
      ["wasm", r.wasmOutcome],
    ] as const) {
      if (o.ok) throw new Error(`${engine} returned a value instead of a ${p.error} error`);
      expect(o.error.kind, `${engine}: ${o.error.message}`).toBe(p.error);
      expect(o.error.span, `${engine}: the error has a location`).toBeDefined();
    }
    // Same place, same words: the compiled code reports the error the interpreter reports.
    for (const o of [r.jsOutcome, r.wasmOutcome])
      if (!r.interpOutcome.ok && !o.ok) expect(o.error.headline).toBe(r.interpOutcome.error.headline);
  });
});
