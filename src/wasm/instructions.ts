// WebAssembly instructions as byte sequences (./encoder.ts's `Code`): `op(name, ...operands)` writes the operands'
// code, then the instruction, so expressions compose as trees and are encoded in post-order. Only the instructions
// the back end writes are listed; SIMD instructions (prefix 0xfd) are named as in the specification.

import { sleb, uleb, type Code } from "./encoder.js";

const SIMD = (k: number): number[] => {
  const out = [0xfd];
  uleb(k, out);
  return out;
};

const OPS = {
  unreachable: [0x00],
  return: [0x0f],
  drop: [0x1a],
  select: [0x1b],
  "i32.eqz": [0x45],
  "i32.eq": [0x46],
  "i32.ne": [0x47],
  "i32.lt_s": [0x48],
  "i32.lt_u": [0x49],
  "i32.gt_s": [0x4a],
  "i32.gt_u": [0x4b],
  "i32.le_s": [0x4c],
  "i32.le_u": [0x4d],
  "i32.ge_s": [0x4e],
  "i32.ge_u": [0x4f],
  "i64.eqz": [0x50],
  "i64.eq": [0x51],
  "i64.ne": [0x52],
  "i64.lt_s": [0x53],
  "i64.gt_s": [0x55],
  "i64.gt_u": [0x56],
  "i64.le_s": [0x57],
  "i64.ge_s": [0x59],
  "f32.eq": [0x5b],
  "f32.ne": [0x5c],
  "f32.lt": [0x5d],
  "f32.gt": [0x5e],
  "f32.le": [0x5f],
  "f32.ge": [0x60],
  "f64.eq": [0x61],
  "f64.ne": [0x62],
  "f64.lt": [0x63],
  "f64.gt": [0x64],
  "f64.le": [0x65],
  "f64.ge": [0x66],
  "i32.add": [0x6a],
  "i32.sub": [0x6b],
  "i32.mul": [0x6c],
  "i32.div_s": [0x6d],
  "i32.div_u": [0x6e],
  "i32.rem_s": [0x6f],
  "i32.and": [0x71],
  "i32.or": [0x72],
  "i32.xor": [0x73],
  "i32.shl": [0x74],
  "i32.shr_s": [0x75],
  "i32.shr_u": [0x76],
  "i64.add": [0x7c],
  "i64.sub": [0x7d],
  "i64.mul": [0x7e],
  "i64.and": [0x83],
  "i64.or": [0x84],
  "i64.xor": [0x85],
  "i64.shl": [0x86],
  "i64.shr_s": [0x87],
  "i64.shr_u": [0x88],
  "f32.abs": [0x8b],
  "f32.neg": [0x8c],
  "f32.floor": [0x8e],
  "f32.trunc": [0x8f],
  "f32.sqrt": [0x91],
  "f32.add": [0x92],
  "f32.sub": [0x93],
  "f32.mul": [0x94],
  "f32.div": [0x95],
  "f32.min": [0x96],
  "f32.max": [0x97],
  "f64.abs": [0x99],
  "f64.neg": [0x9a],
  "f64.floor": [0x9c],
  "f64.trunc": [0x9d],
  "f64.sqrt": [0x9f],
  "f64.add": [0xa0],
  "f64.sub": [0xa1],
  "f64.mul": [0xa2],
  "f64.div": [0xa3],
  "f64.min": [0xa4],
  "f64.max": [0xa5],
  "i32.wrap_i64": [0xa7],
  "i32.trunc_f32_s": [0xa8],
  "i32.trunc_f64_s": [0xaa],
  "i64.extend_i32_s": [0xac],
  "i64.extend_i32_u": [0xad],
  "f32.convert_i32_s": [0xb2],
  "f32.convert_i32_u": [0xb3],
  "f32.demote_f64": [0xb6],
  "f64.convert_i32_s": [0xb7],
  "f64.convert_i32_u": [0xb8],
  "f64.promote_f32": [0xbb],
  "i32.reinterpret_f32": [0xbc],
  "i64.reinterpret_f64": [0xbd],
  "f32.reinterpret_i32": [0xbe],
  "f64.reinterpret_i64": [0xbf],
  "memory.size": [0x3f, 0x00],
  "memory.grow": [0x40, 0x00],
  "memory.copy": [0xfc, 10, 0x00, 0x00],
  "memory.fill": [0xfc, 11, 0x00],
  // SIMD
  "i32x4.splat": SIMD(0x11),
  "i64x2.splat": SIMD(0x12),
  "f32x4.splat": SIMD(0x13),
  "f64x2.splat": SIMD(0x14),
  "i32x4.eq": SIMD(0x37),
  "i32x4.ne": SIMD(0x38),
  "i32x4.lt_s": SIMD(0x39),
  "i32x4.gt_s": SIMD(0x3b),
  "i32x4.le_s": SIMD(0x3d),
  "i32x4.ge_s": SIMD(0x3f),
  "f32x4.eq": SIMD(0x41),
  "f32x4.ne": SIMD(0x42),
  "f32x4.lt": SIMD(0x43),
  "f32x4.gt": SIMD(0x44),
  "f32x4.le": SIMD(0x45),
  "f32x4.ge": SIMD(0x46),
  "f64x2.eq": SIMD(0x47),
  "f64x2.ne": SIMD(0x48),
  "f64x2.lt": SIMD(0x49),
  "f64x2.gt": SIMD(0x4a),
  "f64x2.le": SIMD(0x4b),
  "f64x2.ge": SIMD(0x4c),
  "v128.not": SIMD(0x4d),
  "v128.and": SIMD(0x4e),
  "v128.andnot": SIMD(0x4f),
  "v128.or": SIMD(0x50),
  "v128.xor": SIMD(0x51),
  "v128.bitselect": SIMD(0x52),
  "v128.any_true": SIMD(0x53),
  "f32x4.demote_f64x2_zero": SIMD(0x5e),
  "f64x2.promote_low_f32x4": SIMD(0x5f),
  "f32x4.floor": SIMD(0x68),
  "f32x4.trunc": SIMD(0x69),
  "f64x2.floor": SIMD(0x75),
  "f64x2.trunc": SIMD(0x7a),
  "i32x4.shl": SIMD(0xab),
  "i32x4.shr_s": SIMD(0xac),
  "i32x4.shr_u": SIMD(0xad),
  "i32x4.add": SIMD(0xae),
  "i32x4.sub": SIMD(0xb1),
  "i32x4.mul": SIMD(0xb5),
  "i32x4.min_s": SIMD(0xb6),
  "i32x4.max_s": SIMD(0xb8),
  "i64x2.extend_low_i32x4_s": SIMD(0xc7),
  "i64x2.shl": SIMD(0xcb),
  "i64x2.shr_s": SIMD(0xcc),
  "i64x2.shr_u": SIMD(0xcd),
  "i64x2.add": SIMD(0xce),
  "i64x2.sub": SIMD(0xd1),
  "i64x2.eq": SIMD(0xd6),
  "i64x2.ne": SIMD(0xd7),
  "i64x2.lt_s": SIMD(0xd8),
  "i64x2.gt_s": SIMD(0xd9),
  "i64x2.le_s": SIMD(0xda),
  "i64x2.ge_s": SIMD(0xdb),
  "f32x4.abs": SIMD(0xe0),
  "f32x4.neg": SIMD(0xe1),
  "f32x4.sqrt": SIMD(0xe3),
  "f32x4.add": SIMD(0xe4),
  "f32x4.sub": SIMD(0xe5),
  "f32x4.mul": SIMD(0xe6),
  "f32x4.div": SIMD(0xe7),
  "f32x4.min": SIMD(0xe8),
  "f32x4.max": SIMD(0xe9),
  "f64x2.abs": SIMD(0xec),
  "f64x2.neg": SIMD(0xed),
  "f64x2.sqrt": SIMD(0xef),
  "f64x2.add": SIMD(0xf0),
  "f64x2.sub": SIMD(0xf1),
  "f64x2.mul": SIMD(0xf2),
  "f64x2.div": SIMD(0xf3),
  "f64x2.min": SIMD(0xf4),
  "f64x2.max": SIMD(0xf5),
  "i32x4.trunc_sat_f32x4_s": SIMD(0xf8),
  "f32x4.convert_i32x4_s": SIMD(0xfa),
  "i32x4.trunc_sat_f64x2_s_zero": SIMD(0xfc),
  "f64x2.convert_low_i32x4_s": SIMD(0xfe),
} as const satisfies Record<string, readonly number[]>;

export type OpName = keyof typeof OPS;

/** The operands' code, then the instruction. */
export function op(name: OpName, ...operands: Code[]): Code {
  const out = seq(...operands) as number[];
  const code = OPS[name];
  for (let j = 0; j < code.length; j++) out.push(code[j]!);
  return out;
}

/** Concatenated code (a sequence of instructions). */
export function seq(...codes: Code[]): Code {
  const out: number[] = [];
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    for (let j = 0; j < c.length; j++) out.push(c[j]!);
  }
  return out;
}

const withIndex = (prefix: readonly number[], k: number): Code => {
  const out = [...prefix];
  uleb(k, out);
  return out;
};

export const localGet = (k: number): Code => withIndex([0x20], k);
export const localSet = (k: number, value: Code): Code => seq(value, withIndex([0x21], k));
export const localTee = (k: number, value: Code): Code => seq(value, withIndex([0x22], k));
export const globalGet = (k: number): Code => withIndex([0x23], k);
export const globalSet = (k: number, value: Code): Code => seq(value, withIndex([0x24], k));
export const call = (fn: number, ...args: Code[]): Code => seq(...args, withIndex([0x10], fn));

export function i32(n: number): Code {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0xffffffff) throw new Error(`wasm: bad i32 constant ${n}`);
  const out = [0x41];
  sleb(n | 0, out);
  return out;
}

export function i64(n: bigint): Code {
  const out = [0x42];
  sleb(BigInt.asIntN(64, n), out);
  return out;
}

const scratch = new DataView(new ArrayBuffer(8));

/** An f64 constant with exactly the bits of x (NaN becomes the canonical NaN, as in JavaScript). */
export function f64(x: number): Code {
  const out = [0x44];
  pushF64(x, out);
  return out;
}

/** Appends the 8 bytes of x, little-endian (plain loops: these constants are many in lane code). */
function pushF64(x: number, out: number[]): void {
  scratch.setFloat64(0, x, true);
  for (let k = 0; k < 8; k++) out.push(scratch.getUint8(k));
}

export function f32(x: number): Code {
  scratch.setFloat32(0, x, true);
  const out = [0x43];
  for (let k = 0; k < 4; k++) out.push(scratch.getUint8(k));
  return out;
}

/** A v128 constant from two f64 lanes. */
export function f64x2(a: number, b: number): Code {
  const out = [...SIMD(0x0c)];
  pushF64(a, out);
  pushF64(b, out);
  return out;
}

/** A v128 constant with the same i64 in both lanes. */
export function i64x2(n: bigint): Code {
  const bytes: number[] = [];
  const v = BigInt.asUintN(64, n);
  for (let k = 0n; k < 8n; k++) bytes.push(Number((v >> (8n * k)) & 0xffn));
  return [...SIMD(0x0c), ...bytes, ...bytes];
}

/** A v128 constant with the same i32 in all four lanes. */
export function i32x4(n: number): Code {
  const bytes: number[] = [];
  for (let k = 0; k < 4; k++) bytes.push((n >>> (8 * k)) & 0xff);
  return [...SIMD(0x0c), ...bytes, ...bytes, ...bytes, ...bytes];
}

// Loads and stores: `align` is log2 of the alignment promised, `offset` a constant added to the address.
type MemOp =
  | "i32.load"
  | "i64.load"
  | "f32.load"
  | "f64.load"
  | "i32.load8_u"
  | "v128.load"
  | "v128.load32_zero"
  | "v128.load64_zero"
  | "i32.store"
  | "i64.store"
  | "f32.store"
  | "f64.store"
  | "i32.store8"
  | "v128.store";

const MEM: Record<MemOp, { code: readonly number[]; align: number }> = {
  "i32.load": { code: [0x28], align: 2 },
  "i64.load": { code: [0x29], align: 3 },
  "f32.load": { code: [0x2a], align: 2 },
  "f64.load": { code: [0x2b], align: 3 },
  "i32.load8_u": { code: [0x2d], align: 0 },
  "v128.load": { code: SIMD(0x00), align: 4 },
  "v128.load32_zero": { code: SIMD(0x5c), align: 2 },
  "v128.load64_zero": { code: SIMD(0x5d), align: 3 },
  "i32.store": { code: [0x36], align: 2 },
  "i64.store": { code: [0x37], align: 3 },
  "f32.store": { code: [0x38], align: 2 },
  "f64.store": { code: [0x39], align: 3 },
  "i32.store8": { code: [0x3a], align: 0 },
  "v128.store": { code: SIMD(0x0b), align: 4 },
};

/** A load from the i32 address `addr` (+ offset bytes). Vector loads promise only element alignment. */
export function load(name: MemOp, addr: Code, offset = 0, align?: number): Code {
  const m = MEM[name];
  const out = [...addr, ...m.code];
  uleb(align ?? (name === "v128.load" ? 3 : m.align), out);
  uleb(offset, out);
  return out;
}

/** A store of `value` at the i32 address `addr` (+ offset bytes). */
export function store(name: MemOp, addr: Code, value: Code, offset = 0, align?: number): Code {
  const m = MEM[name];
  const out = [...addr, ...value, ...m.code];
  uleb(align ?? (name === "v128.store" ? 3 : m.align), out);
  uleb(offset, out);
  return out;
}

/** Lane access: extract lane k of a v128 (f64x2, i64x2, f32x4, i32x4). */
export function extractLane(shape: "f64x2" | "i64x2" | "f32x4" | "i32x4", v: Code, lane: number): Code {
  const code = { i32x4: 0x1b, i64x2: 0x1d, f32x4: 0x1f, f64x2: 0x21 }[shape];
  return [...v, ...SIMD(code), lane];
}

export function replaceLane(shape: "f64x2" | "i64x2" | "f32x4" | "i32x4", v: Code, lane: number, x: Code): Code {
  const code = { i32x4: 0x1c, i64x2: 0x1e, f32x4: 0x20, f64x2: 0x22 }[shape];
  return [...v, ...x, ...SIMD(code), lane];
}

/** i8x16.shuffle of a and b by 16 lane indexes (0-15 from a, 16-31 from b). */
export function shuffle(a: Code, b: Code, lanes: readonly number[]): Code {
  if (lanes.length !== 16) throw new Error("wasm: a shuffle takes 16 lanes");
  return [...a, ...b, ...SIMD(0x0d), ...lanes];
}

export const unreachable: Code = [0x00];

/**
 * An atomic add of `value` to the i32 or i64 at `addr` (+ offset bytes), giving the old value (threads' prefix 0xfe;
 * the address must be aligned to the width).
 */
export function atomicAdd(width: "i32" | "i64", addr: Code, value: Code, offset = 0): Code {
  const out = [...addr, ...value, 0xfe, width === "i32" ? 0x1e : 0x1f];
  uleb(width === "i32" ? 2 : 3, out);
  uleb(offset, out);
  return out;
}
