// Loading the compiler (dist/bundle/core.cjs) in Node, with V8's code cache of it kept between processes.
//
// Why: a process's first compile runs the compiler's JavaScript cold. V8 first parses and compiles each of its
// functions to bytecode when it is first called; for a GMM gradient that is some 30 ms of a 150 ms first call, and
// 15 ms of the import. A code cache holds that bytecode: a process that finds one skips the work (V8 checks that the
// cache was made by the same V8 version and flags, from source of the same length, and rejects it otherwise). This
// is what Node 22's module.enableCompileCache does for every module; Node 20 has no such switch, so the core is one
// CommonJS file compiled here through vm.Script, which takes and makes a cache.
//
// The cache is written when the process exits, so that it holds the functions the process ran (a cache made right
// after loading would hold only what the import ran), with the names of the compiler's stages that ran (parsing,
// each pass, reverse mode, each back end: ../opt/stage-times.ts) before it. A process writes it when it found none,
// or one V8 rejected, or when it ran a stage the cache's writer had not, or when its own cache would be clearly
// larger (the same stages on a larger program run many more of the compiler's functions: a cache written after a
// one-line program left a GMM gradient's first call some 20 ms slower than one written after a GMM gradient). The
// functions read from the cache are in the one it writes too, so the cache grows to hold what the processes using it
// run. Cost: a process that compiled something makes its cache data at exit (some 10 ms) to compare.
//
// A cache holding every function (compiled eagerly) was tried: twice the size, the import 4 ms slower and the GMM
// gradient's first call 11 ms slower than with the cache a GMM process wrote.
//
// Where: SMOOTH_CODE_CACHE names a directory, or `off` turns the cache off; by default a directory of this user's
// in the system's temporary directory. The cache is code this process will run, so a directory is used only when it
// is a real directory (not a link) owned by this user that no one else may write to; otherwise nothing is cached.
// Every failure to read or write the cache only means running without it.

import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import type * as CoreModule from "./core.js";

/** What the loader did with the cache, as globalThis[Symbol.for("smooth-ad.codeCache")] (for tests). */
export interface CodeCacheReport {
  /** off: disabled; unsafe: the directory is not this user's alone; absent / accepted / rejected: the file. */
  readonly status: "off" | "unsafe" | "absent" | "accepted" | "rejected";
  readonly file?: string;
}

/** What the core exports that the loader itself uses. */
interface Core {
  stagesRun(): readonly string[];
}

const REPORT = Symbol.for("smooth-ad.codeCache");

/** A cache is written again by a process whose own would be this much larger (it compiled what the cache lacks). */
const GROWTH_TO_REWRITE = 1.05;

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

/**
 * The caches of other builds kept besides the one being written: those used last. Each is about 1.3 MB, one per build
 * of the package (its path, size and time), so a developer rebuilding often had hundreds of them within the 30 days.
 */
const OTHER_CACHES_KEPT = 7;

/**
 * Removes the caches of other builds not used for 30 days, or beyond the OTHER_CACHES_KEPT used last, and
 * half-written files a day old.
 */
function removeStale(dir: string, keep: string): void {
  const now = Date.now();
  const others: { path: string; used: number }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const used = statSync(path).mtimeMs;
    const days = (now - used) / 86_400_000;
    if ((name.endsWith(".v8cache") && path !== keep && days > 30) || (name.endsWith(".partial") && days > 1))
      rmSync(path, { force: true });
    else if (name.endsWith(".v8cache") && path !== keep) others.push({ path, used });
  }
  others.sort((a, b) => b.used - a.used);
  for (const { path } of others.slice(OTHER_CACHES_KEPT)) rmSync(path, { force: true });
}

/** A cache file: the length of its header (4 bytes), the header (the stages its writer had run, as JSON), V8's data. */
function readCache(bytes: Buffer): { stages: readonly string[]; data: Buffer } {
  const length = bytes.readUInt32LE(0);
  const stages: unknown = JSON.parse(bytes.subarray(4, 4 + length).toString("utf8"));
  if (!Array.isArray(stages) || !stages.every((s) => typeof s === "string")) throw new Error("not a cache file");
  return { stages, data: bytes.subarray(4 + length) };
}

/** Loads the CommonJS module `core` (a path), through the code cache where there is one. */
export function loadCore<T extends Core>(core: string): T {
  const source = readFileSync(core, "utf8");
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const where = cacheDirectory();
  let file: string | undefined;
  let cached: Buffer | undefined;
  let stagesCached: readonly string[] = [];
  if ("dir" in where) {
    try {
      file = cacheFile(where.dir, core);
      ({ stages: stagesCached, data: cached } = readCache(readFileSync(file)));
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
  // A cache in use is touched, so that the sweep of stale caches (removeStale) goes by use, not by writing.
  if (status === "accepted" && file !== undefined) {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Only the sweep's view of it.
    }
  }
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
    const cachedBytes = status === "accepted" ? cached!.length : 0;
    process.once("exit", () => {
      const known = new Set(status === "accepted" ? stagesCached : []);
      const ran = exports.stagesRun();
      // A process that compiled nothing has nothing to add.
      if (status === "accepted" && ran.length === 0) return;
      try {
        const data = script.createCachedData();
        // The same stages can run much more of the compiler (a GMM gradient after a one-line program): written again
        // when this process holds clearly more compiled code than the cache, or ran a stage its writers had not.
        const grown = data.length > cachedBytes * GROWTH_TO_REWRITE;
        if (status === "accepted" && !grown && ran.every((stage) => known.has(stage))) return;
        const header = Buffer.from(JSON.stringify([...new Set([...known, ...ran])].sort()));
        const length = Buffer.alloc(4);
        length.writeUInt32LE(header.length);
        removeStale(dirname(target), target);
        // Written whole under another name, then renamed: a process reading it never sees half a file.
        const { threadId } = process.getBuiltinModule("node:worker_threads");
        const partial = `${target}.${process.pid}-${threadId}.partial`;
        writeFileSync(partial, Buffer.concat([length, header, data]), { mode: 0o600 });
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
