// Loading the compiler (dist/bundle/core.cjs) in Node, with V8's code cache of it kept between processes.
//
// Why: a process's first compile runs the compiler's JavaScript cold. V8 first parses and compiles each of its
// functions to bytecode when it is first called; for a GMM gradient that is some 30 ms of a 150 ms first call, and
// 15 ms of the import. A code cache holds that bytecode: a process that finds one skips the work (V8 checks that the
// cache was made by the same V8 version and flags, from source of the same length, and rejects it otherwise). This
// is what Node 22's module.enableCompileCache does for every module; Node 20 has no such switch, so the core is one
// CommonJS file compiled here through vm.Script, which takes and makes a cache.
//
// The cache is written when the process exits, so that it holds the functions a compile used (a cache made right
// after loading would hold only what the import ran): by the first process that finds none (or finds it rejected),
// and again by the first that compiles a function after a cache was written by a process that did not. Its first
// byte says which kind of process wrote it.
//
// Where: SMOOTH_CODE_CACHE names a directory, or `off` turns the cache off; by default a directory of this user's
// in the system's temporary directory. The cache is code this process will run, so a directory is used only when it
// is a real directory (not a link) owned by this user that no one else may write to; otherwise nothing is cached.
// Every failure to read or write the cache only means running without it.

import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import type * as CoreModule from "./core.js";

/** What the loader did with the cache: where tests and `smooth dev` can read it. */
export interface CodeCacheReport {
  /** off: disabled; unsafe: the directory is not this user's alone; absent / accepted / rejected: the file. */
  readonly status: "off" | "unsafe" | "absent" | "accepted" | "rejected";
  readonly file?: string;
}

/** What the core exports that the loader itself uses. */
interface Core {
  compiledFunctions(): number;
}

const WRITTEN_AFTER_IMPORT = 0;
const WRITTEN_AFTER_COMPILE = 1;
const REPORT = Symbol.for("smooth-ad.codeCache");

/** The directory to cache in, or why there is none. */
function cacheDirectory(): { dir: string } | { status: "off" | "unsafe" } {
  const setting = process.env.SMOOTH_CODE_CACHE ?? "";
  if (/^(off|0|false|no)$/i.test(setting)) return { status: "off" };
  const uid = process.getuid?.();
  const dir = setting !== "" ? setting : join(tmpdir(), `smooth-ad-code-cache-${uid ?? "user"}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const ours = uid === undefined || st.uid === uid;
    return st.isDirectory() && ours && (uid === undefined || (st.mode & 0o022) === 0) ? { dir } : { status: "unsafe" };
  } catch {
    return { status: "unsafe" };
  }
}

/** The cache file of `core` in `dir`: named by the file (path, size, time), Node's version and this process's flags. */
function cacheFile(dir: string, core: string): string {
  const st = statSync(core);
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  const key = [core, st.size, st.mtimeMs, process.version, process.arch, flags].join("\0");
  return join(dir, `core-${createHash("sha256").update(key).digest("hex").slice(0, 32)}.v8cache`);
}

/** Loads the CommonJS module `core` (a path), through the code cache where there is one. */
export function loadCore<T extends Core>(core: string): T {
  const source = readFileSync(core, "utf8");
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const where = cacheDirectory();
  let file: string | undefined;
  let cached: Buffer | undefined;
  let writtenAfter = WRITTEN_AFTER_IMPORT;
  if ("dir" in where) {
    try {
      file = cacheFile(where.dir, core);
      const bytes = readFileSync(file);
      writtenAfter = bytes[0] ?? WRITTEN_AFTER_IMPORT;
      cached = bytes.subarray(1);
    } catch {
      cached = undefined;
    }
  }
  const script = new Script(wrapped, { filename: core, ...(cached === undefined ? {} : { cachedData: cached }) });
  const status =
    "status" in where
      ? where.status
      : cached === undefined
        ? "absent"
        : script.cachedDataRejected
          ? "rejected"
          : "accepted";
  const report: CodeCacheReport = file === undefined ? { status } : { status, file };
  (globalThis as Record<symbol, unknown>)[REPORT] = report;

  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(core),
    module,
    core,
    dirname(core),
  );
  const exports = module.exports;
  if (file !== undefined) {
    const target = file;
    process.once("exit", () => {
      const compiled = exports.compiledFunctions() > 0;
      if (status === "accepted" && (writtenAfter === WRITTEN_AFTER_COMPILE || !compiled)) return;
      try {
        const kind = compiled ? WRITTEN_AFTER_COMPILE : WRITTEN_AFTER_IMPORT;
        // Written whole under another name, then renamed: a process reading it never sees half a file.
        const { threadId } = process.getBuiltinModule("node:worker_threads");
        const partial = `${target}.${process.pid}-${threadId}.partial`;
        writeFileSync(partial, Buffer.concat([Buffer.from([kind]), script.createCachedData()]), { mode: 0o600 });
        renameSync(partial, target);
      } catch {
        // No cache this time.
      }
    });
  }
  return exports;
}

/** The compiler, loaded once per process: the package's entry points (dist/bundle/*.js) take it from here. */
export const core = loadCore<typeof CoreModule>(fileURLToPath(new URL("./core.cjs", import.meta.url)));
