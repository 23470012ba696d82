// The scalar derivative rules of every primitive, written once for forward and reverse mode (the habit of Futhark's
// AD/Derivatives). A differentiable primitive gives, for each operand, its partial derivative ∂f/∂aᵢ as IR built from
// the primal operands and the primal result. Forward mode forms the tangent Σ ∂f/∂aᵢ · ȧᵢ; reverse mode (the
// transpose) adds ∂f/∂aᵢ · ȳ to each āᵢ. Both multiply a partial into a tangent or cotangent with `scaleTerm` and add
// the terms with `sumTerms`, so neither emits `* 1` or `+ 0`.
//
// This module is imported by the primitive table, so it imports the builder as a type only (no import cycle).

import type { AnfBuilder } from "../ir/builder.js";
import { lit, type Atom, type Prim } from "../ir/ir.js";
import { DOUBLE } from "../types/types.js";

/**
 * A partial derivative, as the factor a (co)tangent t is scaled by: ±t, ±t·factor or ±t/factor. Keeping the sign and
 * the division apart lets `sub` be `ȧ - ḃ` and `log` be `ȧ / a` rather than products with -1 or 1/a.
 */
export interface Scale {
  readonly factor?: Atom;
  readonly divide?: boolean;
  readonly negate?: boolean;
}

/** Builds ∂f/∂aᵢ from the primal operands and the primal result, emitting what it needs into `b`. */
export type PartialBuilder = (args: readonly Atom[], result: Atom, b: AnfBuilder) => Scale;

export interface Partial {
  readonly scale: PartialBuilder;
  /**
   * The partial can be NaN or infinite where its operand is constant (∂(a ** b)/∂b = log a · a ** b for a < 0): it is
   * formed only when the (co)tangent it multiplies is not zero, so a constant exponent never turns a result into NaN.
   */
  readonly guarded?: boolean;
  /** The result does not vary with this operand (withDerivativeOf's value operand): no term, no adjoint. */
  readonly constant?: boolean;
}

export type DerivativeRule =
  /** One partial per operand. For an Index result (Index arithmetic) there is no tangent and the rule is unused. */
  | { readonly kind: "partials"; readonly partials: readonly Partial[] }
  /** max and min: the tangent of the operand the primal selected; `firstChosen` is true when that is the first. */
  | { readonly kind: "select"; readonly firstChosen: (args: readonly Atom[], b: AnfBuilder) => Atom }
  /**
   * Piecewise constant (floor), from Index (toDouble) or cut on purpose (stopGradient): a Double result with tangent 0.
   * Reverse mode treats such a result as inactive, so nothing upstream of it is reversed for its sake.
   */
  | { readonly kind: "zero-tangent" }
  /** The result is a Bool or an Index: nothing to differentiate (comparisons, logic). */
  | { readonly kind: "no-tangent" }
  /** Array access (get, length): applied as is to the dual array, whose elements carry their own tangents. */
  | { readonly kind: "structural" };

const num = (x: number) => lit(x, DOUBLE);
const isLit = (a: Atom, x: number) => a.kind === "lit" && a.value === x;

/**
 * A primitive on a (co)tangent, bound in `b`. Forward mode (`mark`) records the tangent operand's position on the node
 * (`Prim.tangent`, ../ir/ir.ts): there a zero tangent is a symbolic zero, which both back ends and the derivative
 * pipeline's rules honour. Reverse mode leaves its adjoint arithmetic plain IEEE arithmetic: an adjoint that is 0
 * because it underflowed (1 / ∞) must not hide an infinite partial (the NaN says the formula broke down).
 */
function tangentPrim(
  b: AnfBuilder,
  op: "mul" | "div" | "add" | "sub" | "neg",
  args: Atom[],
  at: 0 | 1,
  name: string,
  mark: Mark,
): Atom {
  if (mark === false) return b.prim(op, args, name);
  // (Co)tangents are Doubles; the node is written out here because the builder's mkPrim needs the primitive table,
  // which imports this module.
  const node: Prim = { kind: "prim", op, args, type: DOUBLE, tangent: mark === "both" && op === "mul" ? "both" : at };
  return b.bind(name, node);
}

/**
 * How (co)tangent arithmetic is marked (Prim.tangent): not at all, on its (co)tangent operand, or — for a product whose
 * factor is itself a (co)tangent — on both operands.
 */
export type Mark = boolean | "both";

/** `t` scaled by `s`: the term and whether it is to be subtracted rather than added. */
export function scaleTerm(
  s: Scale,
  t: Atom,
  b: AnfBuilder,
  name = "dt",
  mark: Mark = false,
): { term: Atom; negate: boolean } {
  const negate = s.negate ?? false;
  if (s.factor === undefined) return { term: t, negate };
  if (isLit(s.factor, 1)) return { term: t, negate };
  if (isLit(s.factor, -1) && !s.divide) return { term: t, negate: !negate };
  if (isLit(t, 1) && !s.divide) return { term: s.factor, negate };
  const term = s.divide
    ? tangentPrim(b, "div", [t, s.factor], 0, name, mark)
    : tangentPrim(b, "mul", [s.factor, t], 1, name, mark);
  return { term, negate };
}

/** Σ ±termᵢ (a literal 0 when there are no terms); `mark` as for `scaleTerm`. */
export function sumTerms(
  terms: readonly { term: Atom; negate: boolean }[],
  b: AnfBuilder,
  name = "dt",
  mark: Mark = false,
): Atom {
  let acc: Atom | undefined;
  for (const { term, negate } of terms) {
    if (acc === undefined) acc = negate ? tangentPrim(b, "neg", [term], 0, name, mark) : term;
    else acc = tangentPrim(b, negate ? "sub" : "add", [acc, term], 0, name, mark);
  }
  return acc ?? num(0);
}

const partials = (...ps: (Partial | PartialBuilder)[]): DerivativeRule => ({
  kind: "partials",
  partials: ps.map((p) => (typeof p === "function" ? { scale: p } : p)),
});

const ONE: PartialBuilder = () => ({});
const MINUS_ONE: PartialBuilder = () => ({ negate: true });

/** b - 1, folded when b is a literal. */
function minusOne(x: Atom, b: AnfBuilder): Atom {
  return x.kind === "lit" ? num((x.value as number) - 1) : b.prim("sub", [x, num(1)]);
}

// The rules. `args` are the primal operands, `y` the primal result.

export const ADD = partials(ONE, ONE);
export const SUB = partials(ONE, MINUS_ONE);
export const MUL = partials(
  ([, bb]) => ({ factor: bb! }),
  ([a]) => ({ factor: a! }),
);
/** d(a / b) = ȧ / b - (y / b) ḃ, with y = a / b. */
export const DIV = partials(
  ([, bb]) => ({ factor: bb!, divide: true }),
  ([, bb], y, b) => ({ factor: b.prim("div", [y, bb!], "q"), negate: true }),
);
export const NEG = partials(MINUS_ONE);
/**
 * d(a ** b) = b a ** (b - 1) ȧ + log a · y ḃ; the second term only where ḃ is not zero. As in JAX, the first partial
 * is 0 where b = 0 (a ** 0 is constant; the formula would give 0 · 0 ** -1 = NaN at a = 0).
 */
export const POW = partials(
  ([a, e], _y, b) => {
    if (isLit(e!, 0)) return { factor: num(0) };
    const e1 = minusOne(e!, b);
    const k = b.prim("mul", [e!, isLit(e1, 1) ? a! : b.prim("pow", [a!, e1])], "k");
    if (e!.kind === "lit") return { factor: k };
    const zeroExponent = b.prim("eq", [e!, num(0)], "e0");
    return {
      factor: b.if(
        zeroExponent,
        () => num(0),
        () => k,
        "k",
      ),
    };
  },
  { scale: ([a], y, b) => ({ factor: b.prim("mul", [b.prim("log", [a!]), y], "k") }), guarded: true },
);
export const SIN = partials(([a], _y, b) => ({ factor: b.prim("cos", [a!]) }));
export const COS = partials(([a], _y, b) => ({ factor: b.prim("sin", [a!]), negate: true }));
/** tan' = 1 + tan². */
export const TAN = partials((_a, y, b) => ({ factor: b.prim("add", [num(1), b.prim("mul", [y, y])], "k") }));
export const LOG = partials(([a]) => ({ factor: a!, divide: true }));
export const EXP = partials((_a, y) => ({ factor: y }));
/** sqrt' = 0.5 / sqrt. */
export const SQRT = partials((_a, y, b) => ({ factor: b.prim("div", [num(0.5), y], "k") }));
/** tanh' = 1 - tanh². */
export const TANH = partials((_a, y, b) => ({ factor: b.prim("sub", [num(1), b.prim("mul", [y, y])], "k") }));
/** atan' = 1 / (1 + x²). */
export const ATAN = partials(([a], _y, b) => ({
  factor: b.prim("add", [num(1), b.prim("mul", [a!, a!])], "k"),
  divide: true,
}));
/** asin' = 1 / sqrt(1 - x²); acos' = -1 / sqrt(1 - x²). */
const inverseSine: PartialBuilder = ([a], _y, b) => ({
  factor: b.prim("sqrt", [b.prim("sub", [num(1), b.prim("mul", [a!, a!])])], "k"),
  divide: true,
});
export const ASIN = partials(inverseSine);
export const ACOS = partials((args, y, b) => ({ ...inverseSine(args, y, b), negate: true }));
/** atan2(y, x): ∂y = x / (x² + y²), ∂x = -y / (x² + y²). */
const squaredNorm = ([y, x]: readonly Atom[], b: AnfBuilder): Atom =>
  b.prim("add", [b.prim("mul", [x!, x!]), b.prim("mul", [y!, y!])], "r2");
export const ATAN2 = partials(
  (args, _r, b) => ({ factor: b.prim("div", [args[1]!, squaredNorm(args, b)], "k") }),
  (args, _r, b) => ({ factor: b.prim("div", [args[0]!, squaredNorm(args, b)], "k"), negate: true }),
);
/** abs' = sign, taking 1 at 0 (a subgradient). */
export const ABS = partials(([a], _y, b) => ({
  factor: b.if(
    b.prim("lt", [a!, num(0)]),
    () => num(-1),
    () => num(1),
    "sign",
  ),
}));
/** max picks the first operand on ties (a >= b), min too (a <= b). */
export const MAX: DerivativeRule = { kind: "select", firstChosen: ([a, bb], b) => b.prim("ge", [a!, bb!], "first") };
export const MIN: DerivativeRule = { kind: "select", firstChosen: ([a, bb], b) => b.prim("le", [a!, bb!], "first") };
/** withDerivativeOf a b: a's value, b's derivative (the derivative of b, a constant as far as a is concerned). */
export const WITH_DERIVATIVE_OF = partials({ scale: () => ({}), constant: true }, ONE);
export const ZERO_TANGENT: DerivativeRule = { kind: "zero-tangent" };
export const NO_TANGENT: DerivativeRule = { kind: "no-tangent" };
export const STRUCTURAL: DerivativeRule = { kind: "structural" };
