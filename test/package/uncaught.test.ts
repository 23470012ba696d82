// What Node prints for an error the user does not catch, through the package's own entry (dist/bundle/, built by
// `npm test`): the message, located in the user's script, and not the error's fields (a span holds the whole source
// file) nor a location inside the bundle.

import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const entry = pathToFileURL(new URL("../../dist/bundle/index.js", import.meta.url).pathname).href;
const dir = mkdtempSync(join(tmpdir(), "smooth-uncaught-"));

/** Node's stderr for a script (lines after the import), which must fail. */
function stderrOf(name: string, lines: string[]): { file: string; stderr: string } {
  const file = join(dir, name);
  writeFileSync(file, [`import { grad, add } from ${JSON.stringify(entry)};`, ...lines].join("\n"));
  try {
    execFileSync(process.execPath, [file], { encoding: "utf8", stdio: "pipe", timeout: 60_000 });
  } catch (e) {
    return { file, stderr: (e as { stderr: string }).stderr };
  }
  throw new Error(`${name} did not fail`);
}

describe("an uncaught error", () => {
  it("from a plain function: one located message, not the error's fields", () => {
    const { file, stderr } = stderrOf("label.mjs", [
      "function label(x) {",
      '  const name = "x";',
      "  return name.length * x;",
      "}",
      "grad(label)(1);",
    ]);
    expect(stderr).toContain(
      `SmoothError: ${file}:3:16 (in \`label\`): unsupported error: strings are not supported: Smooth computes with numbers`,
    );
    expect(stderr).toContain('3 |   const name = "x";');
    // Node prints an error's enumerable properties after it: none (the span would print the whole script).
    for (const field of ["kind:", "summary:", "span:", "details:", "text:"]) expect(stderr).not.toContain(field);
  });

  it("from a traced function: located at the user's line, not in the bundle", () => {
    const { file, stderr } = stderrOf("traced.mjs", ["const f = (x) => add(x, 1) * 2;", "grad(f)(1);"]);
    const message = stderr.split("\n").find((l) => l.startsWith("StagingError:"))!;
    expect(message).toMatch(/a staged Double \(\w+\) was used as a JavaScript value/);
    expect(message).toContain(`(at ${file}:2:`);
    expect(message).not.toContain("core.cjs");
  });
});
