// The files the command line reads and writes: every failure is an argument error naming the file.

import { readFileSync, writeFileSync } from "node:fs";
import { fail } from "../syntax/diagnostics.js";
import { withoutByteOrderMark, type SourceFile } from "../syntax/source.js";

/** A file the command reads (`-` or /dev/stdin: standard input), without a byte-order mark. */
export function readSource(path: string): SourceFile {
  try {
    // Standard input by file descriptor: `/dev/stdin` cannot be opened by name when it is a socket.
    const fromStdin = path === "-" || path === "/dev/stdin";
    const text = withoutByteOrderMark(readFileSync(fromStdin ? 0 : path, "utf8"));
    return { name: fromStdin ? "<stdin>" : path, text };
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message;
    return fail("argument", `cannot read ${path}: ${why}`);
  }
}

/** Writes a file the command makes; a failure (no such folder, no permission) is an argument error. */
export function writeOutput(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    fail("argument", `cannot write ${path}: ${(e as Error).message}`);
  }
}
