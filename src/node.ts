// The Node-only entry (`import { loadModule } from "smooth-ad/node"`): everything the core library exports, plus what
// needs Node's file system. The core (src/index.ts) imports no `node:` module, so it also runs in browsers.

import { readFileSync } from "node:fs";
import { smoothModule, type SmoothModule } from "./library/module.js";
import { checkText } from "./library/check.js";
import { fail } from "./syntax/diagnostics.js";

export * from "./index.js";

/** The definitions of a `.smooth` file (messages name it by `path`), typed by `M` (see `smooth types`). */
export function loadModule<M = SmoothModule>(path: string): M {
  checkText(path, "loadModule: the path", "a string (the path of a .smooth file)");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message;
    return fail("argument", `loadModule: cannot read ${path}: ${why}`);
  }
  return smoothModule<M>(text, { fileName: path });
}
