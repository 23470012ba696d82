// The built-in functions of F̃ (paper 000 Fig. 3) as the type checker and the lowering see them: a type (fresh at
// every use) and what the lowering turns a saturated application into.

import type { PrimName } from "../prims/names.js";
import {
  freshTVar,
  M_BOOL,
  M_CARD,
  M_DOUBLE,
  M_INDEX,
  M_TAPE,
  mArray,
  mFun,
  mFuns,
  mTuple,
  type MType,
} from "./mtype.js";

export type BuiltinLowering =
  | { readonly kind: "prim"; readonly op: PrimName }
  /** The derivative API (paper 000 §3.1): `jvp f` is D[f]; diff, grad and mgrad seed it with one-hot tangents. */
  | { readonly kind: "jvp" }
  /** Reverse mode: `vjp f x ct` is (f x, the adjoint of x for the cotangent ct). */
  | { readonly kind: "vjp" }
  | { readonly kind: "diff" }
  | { readonly kind: "grad" }
  | { readonly kind: "mgrad" }
  | { readonly kind: "build" }
  | { readonly kind: "ifold" }
  | { readonly kind: "while" }
  /** A function with custom derivative rules (JAX's custom_jvp / custom_vjp): src/ad/custom.ts. */
  | { readonly kind: "custom"; readonly mode: "jvp" | "vjp" | "checkpoint" }
  | { readonly kind: "proj"; readonly index: number }
  | { readonly kind: "pair" };

/** What a builtin's type may need from the checker: D(t), the dual-number type of t (see ./dual.ts). */
export interface BuiltinTypeContext {
  dual(t: MType): MType;
}

export interface Builtin {
  readonly arity: number;
  /** A fresh instance of the builtin's type. */
  readonly type: (ctx: BuiltinTypeContext) => MType;
  readonly lowering: BuiltinLowering;
}

const doubleFn = (op: PrimName): Builtin => ({
  arity: 1,
  type: () => mFun(M_DOUBLE, M_DOUBLE),
  lowering: { kind: "prim", op },
});

/** JavaScript's bit operators: Index -> Index -> Index. */
const indexBinary = (op: PrimName): Builtin => ({
  arity: 2,
  type: () => mFuns([M_INDEX, M_INDEX], M_INDEX),
  lowering: { kind: "prim", op },
});

const numBinary = (op: PrimName): Builtin => ({
  arity: 2,
  type: () => {
    const a = freshTVar("num");
    return mFuns([a, a], a);
  },
  lowering: { kind: "prim", op },
});

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map<string, Builtin>([
  [
    "build",
    {
      arity: 2,
      type: () => {
        const a = freshTVar();
        return mFuns([M_CARD, mFun(M_INDEX, a)], mArray(a));
      },
      lowering: { kind: "build" },
    },
  ],
  [
    "ifold",
    {
      arity: 3,
      type: () => {
        const a = freshTVar();
        return mFuns([mFuns([a, M_INDEX], a), a, M_CARD], a);
      },
      lowering: { kind: "ifold" },
    },
  ],
  [
    // while (fun s -> cond) (fun s -> next) init: the state after the last step, once cond fails.
    "while",
    {
      arity: 3,
      type: () => {
        const a = freshTVar();
        return mFuns([mFun(a, M_BOOL), mFun(a, a), a], a);
      },
      lowering: { kind: "while" },
    },
  ],
  [
    // customJvp f jvp : a -> b, where jvp x dx = (f x, the tangent of f at x in the direction dx).
    "customJvp",
    {
      arity: 2,
      type: () => {
        const a = freshTVar();
        const b = freshTVar();
        return mFuns([mFun(a, b), mFuns([a, a], mTuple([b, b]))], mFun(a, b));
      },
      lowering: { kind: "custom", mode: "jvp" },
    },
  ],
  [
    // customVjp f fwd bwd : a -> b, where fwd x = (f x, residuals) and bwd residuals ct = the adjoint of x for ct.
    "customVjp",
    {
      arity: 3,
      type: () => {
        const a = freshTVar();
        const b = freshTVar();
        const r = freshTVar();
        return mFuns([mFun(a, b), mFun(a, mTuple([b, r])), mFuns([r, b], a)], mFun(a, b));
      },
      lowering: { kind: "custom", mode: "vjp" },
    },
  ],
  [
    // checkpoint f : a -> b, f itself, whose reverse-mode derivative recomputes f's intermediate values from its
    // argument instead of storing them (JAX's checkpoint / remat).
    "checkpoint",
    {
      arity: 1,
      type: () => {
        const a = freshTVar();
        const b = freshTVar();
        return mFuns([mFun(a, b)], mFun(a, b));
      },
      lowering: { kind: "custom", mode: "checkpoint" },
    },
  ],
  [
    "get",
    {
      arity: 2,
      type: () => {
        const a = freshTVar();
        return mFuns([mArray(a), M_INDEX], a);
      },
      lowering: { kind: "prim", op: "get" },
    },
  ],
  [
    "length",
    {
      arity: 1,
      type: () => mFun(mArray(freshTVar()), M_CARD),
      lowering: { kind: "prim", op: "length" },
    },
  ],
  [
    "fst",
    {
      arity: 1,
      type: () => {
        const a = freshTVar();
        return mFun(mTuple([a, freshTVar()]), a);
      },
      lowering: { kind: "proj", index: 0 },
    },
  ],
  [
    "snd",
    {
      arity: 1,
      type: () => {
        const b = freshTVar();
        return mFun(mTuple([freshTVar(), b]), b);
      },
      lowering: { kind: "proj", index: 1 },
    },
  ],
  [
    "pair",
    {
      arity: 2,
      type: () => {
        const a = freshTVar();
        const b = freshTVar();
        return mFuns([a, b], mTuple([a, b]));
      },
      lowering: { kind: "pair" },
    },
  ],
  ["sin", doubleFn("sin")],
  ["cos", doubleFn("cos")],
  ["tan", doubleFn("tan")],
  ["log", doubleFn("log")],
  ["exp", doubleFn("exp")],
  ["sqrt", doubleFn("sqrt")],
  ["tanh", doubleFn("tanh")],
  ["atan", doubleFn("atan")],
  ["asin", doubleFn("asin")],
  ["acos", doubleFn("acos")],
  ["atan2", { arity: 2, type: () => mFuns([M_DOUBLE, M_DOUBLE], M_DOUBLE), lowering: { kind: "prim", op: "atan2" } }],
  ["bitAnd", indexBinary("bitAnd")],
  ["bitOr", indexBinary("bitOr")],
  ["bitXor", indexBinary("bitXor")],
  ["shiftLeft", indexBinary("shiftLeft")],
  ["shiftRight", indexBinary("shiftRight")],
  [
    "shiftRightUnsigned",
    {
      arity: 2,
      type: () => mFuns([M_INDEX, M_INDEX], M_DOUBLE),
      lowering: { kind: "prim", op: "shiftRightUnsigned" },
    },
  ],
  ["floor", doubleFn("floor")],
  ["stopGradient", doubleFn("stopGradient")],
  [
    "withDerivativeOf",
    { arity: 2, type: () => mFuns([M_DOUBLE, M_DOUBLE], M_DOUBLE), lowering: { kind: "prim", op: "withDerivativeOf" } },
  ],
  [
    "abs",
    {
      arity: 1,
      type: () => {
        const a = freshTVar("num");
        return mFun(a, a);
      },
      lowering: { kind: "prim", op: "abs" },
    },
  ],
  ["max", numBinary("max")],
  ["min", numBinary("min")],
  ["not", { arity: 1, type: () => mFun(M_BOOL, M_BOOL), lowering: { kind: "prim", op: "not" } }],
  [
    "jvp",
    {
      arity: 1,
      type: (ctx) => {
        const f = mFun(freshTVar(), freshTVar());
        return mFun(f, ctx.dual(f));
      },
      lowering: { kind: "jvp" },
    },
  ],
  [
    "vjp",
    {
      arity: 1,
      type: () => {
        const a = freshTVar();
        const b = freshTVar();
        return mFun(mFun(a, b), mFuns([a, b], mTuple([b, a])));
      },
      lowering: { kind: "vjp" },
    },
  ],
  ...(["diff", "vdiff", "mdiff"] as const).map((name): [string, Builtin] => [name, derivative(0, { kind: "diff" })]),
  ...(["grad", "jacob"] as const).map((name): [string, Builtin] => [name, derivative(1, { kind: "grad" })]),
  ["mgrad", derivative(2, { kind: "mgrad" })],
  ["double", { arity: 1, type: () => mFun(M_INDEX, M_DOUBLE), lowering: { kind: "prim", op: "toDouble" } }],
  ["toIndex", { arity: 1, type: () => mFun(M_DOUBLE, M_INDEX), lowering: { kind: "prim", op: "toIndex" } }],
  // Functional array updates (src/prims/updates.ts); the compiled code updates in place when the array is not shared.
  ...(["setAt", "addAt"] as const).map((op): [string, Builtin] => [
    op,
    {
      arity: 3,
      type: () => {
        const a = freshTVar();
        return mFuns([mArray(a), M_INDEX, a], mArray(a));
      },
      lowering: { kind: "prim", op },
    },
  ]),
  [
    "zerosLike",
    {
      arity: 1,
      type: () => {
        const a = mArray(freshTVar());
        return mFun(a, a);
      },
      lowering: { kind: "prim", op: "zerosLike" },
    },
  ],
  [
    "addArray",
    {
      arity: 2,
      type: () => {
        const a = mArray(freshTVar());
        return mFuns([a, a], a);
      },
      lowering: { kind: "prim", op: "addArray" },
    },
  ],
  ["sameSize", { arity: 2, type: () => mFuns([M_CARD, M_CARD], M_CARD), lowering: { kind: "prim", op: "sameSize" } }],
  // Tapes (src/prims/tape.ts): written by reverse mode through recursion; builtins so that derivative programs read
  // back.
  ["newTape", { arity: 1, type: () => mFun(M_INDEX, M_TAPE), lowering: { kind: "prim", op: "newTape" } }],
  [
    "tapePush",
    { arity: 2, type: () => mFuns([M_TAPE, freshTVar()], M_TAPE), lowering: { kind: "prim", op: "tapePush" } },
  ],
  [
    "tapePop",
    { arity: 1, type: () => mFun(M_TAPE, mTuple([freshTVar(), M_TAPE])), lowering: { kind: "prim", op: "tapePop" } },
  ],
  // Written by the optimiser (fused indexing); a builtin so that printed optimised programs read back.
  [
    "checkIndex",
    { arity: 2, type: () => mFuns([M_INDEX, M_CARD], M_INDEX), lowering: { kind: "prim", op: "checkIndex" } },
  ],
]);

/**
 * diff : (Double -> b) -> Double -> D(b); grad : (Vector -> b) -> Vector -> Array<D(b)>;
 * mgrad : (Matrix -> b) -> Matrix -> Array<Array<D(b)>> (paper 000 Fig. 5 and Table 2, with the output type general:
 * vdiff and mdiff are diff at a Vector or Matrix output, jacob is grad at a Vector output).
 */
function derivative(rank: 0 | 1 | 2, lowering: BuiltinLowering): Builtin {
  return {
    arity: 2,
    type: (ctx) => {
      const input = rank === 0 ? M_DOUBLE : rank === 1 ? mArray(M_DOUBLE) : mArray(mArray(M_DOUBLE));
      const b = freshTVar();
      const d = ctx.dual(b);
      return mFuns([mFun(input, b), input], rank === 0 ? d : rank === 1 ? mArray(d) : mArray(mArray(d)));
    },
    lowering,
  };
}

/** Binary operators as primitives. `&&` and `||` are not here: they are lazy and lower to `if`. */
export const BINOP_PRIMS: Readonly<
  Record<"+" | "-" | "*" | "/" | "**" | "<" | ">" | "<=" | ">=" | "=" | "<>", PrimName>
> = {
  "+": "add",
  "-": "sub",
  "*": "mul",
  "/": "div",
  "**": "pow",
  "<": "lt",
  ">": "gt",
  "<=": "le",
  ">=": "ge",
  "=": "eq",
  "<>": "ne",
};
