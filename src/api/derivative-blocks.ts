// Derivative functions whose result is the derivative itself, in its final layout, as IR — what the library's
// transforms compile and compose (grad of a Jacobian is the gradient of this IR function):
//  - gradients: the adjoints of the differentiated parameters (a tuple when several), optionally after the value, and
//    with an auxiliary result (`hasAux`: the function returns (value, aux); aux is passed through);
//  - Jacobians: per leaf of the output and per leaf of each differentiated parameter, a block with the output leaf's
//    dimensions first (O ++ I), in either mode, in the structures of the output and the parameters (JAX's);
//  - Hessians: blocks [i][j] of shape I_i ++ I_j; a parameter that is a tuple (an object of arrays) is taken apart
//    into its leaves first, and its blocks are put back in its structure (blocks per pair of leaves).
// Each is built on the raw derivative programs of ./derivatives.ts; the layouts are builds the optimiser fuses.

import { doubleRank } from "../ad/seed.js";
import { mapElements, permuteAxes, swapPermutation } from "../ir/axes.js";
import { AnfBuilder } from "../ir/builder.js";
import { freshVar, typeOf, type Atom, type IrFunction, type Var } from "../ir/ir.js";
import { copyFunction } from "../ir/rename.js";
import { functionsOfAll, withProgramFunctions } from "../ir/program-functions.js";
import { tupleOf, type Type } from "../types/types.js";
import { derivativeFunction, type Mode } from "./derivatives.js";

/** The program functions of what the functions being built (innermost last) inline (see functionOf). */
const inlinedStack: IrFunction[][] = [];

/** `fn` called on `args` inside the function being built (a copy of its body with its parameters bound to them). */
export function inlineCall(b: AnfBuilder, fn: IrFunction, args: readonly Atom[], name = "r"): Atom {
  inlinedStack[inlinedStack.length - 1]?.push(fn);
  const copy = copyFunction(fn);
  copy.params.forEach((p, i) => b.bindVar(p, args[i]!));
  return b.bind(name, copy.body);
}

/** A function of fresh parameters of these types whose body `body` builds. */
export function functionOf(
  name: string,
  params: readonly { name: string; type: Type }[],
  body: (b: AnfBuilder, params: readonly Var[]) => Atom,
): IrFunction {
  const vars = params.map((p) => freshVar(p.name, p.type));
  const b = new AnfBuilder();
  // The functions it inlines may call recursive functions of their programs: the new function's program has them.
  const inlined: IrFunction[] = [];
  inlinedStack.push(inlined);
  try {
    const fn: IrFunction = { name, params: vars, body: b.finish(body(b, vars)) };
    return withProgramFunctions(fn, functionsOfAll(inlined));
  } finally {
    inlinedStack.pop();
  }
}

const paramsOf = (fn: IrFunction) => fn.params.map((p) => ({ name: p.name, type: p.type }));

/** `fn` with its result replaced by `f(result)`. */
export function mapResult(fn: IrFunction, name: string, f: (b: AnfBuilder, result: Atom) => Atom): IrFunction {
  return functionOf(name, paramsOf(fn), (b, params) => f(b, inlineCall(b, fn, params)));
}

/** A tuple of the atoms, or the atom itself when there is one. */
const pack = (b: AnfBuilder, atoms: readonly Atom[], name: string): Atom =>
  atoms.length === 1 ? atoms[0]! : b.tuple(atoms, name);

/** Part i of n (a tuple when n > 1). */
const part = (b: AnfBuilder, x: Atom, i: number, n: number): Atom => (n === 1 ? x : b.proj(i, x, "part"));

export interface GradientOptions {
  /** Return (value, gradient) instead of the gradient. */
  readonly withValue?: boolean;
  /** The function returns (value, aux): differentiate the value, pass aux through (after the gradient). */
  readonly hasAux?: boolean;
}

/**
 * The gradient of a Double-valued function (or of the first component of (value, aux) with `hasAux`): the gradient
 * G (one adjoint per differentiated parameter, a tuple when several); with `withValue` (V, G), where V is the
 * function's
 * result; with `hasAux`, G becomes (G, aux). The auxiliary result is computed by a second run of the primal, which the
 * optimiser shares with the gradient's where it can.
 */
export function gradientFunction(
  primal: IrFunction,
  wrt: readonly number[],
  optimisePrimal: boolean,
  opts: GradientOptions = {},
): IrFunction {
  const scalar = opts.hasAux ? mapResult(primal, primal.name, (b, r) => b.proj(0, r, "value")) : primal;
  const vg = derivativeFunction(scalar, "value-gradient", wrt, optimisePrimal);
  return functionOf(`${primal.name}'`, paramsOf(primal), (b, params) => {
    const r = inlineCall(b, vg, params, "vg");
    const grads = pack(
      b,
      wrt.map((_, i) => b.proj(i + 1, r, "g")),
      "grad",
    );
    if (!opts.hasAux) return opts.withValue ? b.tuple([b.proj(0, r, "value"), grads], "vg") : grads;
    const aux = b.proj(1, inlineCall(b, primal, params, "primal"), "aux");
    const value = opts.withValue ? b.tuple([b.proj(0, r, "value"), aux], "va") : undefined;
    return value ? b.tuple([value, grads], "vg") : b.tuple([grads, aux], "ga");
  });
}

/**
 * The Jacobian of `primal` with respect to the parameters in `wrt`, in JAX's structure: the structure of the output
 * (tuples whose leaves are Doubles or arrays of Doubles: callers check) whose leaf j is, per parameter (a tuple of
 * them when there are several), the structure of the parameter whose leaf i is the block ∂out_j/∂x_i of shape
 * O_j ++ I_i. Reverse mode sweeps once per output scalar and gives each block in that layout; forward mode gives,
 * per input leaf, I_i ++ O_j, whose axes are moved.
 */
export function jacobianFunction(
  primal: IrFunction,
  wrt: readonly number[],
  mode: Mode,
  optimisePrimal: boolean,
  paramNames: readonly (string | undefined)[] = [],
): IrFunction {
  const flat = flattenParams(primal, wrt);
  const positions = flat.leafPositions.flat();
  const inRanks = flat.leaves.flat().map((l) => doubleRank(l.type)!);
  const outType = typeOf(primal.body);
  const outLeaves = leavesOf(outType);
  const outRanks = outLeaves.map((l) => doubleRank(l.type)!);
  const [nIn, nOut] = [positions.length, outLeaves.length];
  const kind = mode === "reverse" ? "jacobian-rows" : "forward";
  const raw = derivativeFunction(flat.fn, kind, positions, optimisePrimal, paramNames);
  return functionOf(raw.name, paramsOf(primal), (b, params) => {
    const out = inlineCall(b, raw, flatArguments(b, primal, wrt, params), "jac");
    const block = (j: number, i: number): Atom => {
      if (mode === "reverse") {
        // Rows of output leaf j: a build over its positions of the adjoints of every input leaf.
        const rows = part(b, out, j, nOut);
        return nIn === 1 ? rows : mapElements(b, rows, outRanks[j]!, (bb, e) => bb.proj(i, e, "adj"));
      }
      // Columns of input leaf i: a build over its positions of the output's tangent.
      const columns = part(b, out, i, nIn);
      const path = outLeaves[j]!.path;
      const tangent =
        path.length === 0
          ? columns
          : mapElements(b, columns, inRanks[i]!, (bb, e) => path.reduce<Atom>((x, k) => bb.proj(k, x, "t"), e));
      const rank = inRanks[i]! + outRanks[j]!;
      return permuteAxes(b, tangent, rank, swapPermutation(inRanks[i]!, rank));
    };
    const offsets = flat.leafPositions.map((ls) => positions.indexOf(ls[0]!));
    const perOutput = (j: number): Atom =>
      pack(
        b,
        wrt.map((k, a) => rebuildTuples(b, primal.params[k]!.type, (i) => block(j, offsets[a]! + i), "jrow")),
        "jac",
      );
    return rebuildTuples(b, outType, perOutput, "jac");
  });
}

/** The Double-rank leaves of a type made of tuples, depth first, with their path of tuple positions. */
export interface Leaf {
  readonly path: readonly number[];
  readonly type: Type;
}

export function leavesOf(t: Type, path: readonly number[] = []): Leaf[] {
  if (t.k === "tuple") return t.elems.flatMap((e, i) => leavesOf(e, [...path, i]));
  return [{ path, type: t }];
}

/**
 * `primal` with each parameter in `wrt` replaced by its leaves (a parameter that is not a tuple is its own leaf):
 * the new parameters are the other parameters in place, each differentiated one expanded. Returns the function and,
 * per differentiated parameter, the positions of its leaves.
 */
export function flattenParams(
  primal: IrFunction,
  wrt: readonly number[],
): { fn: IrFunction; leafPositions: number[][]; leaves: Leaf[][] } {
  if (!wrt.some((k) => primal.params[k]!.type.k === "tuple"))
    return { fn: primal, leafPositions: wrt.map((k) => [k]), leaves: wrt.map((k) => leavesOf(primal.params[k]!.type)) };
  const specs: { name: string; type: Type }[] = [];
  const leafPositions: number[][] = [];
  const leaves: Leaf[][] = [];
  primal.params.forEach((p, k) => {
    if (!wrt.includes(k)) {
      specs.push({ name: p.name, type: p.type });
      return;
    }
    const ls = leavesOf(p.type);
    leaves[wrt.indexOf(k)] = ls;
    leafPositions[wrt.indexOf(k)] = ls.map((_, i) => specs.length + i);
    ls.forEach((l) => specs.push({ name: `${p.name}${l.path.join("_")}`, type: l.type }));
  });
  const fn = functionOf(primal.name, specs, (b, params) => {
    let next = 0;
    const args = primal.params.map((p, k) => {
      if (!wrt.includes(k)) return params[next++]!;
      const rebuild = (t: Type): Atom => {
        if (t.k !== "tuple") return params[next++]!;
        return b.tuple(t.elems.map(rebuild), p.name);
      };
      return rebuild(p.type);
    });
    return inlineCall(b, primal, args);
  });
  return { fn, leafPositions, leaves };
}

/** The arguments of flattenParams' function for `primal`'s parameters `params`: each differentiated one's leaves. */
function flatArguments(b: AnfBuilder, primal: IrFunction, wrt: readonly number[], params: readonly Atom[]): Atom[] {
  if (!wrt.some((k) => primal.params[k]!.type.k === "tuple")) return [...params];
  return params.flatMap((p, k) =>
    wrt.includes(k) ? leavesOf(p.type).map((l) => l.path.reduce<Atom>((x, i) => b.proj(i, x, "leaf"), p)) : [p],
  );
}

/** A value of the structure of `t` (tuples of leaves) whose leaf i is `leaf(i)`. */
function rebuildTuples(b: AnfBuilder, t: Type, leaf: (i: number) => Atom, name: string): Atom {
  let next = 0;
  const rec = (u: Type): Atom => (u.k === "tuple" ? b.tuple(u.elems.map(rec), name) : leaf(next++));
  return rec(t);
}

/**
 * The Hessian of a Double-valued function, forward over reverse. For one parameter of type T, a value of T's structure
 * whose leaf i is (a value of T's structure whose leaf j is the block ∂²f/∂x_i∂x_j, of shape I_i ++ I_j); a parameter
 * that is not a tuple gives the block itself. For several parameters, entry [a][b] is that structure for the pair.
 */
export function hessianFunction(
  primal: IrFunction,
  wrt: readonly number[],
  optimisePrimal: boolean,
  paramNames: readonly (string | undefined)[] = [],
): IrFunction {
  const flat = flattenParams(primal, wrt);
  const positions = flat.leafPositions.flat();
  const ranks = flat.leaves.flat().map((l) => doubleRank(l.type)!);
  const total = positions.length;
  const raw = derivativeFunction(flat.fn, "hessian", positions, optimisePrimal, paramNames);
  return functionOf(`${primal.name}''`, paramsOf(primal), (b, params) => {
    const out = inlineCall(b, raw, flatArguments(b, primal, wrt, params), "h");
    // Column j: over x_j's positions, the tangent of every gradient (a tuple when several): I_j ++ I_i per i.
    const block = (i: number, j: number): Atom => {
      const column = part(b, out, j, total);
      const tangent = total === 1 ? column : mapElements(b, column, ranks[j]!, (bb, e) => bb.proj(i, e, "hi"));
      const rank = ranks[i]! + ranks[j]!;
      return permuteAxes(b, tangent, rank, swapPermutation(ranks[j]!, rank));
    };
    const offsets = flat.leafPositions.map((ls) => positions.indexOf(ls[0]!));
    const entry = (a: number, c: number): Atom =>
      rebuildTuples(
        b,
        primal.params[wrt[a]!]!.type,
        (i) => rebuildTuples(b, primal.params[wrt[c]!]!.type, (j) => block(offsets[a]! + i, offsets[c]! + j), "hrow"),
        "hess",
      );
    if (wrt.length === 1) return entry(0, 0);
    return b.tuple(
      wrt.map((_, a) =>
        b.tuple(
          wrt.map((_, c) => entry(a, c)),
          "hrow",
        ),
      ),
      "hess",
    );
  });
}

/** A tuple type of the parts, or the part itself when there is one. */
export const packType = (types: readonly Type[]): Type => (types.length === 1 ? types[0]! : tupleOf(types));
