// The library's caches of specialisations: per function, the instances (IR functions) and compiled programs made for
// each kind of argument it was called with. They are bounded, least recently used first out, so that a function
// called with ever new argument kinds (a staged function with ever new shapes: each is a trace and a program of its
// own) keeps a bounded amount of memory instead of everything it ever compiled.

import { limitFromEnvironment } from "../runtime/limits.js";

/**
 * How many argument kinds (types, or shapes for a staged function) each cache keeps; SMOOTH_MAX_SPECIALISATIONS
 * overrides it. Why 64: one entry is about 140 KB (a staged function's trace, IR and compiled program; measured on
 * `compile` and `grad` of a vector function over 600 shapes), so a function keeps at most about 9 MB; a program
 * calls a function with a handful of kinds (a batch, the last partial batch, a test set), far below 64, and one that
 * cycles through more kinds recompiles (a few milliseconds each) rather than growing.
 */
export const MAX_SPECIALISATIONS = limitFromEnvironment("SMOOTH_MAX_SPECIALISATIONS", 64);

/** A map keeping at most `limit` entries: a hit makes its entry the most recently used; the least is dropped first. */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly limit: number = MAX_SPECIALISATIONS) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting makes the entry the newest.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }

  /** The entry of `key`, made by `make` (and kept) when there is none. */
  getOrMake(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    this.set(key, value);
    return value;
  }
}
