// The Node-only entry (`import { loadModule } from "smooth-ad/node"`): everything the core library exports, plus what
// needs Node's file system. The core (src/index.ts) imports no `node:` module, so it also runs in browsers.

import { readFileSync } from "node:fs";
import { smoothModule, type SmoothModule } from "./library/module.js";

export * from "./index.js";

/** The definitions of a `.smooth` file (messages name it by `path`), typed by `M` (see `smooth types`). */
export function loadModule<M = SmoothModule>(path: string): M {
  return smoothModule<M>(readFileSync(path, "utf8"), { fileName: path });
}
