// exp and log in WebAssembly (src/wasm/math.ts, one lane; src/wasm/simd-math.ts, two lanes) against V8's Math.exp and
// Math.log: the same bits on every input tried (stronger than the ≤ 1 ulp asked of them) — random inputs over the
// whole range, the neighbourhoods of every branch of fdlibm's algorithms, subnormals, signed zeros, infinities, NaN.

import { describe, expect, it } from "vitest";
import { ModuleBuilder } from "../../src/wasm/encoder.js";
import { call, i32, load, localGet, localSet, op, store } from "../../src/wasm/instructions.js";
import { writeExp, writeLog } from "../../src/wasm/math.js";
import { writeExpm1, writeTanh } from "../../src/wasm/math-tanh.js";
import { writeExpF64x2, writeLogF64x2 } from "../../src/wasm/simd-math.js";

/** How many Doubles function k of the module below takes at once: scalar, two lanes, four groups of two lanes. */
const STRIDE = [1, 1, 2, 2, 1, 1, 8, 8];

/**
 * A module applying scalar exp/log, their two-lane versions and their versions for four groups of two lanes (a lane
 * loop's step) to an array of Doubles in its memory, in place.
 */
function mathModule() {
  const mb = new ModuleBuilder();
  mb.memoryPages = 512; // 32 MiB
  const v128s = (n: number) => Array.from({ length: n }, () => "v128" as const);
  const writers = [writeExp, writeLog, writeExpF64x2, writeLogF64x2, writeExpm1];
  const fns = writers.map((write, k) => {
    const fb = mb.addFunction(
      STRIDE[k] === 1 ? { params: ["f64"], results: ["f64"] } : { params: ["v128"], results: ["v128"] },
    );
    write(fb);
    return fb.index;
  });
  const tanh = mb.addFunction({ params: ["f64"], results: ["f64"] });
  writeTanh(tanh, fns[4]!);
  fns.push(tanh.index);
  for (const write of [writeExpF64x2, writeLogF64x2]) {
    const fb = mb.addFunction({ params: v128s(4), results: v128s(4) });
    write(fb, 4);
    fns.push(fb.index);
  }
  // apply(which, n): x[q] = f(x[q]) for q < n (n a multiple of the function's stride), from address 0.
  const apply = mb.addFunction({ params: ["i32", "i32"], results: [] });
  const q = apply.local("i32");
  const outs = [0, 1, 2, 3].map(() => apply.local("v128"));
  const addr = op("i32.shl", localGet(q), i32(3));
  apply.emit(localSet(q, i32(0)));
  apply.block("done");
  apply.loop("next");
  apply.brIf("done", op("i32.ge_u", localGet(q), localGet(1)));
  fns.forEach((f, k) => {
    apply.if(op("i32.eq", localGet(0), i32(k)));
    if (STRIDE[k] === 1) apply.emit(store("f64.store", addr, call(f, load("f64.load", addr))));
    else if (STRIDE[k] === 2) apply.emit(store("v128.store", addr, call(f, load("v128.load", addr))));
    else {
      apply.emit(call(f, ...outs.map((_, g) => load("v128.load", addr, 16 * g))));
      for (let g = 3; g >= 0; g--) apply.emit(localSet(outs[g]!, []));
      outs.forEach((o, g) => apply.emit(store("v128.store", addr, localGet(o), 16 * g)));
    }
    apply.emit(localSet(q, op("i32.add", localGet(q), i32(STRIDE[k]!))));
    apply.end();
  });
  apply.br("next");
  apply.end();
  apply.end();
  mb.exportFunction("apply", apply.index);
  mb.exportMemory("memory");
  // The WebAssembly API as far as used here (the project's types leave out the DOM's declarations of it).
  const wasm = (
    globalThis as unknown as {
      WebAssembly: {
        Instance: new (module: unknown, imports: object) => { exports: unknown };
        Module: new (bytes: Uint8Array) => unknown;
      };
    }
  ).WebAssembly;
  const instance = new wasm.Instance(new wasm.Module(mb.encode()), {});
  return instance.exports as { apply: (which: number, n: number) => void; memory: { buffer: ArrayBuffer } };
}

const wasm = mathModule();
/** Doubles per call of apply: the memory's, less room for rounding up to a stride. */
const CAPACITY = (32 << 20) / 8 - 8;

/**
 * The inputs where f (0 exp, 1 log, 2 exp on two lanes, 3 log on two lanes, 4 expm1, 5 tanh, 6 exp on four groups of
 * two lanes, 7 log on four groups) and `reference` differ in any bit.
 */
function mismatches(which: number, reference: (x: number) => number, xs: Float64Array): number[] {
  const bad: number[] = [];
  for (let from = 0; from < xs.length; from += CAPACITY) {
    const part = xs.subarray(from, Math.min(xs.length, from + CAPACITY));
    const stride = STRIDE[which]!;
    const mem = new Float64Array(wasm.memory.buffer, 0, part.length + stride);
    mem.set(part);
    wasm.apply(which, Math.ceil(part.length / stride) * stride);
    for (let q = 0; q < part.length; q++) {
      const want = reference(part[q]!);
      if (!Object.is(mem[q], want) && !(Number.isNaN(mem[q]) && Number.isNaN(want))) bad.push(part[q]!);
    }
  }
  return bad;
}

/** Deterministic pseudo-random doubles. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const bits = new DataView(new ArrayBuffer(8));
const fromBits = (hi: number, lo: number) => {
  bits.setUint32(0, hi >>> 0);
  bits.setUint32(4, lo >>> 0);
  return bits.getFloat64(0);
};
const neighbours = (x: number, k = 3): number[] => {
  bits.setFloat64(0, x);
  const b = bits.getBigUint64(0);
  const out: number[] = [];
  for (let d = -k; d <= k; d++) {
    bits.setBigUint64(0, BigInt.asUintN(64, b + BigInt(d)));
    out.push(bits.getFloat64(0));
  }
  return out;
};

const SPECIAL = [0, -0, 1, -1, 2, 0.5, Infinity, -Infinity, NaN, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE];

function expInputs(): Float64Array {
  const r = lcg(1);
  const xs: number[] = [...SPECIAL];
  for (let q = 0; q < 1_000_000; q++) xs.push((r() - 0.5) * 1500, (r() - 0.5) * 4, (r() - 0.5) * 2 ** -(r() * 40));
  // Around every threshold of fdlibm's exp: |x| = ln2/2, 1.5 ln2, 2^-28, the overflow and underflow limits, the
  // points where k changes (odd multiples of ln2/2), and where 2^k leaves the normal range (k = -1021, 1024).
  const edges = [0.5 * Math.LN2, 1.5 * Math.LN2, 2 ** -28, 709.782712893384, -745.1332191019411, -708.3964185322641];
  for (let j = -1080; j <= 1030; j++) edges.push((j + 0.5) * Math.LN2, j * Math.LN2);
  for (const e of edges) for (const x of [...neighbours(e, 20), ...neighbours(-e, 20)]) xs.push(x);
  for (const h of [0x3fd62e42, 0x3ff0a2b2, 0x3e300000, 0x40862e42]) xs.push(fromBits(h, 0), fromBits(h - 1, -1));
  return Float64Array.from(xs);
}

function logInputs(): Float64Array {
  const r = lcg(2);
  const xs: number[] = [...SPECIAL];
  for (let q = 0; q < 1_000_000; q++) {
    xs.push(Math.exp((r() - 0.5) * 1400), r() * 1000, 1 + (r() - 0.5) * 2 ** -(r() * 40), r() * 2 ** -1030);
  }
  // Around 1 (the |f| < 2^-20 branch and its edges), sqrt(2)/2 and sqrt(2) (normalisation), powers of two, the
  // smallest normal, subnormals, negative numbers.
  const edges = [1, Math.SQRT1_2, Math.SQRT2, 2 ** -1022, 2 ** -1074, 1 + 2 ** -20, 1 - 2 ** -20];
  for (let j = -1074; j <= 1023; j += 7) edges.push(2 ** j);
  for (const e of edges) xs.push(...neighbours(e, 30));
  for (let q = 0; q < 1000; q++) xs.push(-r() * 10);
  return Float64Array.from(xs);
}

describe("exp in wasm", () => {
  const xs = expInputs();
  it(`is Math.exp bit for bit, one lane (${xs.length} inputs)`, () => {
    expect(mismatches(0, Math.exp, xs).slice(0, 10)).toEqual([]);
  });
  it("is Math.exp bit for bit, two lanes", () => {
    expect(mismatches(2, Math.exp, xs).slice(0, 10)).toEqual([]);
  });
  it("is Math.exp bit for bit, four groups of two lanes", () => {
    expect(mismatches(6, Math.exp, xs).slice(0, 10)).toEqual([]);
  });
});

describe("log in wasm", () => {
  const xs = logInputs();
  it(`is Math.log bit for bit, one lane (${xs.length} inputs)`, () => {
    expect(mismatches(1, Math.log, xs).slice(0, 10)).toEqual([]);
  });
  it("is Math.log bit for bit, two lanes", () => {
    expect(mismatches(3, Math.log, xs).slice(0, 10)).toEqual([]);
  });
  it("is Math.log bit for bit, four groups of two lanes", () => {
    expect(mismatches(7, Math.log, xs).slice(0, 10)).toEqual([]);
  });
});

function tanhInputs(): Float64Array {
  const r = lcg(3);
  const xs: number[] = [...SPECIAL];
  for (let q = 0; q < 500_000; q++) xs.push((r() - 0.5) * 60, (r() - 0.5) * 4, (r() - 0.5) * 2 ** -(r() * 60));
  // Around fdlibm's thresholds: tanh's 2^-28, 1 and 22; expm1's 2^-54, ln2/2, 1.5 ln2, 56 ln2, the overflow limit,
  // and the points where its k changes (odd multiples of ln2/2) up to k = 56 and past it.
  const edges = [2 ** -28, 1, 22, 2 ** -54, 0.5 * Math.LN2, 1.5 * Math.LN2, 56 * Math.LN2, 709.782712893384, 0.25];
  for (let j = -60; j <= 60; j++) edges.push((j + 0.5) * Math.LN2, j * Math.LN2, ((j + 0.5) * Math.LN2) / 2);
  for (const e of edges) for (const x of [...neighbours(e, 20), ...neighbours(-e, 20)]) xs.push(x);
  for (let q = 0; q < 2000; q++) xs.push(fromBits((r() * 0x7ff00000) | 0, (r() * 2 ** 32) >>> 0));
  return Float64Array.from(xs);
}

describe("expm1 and tanh in wasm", () => {
  const xs = tanhInputs();
  it(`expm1 is Math.expm1 bit for bit (${xs.length} inputs)`, () => {
    expect(mismatches(4, Math.expm1, xs)).toEqual([]);
  });
  it(`tanh is Math.tanh bit for bit (${xs.length} inputs)`, () => {
    expect(mismatches(5, Math.tanh, xs)).toEqual([]);
  });
});
