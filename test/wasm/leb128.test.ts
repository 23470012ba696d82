// The LEB128 encodings of the wasm encoder against the examples of the format's definition (DWARF, and the
// WebAssembly spec's own tests) and against an independent reference (BigInt arithmetic, written here).
import { describe, expect, it } from "vitest";
import { sleb, uleb } from "../../src/wasm/encoder.js";

const bytes = (write: (out: number[]) => void): number[] => {
  const out: number[] = [];
  write(out);
  return out;
};

/** Signed LEB128 by the definition: seven bits at a time, until the rest is the sign extension of the last byte. */
function referenceSleb(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = Number(BigInt.asUintN(7, n));
    n >>= 7n;
    const done = (n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

describe("LEB128", () => {
  it("encodes the known examples", () => {
    expect(bytes((o) => uleb(624485, o))).toEqual([0xe5, 0x8e, 0x26]);
    expect(bytes((o) => sleb(-123456, o))).toEqual([0xc0, 0xbb, 0x78]);
    expect(bytes((o) => sleb(-1, o))).toEqual([0x7f]);
    expect(bytes((o) => sleb(63, o))).toEqual([0x3f]);
    expect(bytes((o) => sleb(64, o))).toEqual([0xc0, 0x00]);
    expect(bytes((o) => sleb(-64, o))).toEqual([0x40]);
    expect(bytes((o) => sleb(-65, o))).toEqual([0xbf, 0x7f]);
  });

  it("writes numbers as the reference does, across the i32 range and beyond", () => {
    const samples: number[] = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 32, -(2 ** 32), 2 ** 53 - 1, -(2 ** 53 - 1)];
    for (let k = 0; k <= 53; k++) samples.push(2 ** k, -(2 ** k), 2 ** k - 1, 1 - 2 ** k, 2 ** k + 1, -(2 ** k) - 1);
    for (let s = 1; s < 2000; s++) samples.push(Math.round(Math.sin(s) * 2 ** ((s % 54) - 1)));
    for (const n of samples.filter(Number.isSafeInteger)) {
      expect(
        bytes((o) => sleb(n, o)),
        String(n),
      ).toEqual(referenceSleb(BigInt(n)));
      expect(
        bytes((o) => sleb(BigInt(n), o)),
        String(n),
      ).toEqual(referenceSleb(BigInt(n)));
    }
  });

  it("refuses a number that is not a safe integer", () => {
    expect(() => sleb(0.5, [])).toThrow();
    expect(() => sleb(2 ** 53, [])).toThrow();
  });
});
