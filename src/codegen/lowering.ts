// The JavaScript back end's lowering table: how each primitive is written in JavaScript. A mapped type over the
// primitive names (src/prims/names.ts), like the primitive table itself, so a primitive without a lowering fails
// `tsc`; each back end has a table of its own, and src/prims/table.ts keeps only what is the same for all of them.
//
// Two kinds of entry. `expr`: a JavaScript expression from the operands' expressions (already atoms: a local or a
// literal), their types (Index arithmetic wraps to int32, Double does not) and an expression for the application's
// Span (runtime errors such as an Index division by zero). `slots`: statements written by the emitter over the
// operands' slots (./leaves.ts), for what works on flattened arrays (get, length, the updates) or checks and then
// passes an operand on (checkIndex, sameSize): these read and write leaves, in place where the shared lowering stage
// allows it (src/lowering/ownership.ts), and report failures with `failIf` like every other check.

import { arrayOf, type Type } from "../types/types.js";
import type { Prim } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import { leafStarts, leavesOf, slotCount } from "../lowering/leaves.js";
import type { Emitter, Slots } from "./emit.js";
import { emitAddArray, emitRecord, emitUpdateAt, emitZerosLike } from "./update.js";
import { emitTapeOp } from "./tape.js";

export type JsLowering =
  | { readonly expr: (args: readonly string[], argTypes: readonly Type[], span: string) => string }
  | { readonly slots: (em: Emitter, e: Prim, base: string) => Slots };

/** Index division: inline when the divisor is a non-zero literal (no division by zero to report). */
function intDivJs(a: string, b: string, span: string): string {
  return /^-?[0-9]+$/.test(b) && Number(b) !== 0 ? `((${a} / ${b}) | 0)` : `$rt.intDiv(${a}, ${b}, ${span})`;
}

/** Arithmetic on two Doubles or two Indexes. */
function arith(
  double: (a: string, b: string) => string,
  index: (a: string, b: string, span: string) => string,
): JsLowering {
  return { expr: ([a, b], [ta], span) => (ta!.k === "int" ? index(a!, b!, span) : double(a!, b!)) };
}

const call = (fn: string): JsLowering => ({ expr: ([a]) => `${fn}(${a})` });
const infix = (op: string): JsLowering => ({ expr: ([a, b]) => `(${a} ${op} ${b})` });
const same: JsLowering = { expr: ([a]) => a! };

export const JS_LOWERING: { readonly [K in PrimName]: JsLowering } = {
  add: arith(
    (a, b) => `(${a} + ${b})`,
    (a, b) => `((${a} + ${b}) | 0)`,
  ),
  sub: arith(
    (a, b) => `(${a} - ${b})`,
    (a, b) => `((${a} - ${b}) | 0)`,
  ),
  mul: arith(
    (a, b) => `(${a} * ${b})`,
    (a, b) => `Math.imul(${a}, ${b})`,
  ),
  div: arith((a, b) => `(${a} / ${b})`, intDivJs),
  pow: arith(
    (a, b) => `(${a} ** ${b})`,
    (a, b) => `$rt.intPow(${a}, ${b})`,
  ),
  max: arith(
    (a, b) => `Math.max(${a}, ${b})`,
    (a, b) => `Math.max(${a}, ${b})`,
  ),
  min: arith(
    (a, b) => `Math.min(${a}, ${b})`,
    (a, b) => `Math.min(${a}, ${b})`,
  ),
  neg: { expr: ([a], [t]) => (t!.k === "int" ? `((-${a}) | 0)` : `(-${a})`) },
  sin: call("Math.sin"),
  cos: call("Math.cos"),
  tan: call("Math.tan"),
  log: call("Math.log"),
  exp: call("Math.exp"),
  sqrt: call("Math.sqrt"),
  tanh: call("Math.tanh"),
  atan: call("Math.atan"),
  asin: call("Math.asin"),
  acos: call("Math.acos"),
  atan2: { expr: ([a, b]) => `Math.atan2(${a}, ${b})` },
  bitAnd: infix("&"),
  bitOr: infix("|"),
  bitXor: infix("^"),
  shiftLeft: infix("<<"),
  shiftRight: infix(">>"),
  shiftRightUnsigned: infix(">>>"),
  floor: call("Math.floor"),
  stopGradient: same,
  withDerivativeOf: same,
  abs: { expr: ([a], [t]) => (t!.k === "int" ? `(Math.abs(${a}) | 0)` : `Math.abs(${a})`) },
  toDouble: same,
  // The check inline (the call only to fail): an Index computed in Doubles in a loop costs little more than one.
  toIndex: { expr: ([a], _t, span) => `((${a} | 0) === ${a} ? ${a} | 0 : $rt.toIndex(${a}, ${span}))` },
  checkpointSlots: { expr: ([b, x, n, w], _t, span) => `$rt.checkpointSlots(${b}, ${x}, ${n}, ${w}, ${span})` },
  lt: infix("<"),
  gt: infix(">"),
  le: infix("<="),
  ge: infix(">="),
  eq: infix("==="),
  ne: infix("!=="),
  and: infix("&&"),
  or: infix("||"),
  not: { expr: ([a]) => `(!${a})` },
  get: { slots: (em, e, base) => em.get(e, base) },
  // The first leaf's dimension 0 (every leaf of an array of tuples has the same).
  length: { slots: (em, e) => [em.atom(e.args[0]!)[2]!] },
  // get's bounds check on its own (pull-array fusion's `(build n f)[j]` = `f (checkIndex j n)`), then j itself.
  checkIndex: {
    slots: (em, e) => {
      const [j, n] = e.args.map((a) => em.atom(a)[0]!) as [string, string];
      em.boundsCheck(j, n, e.span);
      return [j];
    },
  },
  // The check, then n's own slot, so loops over it keep n's bounds facts.
  sameSize: {
    slots: (em, e) => {
      const [n, m] = e.args.map((a) => em.atom(a)[0]!) as [string, string];
      const at = em.spanRef(e.span);
      if (n !== m) {
        em.failIf(`${n} !== ${m}`, [n, m], ([x, y]) => `$rt.sizesDiffer(${x}, ${y}, ${at})`);
        em.bounds.equalSizes(n, m);
      }
      return [n];
    },
  },
  zerosLike: { slots: (em, e, base) => emitZerosLike(em, e, base) },
  // Tapes (src/prims/tape.ts): a growable stack per tape, used linearly (./tape.ts).
  newTape: { slots: emitTapeOp },
  tapePush: { slots: emitTapeOp },
  tapePop: { slots: emitTapeOp },
  setAt: { slots: (em, e, base) => emitUpdateAt(em, e, base, em.inPlace.has(e)) },
  addAt: { slots: (em, e, base) => emitUpdateAt(em, e, base, em.inPlace.has(e)) },
  addArray: { slots: (em, e, base) => emitAddArray(em, e, base, em.inPlace.has(e)) },
  // An array of tuples is held as its components' arrays, one after the other: component k's slots are the field.
  field: {
    slots: (em, e) => {
      const arr = e.args[0]!;
      const comps = arr.type.k === "array" && arr.type.elem.k === "tuple" ? arr.type.elem.elems : [];
      const k = e.args[1]!.kind === "lit" ? (e.args[1]!.value as number) : -1;
      const start = comps.slice(0, k).reduce((n, t) => n + slotCount(arrayOf(t)), 0);
      return em.atom(arr).slice(start, start + slotCount(e.type));
    },
  },
  record: { slots: (em, e, base) => emitRecord(em, e, base, em.inPlace.has(e)) },
  // Equal dimensions, leaf by leaf (data and offsets are not shape).
  sameShape: {
    slots: (em, e, base) => {
      const [a, b] = e.args.map((x) => em.atom(x));
      const leaves = leavesOf(e.args[0]!.type);
      const tests = leafStarts(leaves).flatMap((s, l) =>
        Array.from({ length: leaves[l]!.rank }, (_, d) => `${a![s + 2 + d]} === ${b![s + 2 + d]}`),
      );
      em.out.line(`const ${base} = ${tests.length === 0 ? "true" : tests.join(" && ")};`);
      return [base];
    },
  },
};
