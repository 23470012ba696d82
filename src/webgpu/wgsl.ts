// WGSL text: the only ways program data becomes shader text are the literals printed here from their values and
// names made from variable ids (codegen/writer.ts's `varName`, `slotNames`: `v12`, `v12_o`, `v12_n0`), so no user
// text reaches a shader. Also the helper functions a kernel calls (added to a module when its code first uses one),
// written so that each computes what JavaScript computes (NaN, infinities and signs of zero included) in float32.

import type { ScalarKind } from "../runtime/value.js";
import type { Type } from "../types/types.js";

/** The WGSL type of a scalar slot of this kind (array slots — data, offset, dimensions — are i32). */
export const SCALAR_TYPE: Record<ScalarKind, string> = { double: "f32", int: "i32", bool: "bool" };

/**
 * NaN and infinity: WGSL refuses them in constant expressions (a shader-creation error), so they are read from
 * private variables, which the shader compiler does not evaluate as constants (SPECIAL_VALUES declares them).
 */
const NAN = "bitcast<f32>(F32_NAN)";
const INFINITY = "bitcast<f32>(F32_INF)";

/** The declarations every module has, for NaN and infinity. */
export const SPECIAL_VALUES = "var<private> F32_NAN: u32 = 0x7fc00000u;\nvar<private> F32_INF: u32 = 0x7f800000u;";

/** A WGSL f32 literal with exactly the float32 rounding of `x` (NaN, infinities and -0 as bit patterns). */
export function f32Literal(x: number): string {
  const v = Math.fround(x);
  if (Number.isNaN(v)) return NAN;
  if (v === Infinity) return INFINITY;
  if (v === -Infinity) return `(-${INFINITY})`;
  if (Object.is(v, -0)) return "(-0.0f)";
  // String(v) reads back as the double v, which is a float32: the nearest float32 to the text is v itself.
  return v < 0 ? `(${String(v)}f)` : `${String(v)}f`;
}

/** A WGSL i32 literal (an abstract integer in range; -2^31 is not writable as a negated literal). */
export function i32Literal(x: number): string {
  if (!Number.isInteger(x) || (x | 0) !== x) throw new Error(`webgpu: Index literal ${x} is not an int32`);
  if (x === -2147483648) return "i32(-2147483647 - 1)";
  return x < 0 ? `(${x})` : String(x);
}

/** The literal of a Double, Index or Bool value. */
export function wgslLiteral(value: number | boolean, t: Type): string {
  if (t.k === "bool") return value === true ? "true" : "false";
  if (typeof value !== "number") throw new Error(`webgpu: literal of type ${t.k} with value ${String(value)}`);
  return t.k === "int" ? i32Literal(value) : f32Literal(value);
}

/** The value of a slot that is the text of an integer literal >= 0 (for src/lowering/bounds.ts), else undefined. */
export function nonNegativeLiteral(s: string): number | undefined {
  return /^[0-9]+$/.test(s) ? Number(s) : undefined;
}

/** The zero of a scalar kind, for variables declared before their value is known. */
export const ZERO: Record<ScalarKind, string> = { double: "0.0f", int: "0", bool: "false" };

/** Reading word `at` of the heap as a scalar of `kind` (a u32 word: f32 and i32 bitcast, Bool 0 or 1). */
export function fromWord(kind: ScalarKind, word: string): string {
  switch (kind) {
    case "double":
      return `bitcast<f32>(${word})`;
    case "int":
      return `bitcast<i32>(${word})`;
    case "bool":
      return `(${word} != 0u)`;
  }
}

/** The u32 word that holds a scalar of `kind`. */
export function toWord(kind: ScalarKind, value: string): string {
  return kind === "bool" ? `select(0u, 1u, ${value})` : `bitcast<u32>(${value})`;
}

/**
 * Helper functions, by name: each computes JavaScript's result in float32 (Math.max propagates NaN, `**` takes a
 * negative base to an integer power, an Index power wraps). Added to a module only when its code calls one.
 */
export const HELPERS = {
  is_nan: `fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }`,
  js_max: `fn js_max(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return bitcast<f32>(F32_NAN); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b)); }
  return select(b, a, a > b);
}`,
  js_min: `fn js_min(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return bitcast<f32>(F32_NAN); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b)); }
  return select(b, a, a < b);
}`,
  // JavaScript's x ** y: pow of |x|, with the sign of an odd integer power of a negative base, NaN for a negative
  // base and a non-integer power, 1 for y = 0 (even for NaN x), NaN for |x| = 1 and an infinite y.
  js_pow: `fn js_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0f) { return 1.0f; }
  if (is_nan(x) || is_nan(y)) { return bitcast<f32>(F32_NAN); }
  let ax = abs(x);
  let inf = bitcast<f32>(F32_INF);
  let yinf = abs(y) == inf;
  if (yinf && ax == 1.0f) { return bitcast<f32>(F32_NAN); }
  var r: f32;
  if (yinf) {
    r = select(0.0f, inf, (ax > 1.0f) == (y > 0.0f));
  } else if (ax == 0.0f) {
    r = select(0.0f, inf, y < 0.0f);
  } else if (ax == inf) {
    r = select(0.0f, inf, y > 0.0f);
  } else {
    r = exp2(y * log2(ax));
  }
  let negative = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (negative && !yinf) {
    if (floor(y) != y) { return bitcast<f32>(F32_NAN); }
    let half = y * 0.5f;
    if (floor(half) != half) { r = -r; }
  }
  return r;
}`,
  // prims/table.ts's intPow: wrapping products, 0 for a negative power of anything but 1 and -1.
  int_pow: `fn int_pow(a: i32, b: i32) -> i32 {
  if (b < 0) { if (a == 1) { return 1; } if (a == -1) { return select(-1, 1, (b & 1) == 0); } return 0; }
  var result = 1;
  var base = a;
  var e = u32(b);
  while (e > 0u) {
    if ((e & 1u) == 1u) { result = result * base; }
    base = base * base;
    e = e >> 1u;
  }
  return result;
}`,
  // tanh through exp of a non-positive argument (no overflow to inf / inf), a series near 0 (no cancellation).
  js_tanh: `fn js_tanh(x: f32) -> f32 {
  let a = abs(x);
  var r: f32;
  if (a < 0.125f) {
    let a2 = a * a;
    r = a * (1.0f + a2 * (-0.33333334f + a2 * (0.13333334f + a2 * -0.053968254f)));
  } else if (a > 9.0f) {
    r = 1.0f;
  } else {
    let e = exp(-2.0f * a);
    r = (1.0f - e) / (1.0f + e);
  }
  if (is_nan(x)) { return x; }
  return select(r, -r, x < 0.0f);
}`,
  // Index division: truncating, -2^31 / -1 = -2^31 (JavaScript's (a / b) | 0); the divisor is checked non-zero first.
  int_div: `fn int_div(a: i32, b: i32) -> i32 {
  if (b == -1) { return 0 - a; }
  return a / b;
}`,
} as const;

export type HelperName = keyof typeof HELPERS;

/** The helpers a helper itself calls (added with it). */
export const HELPER_NEEDS: Partial<Record<HelperName, readonly HelperName[]>> = {
  js_max: ["is_nan"],
  js_min: ["is_nan"],
  js_pow: ["is_nan"],
  js_tanh: ["is_nan"],
};
