// The Node-only entry (`import { loadModule } from "smooth-ad/node"`): everything the core library exports, plus what
// needs Node's file system. The core (src/index.ts) imports no `node:` module, so it also runs in browsers.

import { readFileSync } from "node:fs";
import { smoothModule, type SmoothModule } from "./library/module.js";
import { checkFlag, checkOptions, checkText } from "./library/check.js";
import { installDiskCache, settingsFromEnvironment } from "./cache/disk-store.js";
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

/** How {@link configureCompileCache} sets the persistent compile cache. */
export interface CompileCacheOptions {
  /** false turns the cache off (as SMOOTH_CACHE=off does). */
  readonly enabled?: boolean;
  /** The directory (as SMOOTH_CACHE_DIR); default $XDG_CACHE_HOME/smooth-ad/compiled or ~/.cache/smooth-ad/compiled. */
  readonly dir?: string;
  /** Its bound in bytes (as SMOOTH_CACHE_MAX_BYTES; default 256 MiB): the entries used least recently go first. */
  readonly maxBytes?: number;
}

/**
 * Sets the persistent compile cache for this process: programs compiled (wasm modules, generated JavaScript) are kept
 * on disk, keyed by their source, entry, argument types, options and Smooth's version, so that another process
 * compiling the same skips the compiler. The options override the environment's settings (SMOOTH_CACHE_DIR and
 * SMOOTH_CACHE_MAX_BYTES for those not given; SMOOTH_CACHE=off is overridden: the cache is on unless `enabled` is
 * false). Returns whether a cache is in use (a directory another user may write to is not used).
 */
export function configureCompileCache(options: CompileCacheOptions = {}): boolean {
  const what = "configureCompileCache";
  checkOptions(options, what, ["enabled", "dir", "maxBytes"]);
  checkFlag(options.enabled, what, "enabled");
  if (options.dir !== undefined) checkText(options.dir, `${what}: dir`, "a string (a directory)");
  const max = options.maxBytes;
  if (max !== undefined && !(Number.isSafeInteger(max) && max > 0))
    fail("argument", `${what}: maxBytes must be a whole number of bytes above 0, not ${String(max)}`);
  return installDiskCache({ ...settingsFromEnvironment(), enabled: true, ...options }) !== undefined;
}
