// The persistent compile cache's disk store (src/cache/disk-store.ts): entries checked by their checksum, written whole
// or not at all, the least recently used removed past the bound, failures absorbed; its settings and the library's
// configureCompileCache.

import * as fs from "node:fs";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultCacheDir, DiskStore, settingsFromEnvironment } from "../../src/cache/disk-store.js";
import { compileCacheStore, setCompileCacheStore } from "../../src/cache/store.js";
import { configureCompileCache } from "../../src/node.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "smooth-disk-store-"));
});

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const files = () => readdirSync(dir).sort();

describe("DiskStore", () => {
  it("gives back what was written under a key, and nothing under another", () => {
    const store = new DiskStore(dir);
    store.write("a key", bytes(100, 7));
    expect(store.read("a key")).toEqual(bytes(100, 7));
    expect(store.read("another key")).toBeUndefined();
    store.write("a key", bytes(10, 9));
    expect(store.read("a key")).toEqual(bytes(10, 9));
    expect(files()).toHaveLength(1);
  });

  it("refuses and removes an entry that is truncated or has a byte changed", () => {
    const store = new DiskStore(dir);
    for (const damage of [(b: Buffer) => b.subarray(0, b.length - 1), (b: Buffer) => (b.fill(1, 50, 51), b)]) {
      store.write("k", bytes(64, 3));
      const [name] = files();
      writeFileSync(join(dir, name!), damage(readFileSync(join(dir, name!))));
      expect(store.read("k")).toBeUndefined();
      expect(files()).toEqual([]);
    }
  });

  it("removes the entries used least recently when a write passes the bound, down to 3/4 of it", () => {
    // Each entry is 1,000 bytes of data plus 40 of header; room for 4.
    const store = new DiskStore(dir, 4 * 1040);
    const keys = ["a", "b", "c", "d"];
    keys.forEach((k, i) => {
      store.write(k, bytes(1000, i));
      // Written in order, a minute apart.
      const [name] = files().filter((n) => readFileSync(join(dir, n))[40] === i);
      utimesSync(join(dir, name!), new Date(60_000 * (i + 1)), new Date(60_000 * (i + 1)));
    });
    // A read of "a" makes it the most recently used.
    expect(store.read("a")).toEqual(bytes(1000, 0));
    store.write("e", bytes(1000, 4));
    // Over 4 entries: b and c (used longest ago) go, leaving 3 ≤ 3/4 of the bound.
    expect(store.read("b")).toBeUndefined();
    expect(store.read("c")).toBeUndefined();
    for (const [k, i] of [
      ["a", 0],
      ["d", 3],
      ["e", 4],
    ] as const)
      expect(store.read(k)).toEqual(bytes(1000, i));
  });

  it("leaves no partial file when a write fails (disk full), and keeps the old entry", () => {
    const store = new DiskStore(dir);
    store.write("k", bytes(8, 1));
    let partial = "";
    const full = new DiskStore(dir, undefined, {
      ...fs,
      writeFileSync: ((path: string, data: Uint8Array) => {
        partial = path;
        fs.writeFileSync(path, data.subarray(0, 5)); // half written, then the disk is full
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      }) as typeof fs.writeFileSync,
    });
    expect(() => full.write("k", bytes(8, 2))).not.toThrow();
    expect(partial).toMatch(/\.partial$/);
    expect(files()).toHaveLength(1);
    expect(store.read("k")).toEqual(bytes(8, 1));
  });

  it("each writer writes a partial file of its own, then renames it: a reader sees a whole entry", () => {
    const renamed: string[] = [];
    const store = new DiskStore(dir, undefined, {
      ...fs,
      renameSync: (from: fs.PathLike, to: fs.PathLike) => {
        renamed.push(String(from));
        // What a reader sees between the write and the rename: no entry, or the previous one.
        expect(new DiskStore(dir).read("k")).toEqual(renamed.length === 1 ? undefined : bytes(4, 1));
        fs.renameSync(from, to);
      },
    });
    store.write("k", bytes(4, 1));
    store.write("k", bytes(4, 2));
    expect(new Set(renamed).size).toBe(2);
    expect(new DiskStore(dir).read("k")).toEqual(bytes(4, 2));
  });

  it("reads its settings from SMOOTH_CACHE, SMOOTH_CACHE_DIR and SMOOTH_CACHE_MAX_BYTES", () => {
    expect(settingsFromEnvironment({})).toEqual({ enabled: true });
    expect(settingsFromEnvironment({ SMOOTH_CACHE: "off" }).enabled).toBe(false);
    expect(settingsFromEnvironment({ SMOOTH_CACHE: "0" }).enabled).toBe(false);
    expect(settingsFromEnvironment({ SMOOTH_CACHE_DIR: "/x", SMOOTH_CACHE_MAX_BYTES: "1000" })).toEqual({
      enabled: true,
      dir: "/x",
      maxBytes: 1000,
    });
    expect(settingsFromEnvironment({ SMOOTH_CACHE_MAX_BYTES: "lots" })).toEqual({ enabled: true });
    expect(defaultCacheDir()).toMatch(/smooth-ad[/\\]compiled$/);
  });
});

describe("configureCompileCache", () => {
  afterEach(() => setCompileCacheStore(undefined));

  it("installs the disk store in a directory, or none when turned off", () => {
    expect(configureCompileCache({ dir })).toBe(true);
    expect((compileCacheStore()?.store as DiskStore).dir).toBe(dir);
    expect(configureCompileCache({ dir, maxBytes: 1000 })).toBe(true);
    expect((compileCacheStore()?.store as DiskStore).maxBytes).toBe(1000);
    expect(configureCompileCache({ enabled: false })).toBe(false);
    expect(compileCacheStore()).toBeUndefined();
  });

  it("refuses a directory others may write to", () => {
    chmodSync(dir, 0o777);
    expect(configureCompileCache({ dir })).toBe(false);
    expect(compileCacheStore()).toBeUndefined();
  });

  it("names a wrong option", () => {
    expect(() => configureCompileCache({ directory: dir } as never)).toThrow(
      "configureCompileCache: unknown option `directory`",
    );
    expect(() => configureCompileCache({ maxBytes: -1 })).toThrow(
      "configureCompileCache: maxBytes must be a whole number of bytes above 0, not -1",
    );
    expect(() => configureCompileCache({ enabled: "yes" } as never)).toThrow(
      "configureCompileCache: enabled must be true or false",
    );
  });
});
