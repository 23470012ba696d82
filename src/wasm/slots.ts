// How the wasm back end holds the slots of the shared leaf layout (src/lowering/leaves.ts): a slot is a local of
// the function being written or a constant. A scalar leaf is one slot (f64 for a Double, or f32 when the function
// computes in float32; i32 for an Index or a Bool, 0 or 1); an array leaf is [data, offset, dim0, ...], all i32: the
// byte address of its elements in linear memory, the position of its element 0 there, and its dimensions.
//
// Index expressions (sizes, offsets, addresses) are built as `IExpr`s, which fold the constants the leaf layout is
// full of (offsets 0, strides 1) so that the code does not multiply by one or add zero.

import type { ScalarKind } from "../runtime/value.js";
import { elemKind, leavesOf } from "../lowering/leaves.js";
import type { Type } from "../types/types.js";
import type { Code, ValType } from "./encoder.js";
import { f32, f64, i32, localGet, op } from "./instructions.js";

/** The floating-point type Doubles are computed in: f64, or f32 for a float32 function. */
export type Real = "f64" | "f32";

export type LocalSlot = { readonly local: number; readonly type: ValType };
export type WSlot = LocalSlot | { readonly value: number; readonly type: ValType };

export const isLocal = (s: WSlot): s is LocalSlot => "local" in s;

export function slotCode(s: WSlot): Code {
  if (isLocal(s)) return localGet(s.local);
  switch (s.type) {
    case "f64":
      return f64(s.value);
    case "f32":
      return f32(s.value);
    case "i32":
      return i32(s.value);
    default:
      throw new Error(`wasm: no constant slot of type ${s.type}`);
  }
}

/**
 * The key of a slot for the bounds facts (src/lowering/bounds.ts), which key slots by text: `l12` for local 12, the
 * digits of a non-negative i32 constant (read back by `indexLiteral`), something else for other constants.
 */
export function slotKey(s: WSlot): string {
  if (isLocal(s)) return `l${s.local}`;
  if (s.type === "i32") return s.value >= 0 ? String(s.value) : `n${-s.value}`;
  return `${s.type}:${Object.is(s.value, -0) ? "-0" : String(s.value)}`;
}

/**
 * The local slots among `slots`, each once, in order: what a function of its own takes as parameters for code that
 * reads them (a local two variables share, `let n = length x`, stays one local there, so what is known of it holds).
 */
export function distinctLocals(slots: readonly WSlot[]): LocalSlot[] {
  const locals = new Map<number, LocalSlot>();
  for (const s of slots) if (isLocal(s) && !locals.has(s.local)) locals.set(s.local, s);
  return [...locals.values()];
}

export const sameSlot = (a: WSlot, b: WSlot): boolean => a.type === b.type && slotKey(a) === slotKey(b);

/** The value of an i32 constant key written by slotKey (a non-negative literal), else undefined. */
export function indexLiteral(key: string): number | undefined {
  return /^[0-9]+$/.test(key) ? Number(key) : undefined;
}

export const i32Const = (n: number): WSlot => ({ value: n | 0, type: "i32" });
export const ZERO: WSlot = i32Const(0);

export function scalarType(kind: ScalarKind, real: Real): ValType {
  return kind === "double" ? real : "i32";
}

/** The wasm types of the slots of a value of type t, in leaf order. */
export function slotTypes(t: Type, real: Real): readonly ValType[] {
  switch (t.k) {
    case "double":
      return real === "f64" ? ONE_F64 : ONE_F32;
    case "int":
    case "bool":
      return ONE_I32;
  }
  // Asked for every primitive and loop written: made once per type.
  const cache = real === "f64" ? slotTypesF64 : slotTypesF32;
  let types = cache.get(t);
  if (types === undefined) {
    types = leavesOf(t).flatMap((l) =>
      l.rank === 0 ? [scalarType(elemKind(l), real)] : new Array<ValType>(2 + l.rank).fill("i32"),
    );
    cache.set(t, types);
  }
  return types;
}

const ONE_F64: readonly ValType[] = ["f64"];
const ONE_F32: readonly ValType[] = ["f32"];
const ONE_I32: readonly ValType[] = ["i32"];
const slotTypesF64 = new WeakMap<Type, readonly ValType[]>();
const slotTypesF32 = new WeakMap<Type, readonly ValType[]>();

/** log2 of the bytes of one element of this kind in linear memory. */
export function elementShift(kind: ScalarKind, real: Real): number {
  return kind === "double" ? (real === "f64" ? 3 : 2) : kind === "int" ? 2 : 0;
}

/** An i32 expression, with its value when it is a known constant. */
export interface IExpr {
  readonly code: Code;
  readonly value?: number;
  /** The slot it reads, when it is one. */
  readonly slot?: WSlot;
}

export const iconst = (n: number): IExpr => ({ code: i32(n | 0), value: n | 0 });

export function islot(s: WSlot): IExpr {
  return isLocal(s) ? { code: slotCode(s), slot: s } : { code: slotCode(s), value: s.value };
}

export function imul(a: IExpr, b: IExpr): IExpr {
  if (a.value === 0 || b.value === 0) return iconst(0);
  if (a.value === 1) return b;
  if (b.value === 1) return a;
  if (a.value !== undefined && b.value !== undefined) return iconst(Math.imul(a.value, b.value));
  return { code: op("i32.mul", a.code, b.code) };
}

export function iadd(a: IExpr, b: IExpr): IExpr {
  if (a.value === 0) return b;
  if (b.value === 0) return a;
  if (a.value !== undefined && b.value !== undefined) return iconst((a.value + b.value) | 0);
  return { code: op("i32.add", a.code, b.code) };
}

/** The product of slots (dimensions, an index), folding constants. */
export function product(factors: readonly (WSlot | IExpr)[]): IExpr {
  return factors.reduce<IExpr>((acc, f) => imul(acc, "code" in f ? f : islot(f)), iconst(1));
}

/** The byte address of element `index` of the data at `data` (elements of 1 << shift bytes). */
export function address(data: WSlot, index: IExpr, shift: number): Code {
  return iadd(islot(data), shift === 0 ? index : ishl(index, shift)).code;
}

export function ishl(a: IExpr, shift: number): IExpr {
  if (a.value !== undefined) return iconst(a.value << shift);
  return shift === 0 ? a : { code: op("i32.shl", a.code, i32(shift)) };
}
