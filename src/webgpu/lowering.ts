// The webgpu back end's lowering table: how each primitive is written in WGSL, a mapped type over the primitive names
// (src/prims/names.ts) like the other back ends' tables, so a primitive without a lowering fails `tsc`.
//
// `expr` entries give a WGSL expression over the operands' slots; `slots` entries write statements (array reads,
// updates, checks) and return the result's slots. Everything computes in float32 (Index in i32, wrapping as
// JavaScript's `| 0` does); where a WGSL built-in differs from JavaScript on NaN, signed zeros, negative bases or large
// arguments, a helper of ./wgsl.ts computes JavaScript's answer.

import { arrayOf, type Type } from "../types/types.js";
import type { Prim } from "../ir/ir.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { PrimName } from "../prims/names.js";
import { leafStarts, leavesOf, slotCount } from "../lowering/leaves.js";
import type { Slots, WgslEmitter } from "./emit.js";
import type { HelperName } from "./wgsl.js";
import { emitAddArray, emitRecord, emitUpdateAt, emitZerosLike } from "./update.js";

export type WgslLowering =
  | {
      readonly expr: (em: WgslEmitter, args: readonly string[], argTypes: readonly Type[], e: Prim) => string;
    }
  | { readonly slots: (em: WgslEmitter, e: Prim, base: string) => Slots };

const isIndex = (t: Type | undefined) => t?.k === "int";

/** Arithmetic on two Doubles or two Indexes (i32 arithmetic wraps, as JavaScript's `| 0`). */
const infix = (op: string): WgslLowering => ({ expr: (_em, [a, b]) => `(${a} ${op} ${b})` });

/** A WGSL built-in of one Double. */
const builtin = (fn: string): WgslLowering => ({ expr: (_em, [a]) => `${fn}(${a})` });

/** A helper of ./wgsl.ts. */
const helper = (name: HelperName): WgslLowering => ({
  expr: (em, args) => {
    em.use(name);
    return `${name}(${args.join(", ")})`;
  },
});

const same: WgslLowering = { expr: (_em, [a]) => a! };

/** Shift amounts are taken modulo 32, as JavaScript takes them. */
const shift = (op: string): WgslLowering => ({ expr: (_em, [a, b]) => `(${a} ${op} u32(${b} & 31))` });

export const WGSL_LOWERING: { readonly [K in PrimName]: WgslLowering } = {
  add: infix("+"),
  sub: infix("-"),
  mul: infix("*"),
  div: {
    slots: (em, e, base) => {
      const [a, b] = e.args.map((x) => em.atom(x)[0]!) as [string, string];
      if (!isIndex(e.args[0]!.type)) {
        em.out.line(`let ${base} = (${a} / ${b});`);
        return [base];
      }
      em.failIf(`${b} == 0`, [], { error: { kind: "divisionByZero" }, span: e.span });
      em.use("int_div");
      em.out.line(`let ${base} = int_div(${a}, ${b});`);
      return [base];
    },
  },
  pow: {
    expr: (em, [a, b], [t]) => {
      const name: HelperName = isIndex(t) ? "int_pow" : "js_pow";
      em.use(name);
      return `${name}(${a}, ${b})`;
    },
  },
  max: {
    expr: (em, [a, b], [t]) => {
      if (isIndex(t)) return `max(${a}, ${b})`;
      em.use("js_max");
      return `js_max(${a}, ${b})`;
    },
  },
  min: {
    expr: (em, [a, b], [t]) => {
      if (isIndex(t)) return `min(${a}, ${b})`;
      em.use("js_min");
      return `js_min(${a}, ${b})`;
    },
  },
  neg: { expr: (_em, [a], [t]) => (isIndex(t) ? `(0 - ${a})` : `(-${a})`) },
  sin: builtin("sin"),
  cos: builtin("cos"),
  tan: builtin("tan"),
  log: builtin("log"),
  exp: builtin("exp"),
  sqrt: builtin("sqrt"),
  tanh: helper("js_tanh"),
  atan: builtin("atan"),
  asin: builtin("asin"),
  acos: builtin("acos"),
  atan2: { expr: (_em, [a, b]) => `atan2(${a}, ${b})` },
  bitAnd: infix("&"),
  bitOr: infix("|"),
  bitXor: infix("^"),
  shiftLeft: shift("<<"),
  shiftRight: shift(">>"),
  shiftRightUnsigned: { expr: (_em, [a, b]) => `f32(bitcast<u32>(${a}) >> u32(${b} & 31))` },
  floor: builtin("floor"),
  stopGradient: same,
  withDerivativeOf: same,
  // abs of the most negative Index wraps to itself, as JavaScript's `Math.abs(x) | 0`.
  abs: { expr: (_em, [a], [t]) => (isIndex(t) ? `select(${a}, 0 - ${a}, ${a} < 0)` : `abs(${a})`) },
  toDouble: { expr: (_em, [a]) => `f32(${a})` },
  // floor(budget / bytes), at least 1 (else the budget error), at most the steps and the snapshots one array holds;
  // in float32, as the interpreter computes it in float32.
  checkpointSlots: {
    slots: (em, e, base) => {
      const [b, x, n, w] = e.args.map((a) => em.atom(a)[0]!) as [string, string, string, string];
      em.failIf(
        `!(floor(${b} / ${x}) >= 1.0f)`,
        [
          { slot: b, kind: "double" },
          { slot: x, kind: "double" },
        ],
        { error: { kind: "budgetTooSmall" }, span: e.span },
      );
      em.out.line(
        `let ${base} = i32(min(min(floor(${b} / ${x}), floor(${MAX_ARRAY_ELEMENTS}.0f / ${w})), f32(${n})));`,
      );
      return [base];
    },
  },
  toIndex: {
    slots: (em, e, base) => {
      const x = em.atom(e.args[0]!)[0]!;
      // An integer in [-2^31, 2^31): 2147483648.0f is 2^31 exactly.
      em.failIf(
        `!(floor(${x}) == ${x} && ${x} >= -2147483648.0f && ${x} < 2147483648.0f)`,
        [{ slot: x, kind: "double" }],
        { error: { kind: "toIndex" }, span: e.span },
      );
      em.out.line(`let ${base} = i32(${x});`);
      return [base];
    },
  },
  lt: infix("<"),
  gt: infix(">"),
  le: infix("<="),
  ge: infix(">="),
  eq: infix("=="),
  ne: infix("!="),
  and: infix("&&"),
  or: infix("||"),
  not: { expr: (_em, [a]) => `(!${a})` },
  get: { slots: (em, e, base) => em.get(e, base) },
  length: { slots: (em, e) => [em.atom(e.args[0]!)[2]!] },
  checkIndex: {
    slots: (em, e) => {
      const [j, n] = e.args.map((a) => em.atom(a)[0]!) as [string, string];
      em.boundsCheck(j, n, e.span);
      return [j];
    },
  },
  sameSize: {
    slots: (em, e) => {
      const [n, m] = e.args.map((a) => em.atom(a)[0]!) as [string, string];
      if (n !== m) {
        em.failIf(
          `${n} != ${m}`,
          [
            { slot: n, kind: "int" },
            { slot: m, kind: "int" },
          ],
          { error: { kind: "sizesDiffer" }, span: e.span },
        );
        em.bounds.equalSizes(n, m);
      }
      return [n];
    },
  },
  zerosLike: { slots: (em, e, base) => emitZerosLike(em, e, base) },
  newTape: { slots: tapes },
  tapePush: { slots: tapes },
  tapePop: { slots: tapes },
  setAt: { slots: (em, e, base) => emitUpdateAt(em, e, base, em.inPlace.has(e)) },
  addAt: { slots: (em, e, base) => emitUpdateAt(em, e, base, em.inPlace.has(e)) },
  addArray: { slots: (em, e, base) => emitAddArray(em, e, base, em.inPlace.has(e)) },
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
  sameShape: {
    slots: (em, e, base) => {
      const [a, b] = e.args.map((x) => em.atom(x));
      const leaves = leavesOf(e.args[0]!.type);
      const tests = leafStarts(leaves).flatMap((s, l) =>
        Array.from({ length: leaves[l]!.rank }, (_, d) => `${a![s + 2 + d]} == ${b![s + 2 + d]}`),
      );
      em.out.line(`let ${base} = ${tests.length === 0 ? "true" : tests.join(" && ")};`);
      return [base];
    },
  },
};

/** Tapes exist only in the derivatives of recursive functions, which the webgpu back end refuses (backend.ts). */
function tapes(): never {
  throw new Error("webgpu: a tape operation outside a recursive program");
}
