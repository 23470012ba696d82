// The wasm back end's lowering table: how each primitive is written as WebAssembly. A mapped type over the primitive
// names (src/prims/names.ts), like the JavaScript back end's table (src/codegen/lowering.ts), so a primitive without a
// lowering fails `tsc`.
//
// Two kinds of entry. `expr`: an expression over the operands' slots (a local or a constant) computing the one scalar
// result; the emitter stores it in a new local. `slots`: statements written by the emitter (checks, array reads and
// updates), returning the result's slots.
//
// Every operation computes what JavaScript computes, bit for bit: Index arithmetic wraps to 32 bits (i32 does), an
// Index division truncates and -2^31 / -1 is -2^31 (`| 0` in JavaScript, a trap in wasm: avoided), f64.min/max
// follow Math.min/max on NaN and signed zeros, sqrt, floor and abs are exact in both; sin, cos, tan and pow are V8's
// own (`Math` imported), exp and log ./math.ts's and tanh ./math-tanh.ts's, bit for bit V8's.

import type { Atom, Prim } from "../ir/ir.js";
import type { PrimName } from "../prims/names.js";
import type { Type } from "../types/types.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { Code } from "./encoder.js";
import { call, f64, i32, op, type OpName } from "./instructions.js";
import { emitAddArray, emitField, emitRecord, emitSameShape, emitUpdateAt, emitZerosLike } from "./update.js";
import { savedSlot, type WasmEmitter, type WSlots } from "./emit.js";
import { slotCode, type WSlot } from "./slots.js";

export type WasmLowering =
  | { readonly expr: (em: WasmEmitter, args: readonly WSlot[], argTypes: readonly Type[]) => Code }
  | { readonly slots: (em: WasmEmitter, e: Prim) => WSlots };

type Real = "f64" | "f32";

/** An operation on two Indexes or two Doubles, by the name of the instruction in each type (`f` is f64 or f32's). */
function arith(int: OpName | ((a: Code, b: Code) => Code), real: (r: Real) => OpName): WasmLowering {
  return {
    expr: (em, [a, b], [t]) => {
      const [x, y] = [slotCode(a!), slotCode(b!)];
      if (t!.k === "int") return typeof int === "string" ? op(int, x, y) : int(x, y);
      return op(real(em.real), x, y);
    },
  };
}

const real = (name: "add" | "sub" | "mul" | "div" | "min" | "max") => (r: Real) => `${r}.${name}` as OpName;

/** A function of one Double: a wasm instruction of the real type. */
function unary(name: "sqrt" | "floor" | "abs" | "neg"): WasmLowering {
  return { expr: (em, [a]) => op(`${em.real}.${name}` as OpName, slotCode(a!)) };
}

/** A function of one Double by an f64 function that is V8's `Math` one (a float32 value is widened, then rounded). */
function math(name: "sin" | "cos" | "tan" | "tanh" | "atan" | "asin" | "acos"): WasmLowering {
  return { expr: (em, [a]) => viaF64(em, (x) => call(mathFunction(em, name), x), slotCode(a!)) };
}

/** The index of a `Math` function in the module (the inverse trigonometric ones are imported where used). */
function mathFunction(em: WasmEmitter, name: keyof WasmEmitter["helpers"]["math"]): number {
  const index = em.helpers.math[name];
  if (index === undefined) throw new Error(`wasm: Math.${name} is used but was not imported`);
  return index;
}

function viaF64(em: WasmEmitter, f: (x: Code) => Code, x: Code): Code {
  return em.real === "f64" ? f(x) : op("f32.demote_f64", f(op("f64.promote_f32", x)));
}

function compare(int: OpName, realName: "eq" | "ne" | "lt" | "gt" | "le" | "ge"): WasmLowering {
  return {
    expr: (em, [a, b], [t]) =>
      op(t!.k === "double" ? (`${em.real}.${realName}` as OpName) : int, slotCode(a!), slotCode(b!)),
  };
}

/** Index division: a literal non-zero divisor needs no check; -2^31 / -1 wraps to -2^31, as `| 0` does. */
const intDivision: WasmLowering = {
  slots: (em, e) => {
    const [a, b] = e.args.map((x) => em.atom(x)[0]!) as [WSlot, WSlot];
    if (!("value" in b)) {
      em.failIf(op("i32.eqz", slotCode(b)), [], () => em.helpers.raise.intDivByZero(e.span));
      const minusOne = op("i32.eq", slotCode(b), i32(-1));
      const quotient = op("i32.div_s", slotCode(a), op("select", i32(1), slotCode(b), minusOne));
      return [em.define("i32", op("select", op("i32.sub", i32(0), slotCode(a)), quotient, minusOne))];
    }
    if (b.value === 0) {
      em.failIf(i32(1), [], () => em.helpers.raise.intDivByZero(e.span));
      return [{ value: 0, type: "i32" }];
    }
    if (b.value === -1) return [em.define("i32", op("i32.sub", i32(0), slotCode(a)))];
    return [em.define("i32", op("i32.div_s", slotCode(a), slotCode(b)))];
  },
};

const noTapes: WasmLowering = {
  slots: () => {
    throw new Error("wasm: a tape reached the wasm back end (programs with recursive functions compile to JavaScript)");
  },
};

export const WASM_LOWERING: { readonly [K in PrimName]: WasmLowering } = {
  add: arith("i32.add", real("add")),
  sub: arith("i32.sub", real("sub")),
  mul: arith("i32.mul", real("mul")),
  div: {
    slots: (em, e) =>
      e.type.k === "int"
        ? intDivision.slots(em, e)
        : [em.define(em.real, op(`${em.real}.div`, ...e.args.map((x) => slotCode(em.atom(x)[0]!))))],
  },
  pow: {
    expr: (em, [a, b], [t]) =>
      t!.k === "int"
        ? call(em.helpers.intPow, slotCode(a!), slotCode(b!))
        : em.real === "f64"
          ? call(em.helpers.math.pow, slotCode(a!), slotCode(b!))
          : op(
              "f32.demote_f64",
              call(em.helpers.math.pow, op("f64.promote_f32", slotCode(a!)), op("f64.promote_f32", slotCode(b!))),
            ),
  },
  max: arith((a, b) => op("select", a, b, op("i32.gt_s", a, b)), real("max")),
  min: arith((a, b) => op("select", a, b, op("i32.lt_s", a, b)), real("min")),
  neg: {
    expr: (em, [a], [t]) => (t!.k === "int" ? op("i32.sub", i32(0), slotCode(a!)) : op(`${em.real}.neg`, slotCode(a!))),
  },
  sin: math("sin"),
  cos: math("cos"),
  tan: math("tan"),
  log: { expr: (em, [a]) => call(em.helpers.log, slotCode(a!)) },
  exp: { expr: (em, [a]) => call(em.helpers.exp, slotCode(a!)) },
  sqrt: unary("sqrt"),
  tanh: math("tanh"),
  atan: math("atan"),
  asin: math("asin"),
  acos: math("acos"),
  atan2: {
    expr: (em, [a, b]) =>
      em.real === "f64"
        ? call(mathFunction(em, "atan2"), slotCode(a!), slotCode(b!))
        : op(
            "f32.demote_f64",
            call(mathFunction(em, "atan2"), op("f64.promote_f32", slotCode(a!)), op("f64.promote_f32", slotCode(b!))),
          ),
  },
  bitAnd: { expr: (_em, [a, b]) => op("i32.and", slotCode(a!), slotCode(b!)) },
  bitOr: { expr: (_em, [a, b]) => op("i32.or", slotCode(a!), slotCode(b!)) },
  bitXor: { expr: (_em, [a, b]) => op("i32.xor", slotCode(a!), slotCode(b!)) },
  shiftLeft: { expr: (_em, [a, b]) => op("i32.shl", slotCode(a!), slotCode(b!)) },
  shiftRight: { expr: (_em, [a, b]) => op("i32.shr_s", slotCode(a!), slotCode(b!)) },
  // The unsigned result as a real (exact in f64; float32 rounds it as Math.fround would).
  shiftRightUnsigned: {
    expr: (em, [a, b]) => op(`${em.real}.convert_i32_u` as OpName, op("i32.shr_u", slotCode(a!), slotCode(b!))),
  },
  floor: unary("floor"),
  stopGradient: { expr: (_em, [a]) => slotCode(a!) },
  withDerivativeOf: { expr: (_em, [a]) => slotCode(a!) },
  abs: {
    expr: (em, [a], [t]) => {
      const x = slotCode(a!);
      return t!.k === "int"
        ? op("select", x, op("i32.sub", i32(0), x), op("i32.ge_s", x, i32(0)))
        : op(`${em.real}.abs`, x);
    },
  },
  toDouble: { expr: (em, [a]) => op(em.real === "f64" ? "f64.convert_i32_s" : "f32.convert_i32_s", slotCode(a!)) },
  // The Index equal to an integral Double in the 32-bit range; anything else (NaN, infinities, fractions) an error.
  toIndex: {
    slots: (em, e) => {
      const x = em.atom(e.args[0]!)[0]!;
      const wide = em.real === "f64" ? slotCode(x) : op("f64.promote_f32", slotCode(x));
      const w = em.define("f64", wide);
      const integral = op("f64.eq", op("f64.trunc", slotCode(w)), slotCode(w));
      const inRange = op(
        "i32.and",
        op("f64.ge", slotCode(w), f64(-2147483648)),
        op("f64.le", slotCode(w), f64(2147483647)),
      );
      em.failIf(op("i32.eqz", op("i32.and", integral, inRange)), [savedSlot(w)], ([v]) =>
        em.helpers.raise.toIndex(v!, e.span),
      );
      return [em.define("i32", op("i32.trunc_f64_s", slotCode(w)))];
    },
  },
  // floor(budget / bytes) in f64 (also in float32, as the interpreter computes it), at least 1, at most the steps
  // and the snapshots one array holds.
  checkpointSlots: {
    slots: (em, e) => {
      const wide = (a: Atom) => {
        const s = em.atom(a)[0]!;
        return em.define("f64", em.real === "f64" ? slotCode(s) : op("f64.promote_f32", slotCode(s)));
      };
      const [b, x, w] = [wide(e.args[0]!), wide(e.args[1]!), wide(e.args[3]!)];
      const steps = em.atom(e.args[2]!)[0]!;
      const q = em.define("f64", op("f64.floor", op("f64.div", slotCode(b), slotCode(x))));
      em.failIf(op("i32.eqz", op("f64.ge", slotCode(q), f64(1))), [savedSlot(b), savedSlot(x)], ([budget, bytes]) =>
        em.helpers.raise.budgetTooSmall(budget!, bytes!, e.span),
      );
      const held = op("f64.floor", op("f64.div", f64(MAX_ARRAY_ELEMENTS), slotCode(w)));
      const most = op("f64.min", op("f64.min", slotCode(q), held), op("f64.convert_i32_s", slotCode(steps)));
      return [em.define("i32", op("i32.trunc_f64_s", most))];
    },
  },
  lt: compare("i32.lt_s", "lt"),
  gt: compare("i32.gt_s", "gt"),
  le: compare("i32.le_s", "le"),
  ge: compare("i32.ge_s", "ge"),
  eq: compare("i32.eq", "eq"),
  ne: compare("i32.ne", "ne"),
  and: { expr: (_em, [a, b]) => op("i32.and", slotCode(a!), slotCode(b!)) },
  or: { expr: (_em, [a, b]) => op("i32.or", slotCode(a!), slotCode(b!)) },
  not: { expr: (_em, [a]) => op("i32.eqz", slotCode(a!)) },
  get: { slots: (em, e) => em.get(e) },
  // The first leaf's dimension 0 (every leaf of an array of tuples has the same).
  length: { slots: (em, e) => [em.atom(e.args[0]!)[2]!] },
  checkIndex: {
    slots: (em, e) => {
      const [j, n] = e.args.map((a) => em.atom(a)[0]!) as [WSlot, WSlot];
      em.boundsCheck(j, n, e.span);
      return [j];
    },
  },
  // The check, then n's own slot, so loops over it keep n's bounds facts.
  sameSize: {
    slots: (em, e) => {
      const [n, m] = e.args.map((a) => em.atom(a)[0]!) as [WSlot, WSlot];
      if (em.key(n) !== em.key(m)) {
        em.failIf(op("i32.ne", slotCode(n), slotCode(m)), [savedSlot(n), savedSlot(m)], ([x, y]) =>
          em.helpers.raise.sizesDiffer(x!, y!, e.span),
        );
        em.bounds.equalSizes(em.key(n), em.key(m));
      }
      return [n];
    },
  },
  zerosLike: { slots: (em, e) => emitZerosLike(em, e) },
  setAt: { slots: (em, e) => emitUpdateAt(em, e, em.inPlace.has(e)) },
  addAt: { slots: (em, e) => emitUpdateAt(em, e, em.inPlace.has(e)) },
  addArray: { slots: (em, e) => emitAddArray(em, e, em.inPlace.has(e)) },
  field: { slots: (em, e) => emitField(em, e) },
  record: { slots: (em, e) => emitRecord(em, e, em.inPlace.has(e)) },
  sameShape: { slots: (em, e) => emitSameShape(em, e) },
  // Tapes exist only in programs with recursive functions, which the registry compiles to JavaScript (./backend.ts).
  newTape: noTapes,
  tapePush: noTapes,
  tapePop: noTapes,
};
