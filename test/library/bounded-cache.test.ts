// The library's caches of specialisations keep the entries used last, at most their limit.

import { describe, expect, test } from "vitest";
import { BoundedCache, MAX_SPECIALISATIONS } from "../../src/library/bounded-cache.js";
import { compilations, compile, sum, mul, type Tensor } from "../../src/index.js";

describe("BoundedCache", () => {
  test("drops the least recently used entry, where a hit counts as a use", () => {
    const c = new BoundedCache<string, number>(3);
    c.set("a", 1);
    c.set("b", 2);
    c.set("c", 3);
    expect(c.get("a")).toBe(1); // a is now the newest: b goes first
    c.set("d", 4);
    expect([c.get("b"), c.get("c"), c.get("a"), c.get("d")]).toEqual([undefined, 3, 1, 4]);
    expect(c.size).toBe(3);
  });

  test("getOrMake makes an entry once while it is kept", () => {
    const c = new BoundedCache<number, string>(2);
    let made = 0;
    const make = (k: number) => c.getOrMake(k, () => `${k}:${made++}`);
    expect([make(1), make(1), make(2), make(1), make(3), make(2), make(1)]).toEqual([
      "1:0",
      "1:0",
      "2:1",
      "1:0",
      "3:2",
      "2:3", // 2 was dropped when 3 came (1 had been used since)
      "1:4",
    ]);
  });
});

test("a staged function called with more shapes than the limit compiles again only the shapes it dropped", () => {
  const f = compile((v: Tensor) => sum(mul(v, v)));
  const vec = (n: number) => new Float64Array(n).fill(1);
  for (let n = 1; n <= MAX_SPECIALISATIONS + 1; n++) expect(f(vec(n))).toBe(n);
  expect(compilations(f)).toBe(MAX_SPECIALISATIONS + 1);
  f(vec(MAX_SPECIALISATIONS + 1)); // kept
  expect(compilations(f)).toBe(MAX_SPECIALISATIONS + 1);
  f(vec(1)); // the least recently used: dropped, made again
  expect(compilations(f)).toBe(MAX_SPECIALISATIONS + 2);
});
