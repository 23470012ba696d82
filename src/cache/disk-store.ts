// The persistent compile cache on disk (Node only: nothing reachable from src/index.ts imports this file). One file per
// entry, named by the sha256 of its key: a magic string, the sha256 of the contents, the contents (./entry.ts). A file
// whose checksum does not match (truncated, corrupted) is removed and its program compiled again; it is never run.
//
// Concurrent processes: an entry is written whole under a name of its own (process, thread, counter), then renamed
// over the entry's name, so a reader sees the old file, the new one or none, never part of one; two processes writing
// one key both write the same program and the last rename wins. Size: the entries used least recently (by their
// times: a hit touches its file) are removed when a write takes the directory past its bound, down to 3/4 of it.
//
// The cache holds code this process runs, so a directory is used only when it is a real directory (not a link) owned by
// this user that no one else may write to, as for V8's code cache (src/node-entry/loader.ts). Every failure to read or
// write only means compiling: a full disk or a read-only directory gives no error and no warning.
//
// Settings: SMOOTH_CACHE=off (or 0, false, no) turns it off; SMOOTH_CACHE_DIR names the directory (default
// $XDG_CACHE_HOME/smooth-ad/compiled, or ~/.cache/smooth-ad/compiled); SMOOTH_CACHE_MAX_BYTES bounds its size (default
// 256 MiB). The library's `configureCompileCache` (src/node.ts) sets the same for the process.

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { setCompileCacheStore, type CompileCacheStore } from "./store.js";

const MAGIC = Buffer.from("SMOOTHC1");
const HASH_BYTES = 32;
const ENTRY = ".entry";
export const DEFAULT_MAX_BYTES = 256 * 2 ** 20;

/** The file operations the store uses (tests give failing ones: a full disk). */
export type StoreFs = Pick<
  typeof fs,
  "readFileSync" | "writeFileSync" | "renameSync" | "rmSync" | "readdirSync" | "statSync" | "utimesSync"
>;

const sha256 = (data: string | Uint8Array): Buffer => createHash("sha256").update(data).digest();

let written = 0;

export class DiskStore implements CompileCacheStore {
  constructor(
    readonly dir: string,
    readonly maxBytes: number = DEFAULT_MAX_BYTES,
    private readonly files: StoreFs = fs,
  ) {}

  private path(key: string): string {
    return join(this.dir, sha256(key).toString("hex").slice(0, 40) + ENTRY);
  }

  read(key: string): Uint8Array | undefined {
    const path = this.path(key);
    let file: Buffer;
    try {
      file = this.files.readFileSync(path);
    } catch {
      return undefined;
    }
    const contents = file.subarray(MAGIC.length + HASH_BYTES);
    const sound =
      file.length >= MAGIC.length + HASH_BYTES &&
      file.subarray(0, MAGIC.length).equals(MAGIC) &&
      file.subarray(MAGIC.length, MAGIC.length + HASH_BYTES).equals(sha256(contents));
    try {
      if (!sound) this.files.rmSync(path, { force: true });
      else {
        const now = new Date();
        this.files.utimesSync(path, now, now);
      }
    } catch {
      // Only the sweep's view of it.
    }
    return sound ? new Uint8Array(contents) : undefined;
  }

  write(key: string, bytes: Uint8Array): void {
    const path = this.path(key);
    const partial = `${path}.${process.pid}-${threadId}-${written++}.partial`;
    try {
      this.files.writeFileSync(partial, Buffer.concat([MAGIC, sha256(bytes), bytes]), { mode: 0o600 });
      this.files.renameSync(partial, path);
    } catch {
      try {
        this.files.rmSync(partial, { force: true });
      } catch {
        // Nothing more to do: the sweep removes half-written files a day old.
      }
      return;
    }
    try {
      this.sweep(path);
    } catch {
      // The bound is kept by the next write.
    }
  }

  /** Removes the entries used least recently until the directory is within 3/4 of its bound; old partial files. */
  private sweep(keep: string): void {
    const now = Date.now();
    const entries: { path: string; used: number; size: number }[] = [];
    let total = 0;
    for (const name of this.files.readdirSync(this.dir)) {
      const path = join(this.dir, name);
      let st: fs.Stats;
      try {
        st = this.files.statSync(path);
      } catch {
        continue; // removed by another process meanwhile
      }
      if (name.endsWith(".partial") && now - st.mtimeMs > 86_400_000) this.files.rmSync(path, { force: true });
      else if (name.endsWith(ENTRY)) {
        entries.push({ path, used: st.mtimeMs, size: st.size });
        total += st.size;
      }
    }
    if (total <= this.maxBytes) return;
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= (this.maxBytes * 3) / 4) break;
      if (e.path === keep) continue;
      this.files.rmSync(e.path, { force: true });
      total -= e.size;
    }
  }
}

/** Where the cache goes by default: under the user's cache directory. */
export function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  let home: string;
  try {
    home = homedir();
  } catch {
    home = tmpdir();
  }
  return join(xdg !== undefined && xdg !== "" ? xdg : join(home, ".cache"), "smooth-ad", "compiled");
}

/** Whether `dir` (made if missing) is a real directory of this user's that no one else may write to. */
function usable(dir: string): boolean {
  const uid = process.getuid?.();
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.lstatSync(dir);
    return st.isDirectory() && (uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

/** How the process's compile cache is set (the library option and the environment's settings). */
export interface CacheSettings {
  /** false: no cache. */
  readonly enabled?: boolean;
  readonly dir?: string;
  readonly maxBytes?: number;
}

/** The settings from SMOOTH_CACHE, SMOOTH_CACHE_DIR and SMOOTH_CACHE_MAX_BYTES. */
export function settingsFromEnvironment(env: NodeJS.ProcessEnv = process.env): CacheSettings {
  const max = Number(env.SMOOTH_CACHE_MAX_BYTES);
  return {
    enabled: !/^(off|0|false|no)$/i.test(env.SMOOTH_CACHE ?? ""),
    ...(env.SMOOTH_CACHE_DIR !== undefined && env.SMOOTH_CACHE_DIR !== "" ? { dir: env.SMOOTH_CACHE_DIR } : {}),
    ...(Number.isSafeInteger(max) && max > 0 ? { maxBytes: max } : {}),
  };
}

/** Installs the disk store these settings describe (none when off, or when the directory is not safe to use). */
export function installDiskCache(settings: CacheSettings = settingsFromEnvironment()): DiskStore | undefined {
  const dir = settings.dir ?? defaultCacheDir();
  const store = settings.enabled !== false && usable(dir) ? new DiskStore(dir, settings.maxBytes) : undefined;
  setCompileCacheStore(store);
  return store;
}
