// Splitting a Jacobian-vector product program into its primal part and its linear part (JAX's linearize, by partial
// evaluation): for jvp : (x, dx) -> (f x, J dx),
//   primal  : x -> (f x, residuals)          run once, at the point;
//   tangent : (dx, x, residuals) -> J dx     run for each tangent, without the primal's work.
// The residuals are the primal values the tangent computation reads (binding-times.ts tells which values are primal):
// those of the top level, and the scalars computed in the body of a top-level loop, one per iteration (an ifold
// records them in arrays it carries; a build's are computed by a build of their own). The tangent part is the jvp
// program with those values read back instead of computed; what else of the primal it contains is dead there or only
// feeds loop state components the tangent never reads, and the optimiser removes it (dead lets, loop fission). A
// primal value read deeper (in a nested loop, a branch) is not stored: the tangent part computes it again, which is
// correct but costs what that part of the primal costs.

import { AnfBuilder, litBool, litDouble, litIndex, mkIfold, splitLets, wrapLets, type Binding } from "../ir/builder.js";
import { freeVars } from "../ir/free.js";
import {
  freshVar,
  mkLet,
  mkTuple,
  typeOf,
  type Atom,
  type Build,
  type Expr,
  type Ifold,
  type IrFunction,
  type Var,
} from "../ir/ir.js";
import { copyFresh } from "../ir/rename.js";
import { arrayOf, tupleOf, type Type } from "../types/types.js";
import { withFunctionsOf } from "../api/derivative-programs.js";
import { bindingTimes, isDynamic, type Mask } from "./binding-times.js";

export interface LinearSplit {
  /** (primal parameters) -> (value, residual 1, ..., residual r). */
  readonly primal: IrFunction;
  /** (tangent parameters, primal parameters, residual 1, ..., residual r) -> the tangent of the value. */
  readonly tangent: IrFunction;
}

/** A loop of the top level whose body's primal scalars the tangent part reads. */
interface LoopResiduals {
  readonly loop: Build | Ifold;
  /** The body's bindings that are stored, in order. */
  readonly stored: readonly Var[];
}

const isScalar = (t: Type): boolean => t.k === "double" || t.k === "int" || t.k === "bool";

/** A right-hand side the tangent part recomputes rather than reads back (as cheap as reading it). */
function cheap(rhs: Expr, inLoop: boolean): boolean {
  if (rhs.kind === "var" || rhs.kind === "lit") return true;
  if (rhs.kind === "tuple") return rhs.elems.every((a) => a.kind === "lit");
  return rhs.kind === "prim" && (rhs.op === "length" || (inLoop && rhs.op === "get"));
}

/**
 * `jvp`'s parameters are the primal ones, then `tangentOf.length` tangents (tangent k for primal parameter
 * tangentOf[k], of its type); it returns (value, tangent).
 */
export function linearSplit(jvp: IrFunction, tangentOf: readonly number[]): LinearSplit {
  const m = jvp.params.length - tangentOf.length;
  const masks = bindingTimes(jvp, new Set(tangentOf.map((_, k) => m + k)));
  const mask = (v: Var): Mask => masks.get(v.id) ?? false;
  const { bindings, tail: last } = splitLets(jvp.body);
  // The result as a variable of the spine (the body may end in a loop).
  let tail: Atom;
  if (last.kind === "var" || last.kind === "lit") tail = last;
  else {
    tail = freshVar("out", typeOf(last));
    masks.set(tail.id, [false, true]);
    bindings.push({ v: tail, rhs: last });
  }
  const top = storedAtTop(bindings, mask, tail);
  const loops = bindings.flatMap((b) => {
    const stored = b.rhs.kind === "build" || b.rhs.kind === "ifold" ? storedInLoop(b.rhs, mask(b.v), mask) : [];
    return stored.length > 0 ? [[b.v.id, { loop: b.rhs as Build | Ifold, stored }] as const] : [];
  });
  const inLoops = new Map<number, LoopResiduals>(loops);
  return {
    primal: primalPart(jvp, m, tangentOf, bindings, tail, top, inLoops),
    tangent: tangentPart(jvp, m, bindings, tail, top, inLoops),
  };
}

/** Primal values of the top level that a tangent computation reads. */
function storedAtTop(bindings: readonly Binding[], mask: (v: Var) => Mask, tail: Atom): Set<number> {
  const read = new Set<number>();
  for (const b of bindings) if (isDynamic(mask(b.v))) for (const id of freeVars(b.rhs).keys()) read.add(id);
  if (tail.kind === "var") read.add(tail.id);
  return new Set(
    bindings.filter((b) => read.has(b.v.id) && !isDynamic(mask(b.v)) && !cheap(b.rhs, false)).map((b) => b.v.id),
  );
}

/** The primal scalars of a loop's body (its own lets) that its tangent computations read. */
function storedInLoop(loop: Build | Ifold, loopMask: Mask, mask: (v: Var) => Mask): Var[] {
  if (!isDynamic(loopMask)) return [];
  const { bindings, tail } = splitLets(loop.body);
  const read = new Set<number>();
  for (const b of bindings) if (isDynamic(mask(b.v))) for (const id of freeVars(b.rhs).keys()) read.add(id);
  // The result's dynamic components (a dual's tangent, a state's tangent part).
  const parts = tail.kind === "tuple" ? tail.elems : [tail];
  parts.forEach((a, k) => {
    const m = typeof loopMask === "boolean" || tail.kind !== "tuple" ? loopMask : loopMask[k]!;
    if (a.kind === "var" && isDynamic(m)) read.add(a.id);
  });
  if (tail.kind !== "tuple" && tail.kind !== "var") for (const id of freeVars(tail).keys()) read.add(id);
  return bindings
    .filter((b) => read.has(b.v.id) && !isDynamic(mask(b.v)) && isScalar(b.v.type) && !cheap(b.rhs, true))
    .map((b) => b.v);
}

/** The zero of a scalar type (what a residual array holds before its iteration writes it). */
const zero = (t: Type): Atom => (t.k === "int" ? litIndex(0) : t.k === "bool" ? litBool(false) : litDouble(0));

/** The type of a build's residuals per element: the scalar, or a tuple of several. */
const elementType = (stored: readonly Var[]): Type =>
  stored.length === 1 ? stored[0]!.type : tupleOf(stored.map((v) => v.type));

function primalPart(
  jvp: IrFunction,
  m: number,
  tangentOf: readonly number[],
  bindings: readonly Binding[],
  tail: Atom,
  top: ReadonlySet<number>,
  inLoops: ReadonlyMap<number, LoopResiduals>,
): IrFunction {
  const b = new AnfBuilder();
  // The tangents are not known yet: the primal values do not depend on them, so any value of their types will do
  // (the primal's own; what it computes is dead and removed).
  tangentOf.forEach((k, i) => b.bindVar(jvp.params[m + i]!, jvp.params[k]!));
  const residuals: Atom[] = [];
  for (const { v, rhs } of bindings) {
    const stored = inLoops.get(v.id);
    if (stored?.loop.kind === "ifold") residuals.push(...recordingIfold(b, v, stored.loop, stored.stored));
    else {
      b.bindVar(v, rhs);
      if (stored) residuals.push(residualBuild(b, stored.loop, stored.stored));
    }
    if (top.has(v.id)) residuals.push(v);
  }
  const value = b.proj(0, tail, "value");
  return {
    ...withFunctionsOf(jvp),
    name: `${jvp.name}_primal`,
    params: jvp.params.slice(0, m),
    body: b.finish(mkTuple([value, ...residuals])),
  };
}

/**
 * The ifold `v = ifold (fun acc i -> body) init n`, carrying arrays of n entries in which iteration i writes the
 * values of `stored`; binds v and returns the arrays.
 */
function recordingIfold(b: AnfBuilder, v: Var, loop: Ifold, stored: readonly Var[]): Atom[] {
  const tapes = stored.map((s) => b.build(loop.count, () => zero(s.type), `${s.name}s`, "i", loop.span));
  const stateType = tupleOf([loop.type, ...stored.map((s) => arrayOf(s.type))]);
  const state = freshVar("s", stateType);
  const { bindings, tail } = splitLets(loop.body);
  const inner = new AnfBuilder();
  inner.bindVar(loop.acc, { kind: "proj", index: 0, arg: state, type: loop.type });
  for (const x of bindings) inner.bindVar(x.v, x.rhs);
  const next = inner.bind("next", tail);
  const written = stored.map((s, k) =>
    inner.prim("setAt", [inner.proj(k + 1, state, `${s.name}s`), loop.index, s], `${s.name}s`),
  );
  const body = inner.finish(mkTuple([next, ...written]));
  const init = b.tuple([loop.init, ...tapes], "s0");
  const out = b.bind("recorded", mkIfold(init, loop.count, state, loop.index, body, loop.span));
  b.bindVar(v, { kind: "proj", index: 0, arg: out, type: loop.type });
  return stored.map((s, k) => b.proj(k + 1, out, `${s.name}s`));
}

/** A build of the values of `stored` in each element of `loop` (its body's lets up to them, copied). */
function residualBuild(b: AnfBuilder, loop: Build, stored: readonly Var[]): Atom {
  const { bindings } = splitLets(loop.body);
  const lastStored = Math.max(...stored.map((s) => bindings.findIndex((x) => x.v.id === s.id)));
  const result = stored.length === 1 ? stored[0]! : freshVar("r", elementType(stored));
  const prefix = bindings.slice(0, lastStored + 1);
  const body = wrapLets(prefix, result === stored[0] ? result : mkLet(result, mkTuple(stored), result));
  const index = freshVar(loop.index.name, loop.index.type);
  return b.bind("residuals", {
    kind: "build",
    size: loop.size,
    index,
    body: copyFresh(body, new Map([[loop.index.id, index]])),
    type: arrayOf(elementType(stored)),
    ...(loop.span ? { span: loop.span } : {}),
  });
}

function tangentPart(
  jvp: IrFunction,
  m: number,
  bindings: readonly Binding[],
  tail: Atom,
  top: ReadonlySet<number>,
  inLoops: ReadonlyMap<number, LoopResiduals>,
): IrFunction {
  const tangents = jvp.params.slice(m).map((p) => freshVar(p.name, p.type));
  const primals = jvp.params.slice(0, m).map((p) => freshVar(p.name, p.type));
  const residuals: Var[] = [];
  const b = new AnfBuilder();
  jvp.params.forEach((p, k) => b.bindVar(p, k < m ? primals[k]! : tangents[k - m]!));
  for (const { v, rhs } of bindings) {
    const stored = inLoops.get(v.id);
    if (stored) {
      // An ifold's residuals are one array per value, a build's one array (of tuples for several).
      const arrays =
        stored.loop.kind === "ifold"
          ? stored.stored.map((x) => freshVar(`${x.name}s`, arrayOf(x.type)))
          : [freshVar(`${stored.stored[0]!.name}s`, arrayOf(elementType(stored.stored)))];
      residuals.push(...arrays);
      b.bindVar(v, readingBack(stored, arrays));
    } else if (top.has(v.id)) {
      const r = freshVar(v.name, v.type);
      residuals.push(r);
      b.bindVar(v, r);
    } else b.bindVar(v, rhs);
  }
  const tangent = b.proj(1, tail, "tangent");
  return {
    ...withFunctionsOf(jvp),
    name: `${jvp.name}_linear`,
    params: [...tangents, ...primals, ...residuals],
    body: b.finish(tangent),
  };
}

/**
 * The loop with each stored value of its body read back (at the loop's index) instead of computed: from its own array
 * (`arrays` has one per value), or from the one array of tuples of them all.
 */
function readingBack({ loop, stored }: LoopResiduals, arrays: readonly Var[]): Expr {
  const { bindings, tail } = splitLets(loop.body);
  const out: Binding[] = [];
  const get = (r: Var): Expr => ({ kind: "prim", op: "get", args: [r, loop.index], type: elemOf(r.type) });
  for (const x of bindings) {
    const k = stored.findIndex((s) => s.id === x.v.id);
    if (k < 0) out.push(x);
    else if (arrays.length > 1) out.push({ v: x.v, rhs: get(arrays[k]!) });
    else if (stored.length === 1) out.push({ v: x.v, rhs: get(arrays[0]!) });
    else {
      const element = freshVar("stored", elementType(stored));
      out.push({ v: element, rhs: get(arrays[0]!) });
      out.push({ v: x.v, rhs: { kind: "proj", index: k, arg: element, type: x.v.type } });
    }
  }
  return { ...loop, body: wrapLets(out, tail) };
}

const elemOf = (t: Type): Type => (t.k === "array" ? t.elem : t);
