// The persistent compile cache's boundary in the core: a store of byte strings by key, which the core reads and
// writes through this module only. The core runs in browsers and reads no files, so the store is installed from
// outside: in Node, the disk store of ./disk-store.ts (src/node-entry/core.ts installs it for the package; the library
// option `configureCompileCache` and SMOOTH_CACHE / SMOOTH_CACHE_DIR set it); with none installed nothing is cached.
// What is stored, and what a hit skips, is ./prepare.ts's.

import { COMPILER_FINGERPRINT, SMOOTH_VERSION } from "../generated/version.js";

/** Byte strings by key. Every failure (unreadable, unwritable, full) is the store's to absorb: read gives undefined. */
export interface CompileCacheStore {
  /** The bytes written under `key` (whole, checked against their checksum), or undefined. */
  read(key: string): Uint8Array | undefined;
  /** Stores `bytes` under `key`, replacing what was there; readers never see part of it. */
  write(key: string, bytes: Uint8Array): void;
}

/** What the cache did in this process (tests count hits; `smooth dev --timings` prints them). */
export interface CacheCounts {
  /** Programs taken from the store: nothing compiled for them. */
  hits: number;
  /** Programs compiled because the store had none (or the cache could not take them). */
  misses: number;
  /** Entries found but refused: unreadable after their checksum passed, or of another format. */
  refused: number;
}

export const CACHE_COUNTS: CacheCounts = { hits: 0, misses: 0, refused: 0 };

/** The compiler's identity: part of every key, so that another version or build of Smooth misses. */
const COMPILER_ID = `${SMOOTH_VERSION}/${COMPILER_FINGERPRINT}`;

let installed: { store: CompileCacheStore; compilerId: string } | undefined;

/** Installs `store` (undefined: no cache). `compilerId` replaces the compiler's identity in keys (tests). */
export function setCompileCacheStore(store: CompileCacheStore | undefined, compilerId: string = COMPILER_ID): void {
  installed = store === undefined ? undefined : { store, compilerId };
}

/** The store installed, with the identity its keys start with. */
export const compileCacheStore = (): { store: CompileCacheStore; compilerId: string } | undefined => installed;
