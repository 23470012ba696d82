// The typed core IR, in A-normal form. Every transformation (inlining, simplification, AD) maps IR to IR;
// the interpreter and the JavaScript generator consume it.
//
// Invariants (checked by verify.ts):
//  - Operands of prim, tuple, proj, app, the condition of if, the size of build and init/count of ifold are atoms.
//  - Every variable is bound exactly once in a function (unique ids); a use refers to a binder in scope.
//  - Every node's type is concrete (no type variables) and consistent with the rules of src/prims and the constructs.
//  - A let's right-hand side is never itself a let (lets are flattened).

import type { Span } from "../syntax/source.js";
import { funOf, tupleOf, type Type } from "../types/types.js";
import type { PrimName } from "../prims/names.js";

/** A variable: binder and uses are the same shape; identity is the id. `name` is the user's name, for printing only. */
export interface Var {
  readonly kind: "var";
  readonly id: number;
  readonly name: string;
  readonly type: Type;
}

/** A literal Double, Index or Bool. */
export interface Lit {
  readonly kind: "lit";
  readonly value: number | boolean;
  readonly type: Type;
}

export type Atom = Var | Lit;

export interface Let {
  readonly kind: "let";
  readonly v: Var;
  readonly rhs: Expr;
  readonly body: Expr;
}
export interface Prim {
  readonly kind: "prim";
  readonly op: PrimName;
  readonly args: readonly Atom[];
  readonly type: Type;
  /** Where the user wrote it: used by runtime errors (an index out of range). */
  readonly span?: Span;
  /**
   * Set on the arithmetic forward mode writes for tangents (src/ad/derivatives.ts, `scaleTerm` and `sumTerms`): the
   * position of a tangent operand. A zero tangent is a symbolic zero: a product or quotient whose tangent operand is
   * 0 is 0, even when the partial derivative it multiplies is infinite or NaN (JAX's symbolic zeros; both back ends
   * honour it). Only such nodes get the derivative pipeline's zero-tangent rules, so a primal value never does.
   * `"both"` marks a product of two tangents — forward mode over a marked product, whose value is already 0 when its
   * tangent is, so its derivative must be too — which is 0 when either operand is.
   */
  readonly tangent?: 0 | 1 | "both";
}
/**
 * Whether the product or quotient `p` is a symbolic zero (Prim.tangent) given which of its operands are zero: its
 * tangent operand is (either, for `"both"`). The interpreter, both back ends and the optimiser's rules ask this.
 */
export function symbolicZero(p: Prim, zeroAt: (position: number) => boolean): boolean {
  return tangentPositions(p).some(zeroAt);
}

/** Whether `a` is the literal 0 (or -0). */
export const isZeroLiteral = (a: Atom) => a.kind === "lit" && a.value === 0;

/** The operand positions whose zero makes `p` a symbolic zero (none for a plain primitive). */
export function tangentPositions(p: Prim): number[] {
  if (p.tangent === undefined || (p.op !== "mul" && p.op !== "div")) return [];
  return p.tangent === "both" ? [0, 1] : [p.tangent];
}

/**
 * The tangent mark of `p` as it matters to its value and to the rules: none (a primal operation), or tangent arithmetic
 * with its symbolic-zero positions (`swapped`: of `p` with its two operands swapped). Equal keys, equal meaning.
 */
export function tangentMarkKey(p: Prim, swapped = false): string {
  if (p.tangent === undefined) return "";
  const positions = tangentPositions(p).map((k) => (swapped ? 1 - k : k));
  return `t${positions.sort().join("")}`;
}

export interface Tuple {
  readonly kind: "tuple";
  readonly elems: readonly Atom[];
  readonly type: Type;
}
export interface Proj {
  readonly kind: "proj";
  readonly index: number;
  readonly arg: Atom;
  readonly type: Type;
}
export interface Lam {
  readonly kind: "lam";
  readonly param: Var;
  readonly body: Expr;
  readonly type: Type;
}
export interface App {
  readonly kind: "app";
  readonly fn: Atom;
  readonly arg: Atom;
  readonly type: Type;
  /** Where the user wrote the call: an error inside an inlined prelude function is reported there (Span.caller). */
  readonly span?: Span;
}
export interface If {
  readonly kind: "if";
  readonly cond: Atom;
  readonly then: Expr;
  readonly else: Expr;
  readonly type: Type;
}
/** build size (fun index -> body) */
export interface Build {
  readonly kind: "build";
  readonly size: Atom;
  readonly index: Var;
  readonly body: Expr;
  readonly type: Type;
  readonly span?: Span;
}
/** ifold (fun acc index -> body) init count */
export interface Ifold {
  readonly kind: "ifold";
  readonly init: Atom;
  readonly count: Atom;
  readonly acc: Var;
  readonly index: Var;
  readonly body: Expr;
  readonly type: Type;
  readonly span?: Span;
}

/**
 * while (fun acc -> cond) (fun acc -> body) init: runs body while cond holds, from init (an unknown trip count). One
 * binder for the state, in scope in both the condition and the body. The state is first-order, like ifold's.
 */
export interface While {
  readonly kind: "while";
  readonly init: Atom;
  readonly acc: Var;
  readonly cond: Expr;
  readonly body: Expr;
  readonly type: Type;
  readonly span?: Span;
}

/**
 * A function with its own derivative rules (JAX's custom_jvp / custom_vjp): its value is the function `fn`, and
 * derivatives use the rules instead of differentiating fn (src/ad/custom.ts). For fn : a -> b,
 *  - `customJvp`: rules = [jvp], jvp : a -> a -> b * b (primal and tangent in; value and tangent out);
 *  - `customVjp`: rules = [fwd, bwd], fwd : a -> b * r (value and residuals), bwd : r -> b -> a (cotangent of the
 *    value to the adjoint of the argument);
 *  - `checkpoint`: no rules: forward mode differentiates fn, reverse mode runs fn in the primal and recomputes it in
 *    the reverse sweep, where `vjp fn` is taken (JAX's checkpoint).
 * It stays a function value until no derivative can meet it any more, then the inliner replaces it by fn.
 */
export interface Custom {
  readonly kind: "custom";
  readonly mode: "jvp" | "vjp" | "checkpoint";
  readonly fn: Atom;
  readonly rules: readonly Atom[];
  readonly type: Type;
  readonly span?: Span;
}

/**
 * `jvp f`: D[f], the forward-mode derivative of the function value f (paper 000 Fig. 6); its type is
 * dualType(f.type) (src/ad/dual-types.ts). With `reverse`, `vjp f`: the reverse-mode derivative, of type
 * a -> b -> (b, a) for f : a -> b (`vjp f x ct` is the value and the adjoint of x for the cotangent ct; see
 * vjpType). The forward-ad pass expands both once f is a known lambda, so neither back end's fast path sees one.
 */
export interface Jvp {
  readonly kind: "jvp";
  readonly fn: Atom;
  readonly type: Type;
  readonly reverse?: true;
}

/** The type of `vjp f` for f : a -> b: a -> b -> (b, a). */
export function vjpType(f: Type): Type {
  if (f.k !== "fun") throw new Error("vjpType: not a function type");
  return funOf(f.param, funOf(f.result, tupleOf([f.result, f.param])));
}

/**
 * `f a1 ... an`: a call, with all its arguments, of the first-order function named `fn` of the program
 * (`IrFunction.functions`). Recursive functions are the only functions that survive lowering as such
 * (src/ir/lower-rec.ts); passes treat a call as an opaque primitive that may fail or not terminate (never hoisted or
 * speculated).
 */
export interface Call {
  readonly kind: "call";
  readonly fn: string;
  readonly args: readonly Atom[];
  readonly type: Type;
  readonly span?: Span;
}

/**
 * The types the rules of a custom node must have, for fn : a -> b (see Custom). For customVjp the residual type r is
 * read off the given fwd rule's type; undefined when that is not a function returning a pair.
 */
export function customRuleTypes(
  mode: "jvp" | "vjp" | "checkpoint",
  f: Type,
  fwd: Type | undefined,
): Type[] | undefined {
  if (f.k !== "fun") return undefined;
  const [a, b] = [f.param, f.result];
  if (mode === "checkpoint") return [];
  if (mode === "jvp") return [funOf(a, funOf(a, tupleOf([b, b])))];
  if (fwd?.k !== "fun" || fwd.result.k !== "tuple" || fwd.result.elems.length !== 2) return undefined;
  const r = fwd.result.elems[1]!;
  return [funOf(a, tupleOf([b, r])), funOf(r, funOf(b, a))];
}

export type Expr = Atom | Let | Prim | Tuple | Proj | Lam | App | If | Build | Ifold | While | Custom | Jvp | Call;

/** A compiled entry point: a first-order function of its parameters. */
export interface IrFunction {
  readonly name: string;
  readonly params: readonly Var[];
  readonly body: Expr;
  /**
   * On an entry point: the first-order functions its body (and theirs) call, by name: `let rec` groups lambda-lifted
   * and specialised per type, and the derivatives made of them (src/ad/functions.ts). Every pass that runs on the
   * entry's body runs on each function's body too (src/opt/pass.ts). Names are unique in a program.
   */
  readonly functions?: readonly IrFunction[];
  /**
   * Parameters the function may update in place and returns (reverse mode's adjoint accumulators): a caller passes a
   * value nothing else uses (the compiled code copies it otherwise), and the result components that return them are
   * fresh (`ownedResults`).
   */
  readonly owned?: readonly boolean[];
  /** For a tuple result: which components return an owned parameter's (updated) value, fresh for the caller. */
  readonly ownedResults?: readonly boolean[];
  /** Where the user defined the function (for errors about it, such as too deep a recursion). */
  readonly span?: Span;
}

export function typeOf(e: Expr): Type {
  // A loop, not recursion: let chains can be far longer than the JS stack is deep.
  while (e.kind === "let") e = e.body;
  return e.type;
}

export function isAtom(e: Expr): e is Atom {
  return e.kind === "var" || e.kind === "lit";
}

/** Fresh variable ids. One global counter: ids are unique across everything built in a process. */
let nextId = 1;
export function freshVar(name: string, type: Type): Var {
  return { kind: "var", id: nextId++, name, type };
}
export function renameVar(v: Var): Var {
  return freshVar(v.name, v.type);
}

export const lit = (value: number | boolean, type: Type): Lit => ({ kind: "lit", value, type });
export const mkLet = (v: Var, rhs: Expr, body: Expr): Let => ({ kind: "let", v, rhs, body });
export const mkTuple = (elems: readonly Atom[]): Tuple => ({
  kind: "tuple",
  elems,
  type: tupleOf(elems.map((a) => a.type)),
});
export const mkLam = (param: Var, body: Expr): Lam => ({
  kind: "lam",
  param,
  body,
  type: funOf(param.type, typeOf(body)),
});
