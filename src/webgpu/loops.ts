// The top-level loops the parallel plan runs across threads (./parallel.ts):
//
//   - a build chain (B0 ⊃ ... ⊃ Bk of sizes the host knows, cheap lets between the levels, scalar elements): one map
//     kernel, a thread per innermost element, storing into arrays the host allocated;
//   - `ifold (fun s i -> s ⊕ term i) init n` with ⊕ one of +, max, min on a Double: one workgroup's reduction;
//   - an accumulation loop (../opt/accumulation.ts: iterations only add to the state): a scatter kernel, a thread per
//     iteration adding into the accumulators in place, atomically (WGSL has no float atomics: a compare-exchange
//     loop on the float's bits), scalar accumulators through the environment. The sums come out in another order
//     than one thread's, within float32 rounding.
//
// Each returns undefined, having made nothing, for a loop it does not take.

import { freeVars, someNode } from "../ir/free.js";
import { typeOf, type Atom, type Build, type Expr, type Ifold, type Let, type Var } from "../ir/ir.js";
import { buildChain, zeroFilled } from "../lowering/build-forms.js";
import { accumulation } from "../opt/accumulation.js";
import { leafStarts, leavesOf } from "../lowering/leaves.js";
import { slotNames, varName } from "../codegen/writer.js";
import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { ScalarKind } from "../runtime/value.js";
import { envLoad, kernelModule, param } from "./kernel.js";
import { ENV } from "./control.js";
import {
  elementIndex,
  groupsFor,
  kernelEmitter,
  literalText,
  loadVars,
  PER_ELEMENT,
  reduceModule,
  type Loc,
  type ReduceOp,
} from "./kernels.js";
import { HostFailure, slotKinds, type HostState } from "./plan.js";
import { accumulationNest, type Known, type NestLevel } from "./nest.js";
import type { Slots, WgslEmitter } from "./emit.js";
import { hostRead, onHost, type Planner } from "./parallel.js";

/** A slot's value as WGSL text in a kernel (a literal, a parameter, an environment word). */
function slotText(src: Loc[number], kind: ScalarKind): string {
  if (src.from === "literal") return literalText(src.value, kind);
  return src.from === "param" ? param(src.at, kind) : envLoad(src.at, kind);
}

/** The location of an atom, or undefined for a variable bound inside the loop being planned. */
function maybeLoc(pl: Planner, a: Atom): Loc | undefined {
  return a.kind === "lit" || pl.hasLoc(a) ? pl.atomLoc(a) : undefined;
}

/** Whether `e` runs no loop (a let between the levels of a flattened chain is computed by every thread). */
const cheap = (e: Expr): boolean => !someNode(e, (n) => n.kind === "build" || n.kind === "ifold" || n.kind === "while");

/** The product of the sizes, checked as a build size (a HostFailure otherwise: the sequential plan reports it). */
function total(h: HostState, sizes: readonly ((h: HostState) => number)[]): number {
  let n = 1;
  for (const s of sizes) {
    const v = s(h);
    if (v < 0 || v > MAX_ARRAY_ELEMENTS) throw new HostFailure("build size");
    n *= v;
  }
  if (n > MAX_ARRAY_ELEMENTS) throw new HostFailure("build size");
  return n;
}

export function planBuild(pl: Planner, b: Build): Loc | undefined {
  const size0 = maybeLoc(pl, b.size);
  if (size0 === undefined || !onHost(size0)) return undefined;
  if (zeroFilled(b) !== undefined) {
    const read = hostRead(size0[0]!);
    const at = pl.param("int");
    pl.steps.push({
      kind: "host",
      run: (h) => {
        const n = total(h, [read]);
        h.values[at] = h.allocate(n);
        h.clear(h.values[at], n);
      },
    });
    return [{ from: "param", at }, { from: "literal", value: 0 }, size0[0]!];
  }
  const levels = buildChain(b);
  const sizes = levels.map((l) => maybeLoc(pl, l.build.size));
  if (!sizes.every((s) => s !== undefined && onHost(s))) return undefined;
  if (!levels.every((l) => l.lets.every((x: Let) => cheap(x.rhs)))) return undefined;
  const terminal = levels[levels.length - 1]!.build.body;
  const leaves = leavesOf(typeOf(terminal));
  if (leaves.some((l) => l.rank > 0)) return undefined;

  const em = kernelEmitter();
  loadVars(em, freeVars(b).values(), pl.locOf);
  // A literal size 0 leaves no element to run, and WGSL refuses a division by the literal 0: 1 stands for it.
  const sizeSlots = levels.map((l) => em.atom(l.build.size)[0]!).map((n) => (n === "0" ? "1" : n));
  const count = pl.param("int");
  const dests = leaves.map(() => pl.param("int"));
  const destSlots = dests.map((d, l) => {
    em.out.line(`let dest${l} = ${param(d, "int")};`);
    return `dest${l}`;
  });
  const g = elementIndex(em, param(count, "int"));
  // The element's indexes, innermost first: g = ((i0 * n1 + i1) * n2 + i2) ...
  let rest = g;
  for (let j = levels.length - 1; j >= 0; j--) {
    const name = varName(levels[j]!.build.index.id);
    em.out.line(`let ${name} = ${j === 0 ? rest : `${rest} % ${sizeSlots[j]}`};`);
    if (j > 0) {
      em.out.line(`let r${j} = ${rest} / ${sizeSlots[j]};`);
      rest = `r${j}`;
    }
  }
  levels.forEach((l, j) => {
    em.bind(l.build.index, [varName(l.build.index.id)]);
    em.bounds.loopVariable(varName(l.build.index.id), sizeSlots[j]!);
    for (const x of l.lets) em.letBinding(x);
  });
  const value = em.expr(terminal, em.fresh());
  leaves.forEach((leaf, l) => em.store(leaf.kind === "tape" ? "double" : leaf.kind, `${destSlots[l]} + g`, value[l]!));

  const reads = sizes.map((s) => hostRead(s![0]!));
  // An array's inner dimensions are 0 when an outer one is (the convention of ../runtime/stack.ts).
  const dims = sizes.map((s, j) => (j === 0 ? s![0]! : ({ from: "param", at: pl.param("int") } as const)));
  pl.steps.push({
    kind: "host",
    run: (h) => {
      const n = total(h, reads);
      h.values[count] = n;
      for (const d of dests) h.values[d] = h.allocate(n);
      let outer = 1;
      dims.forEach((d, j) => {
        const size = reads[j]!(h);
        if (j > 0) h.values[(d as { at: number }).at] = outer === 0 ? 0 : size;
        outer *= size;
      });
    },
  });
  const what = `a thread per element of ${levels.length > 1 ? `${levels.length} nested builds` : "a build"}`;
  const kernel = pl.kernel(kernelModule(em, PER_ELEMENT), what);
  pl.steps.push({ kind: "dispatch", kernel, groups: (h) => groupsFor(h.values[count]!) });
  return leaves.flatMap((_, l) => [
    { from: "param", at: dests[l]! } as const,
    { from: "literal", value: 0 } as const,
    ...dims,
  ]);
}

/** The body's let chain and the expression it ends in (a variable bound by its last let is looked through). */
function tailOf(body: Expr): { lets: Let[]; tail: Expr } {
  const lets: Let[] = [];
  let e = body;
  for (; e.kind === "let"; e = e.body) lets.push(e);
  const last = lets[lets.length - 1];
  if (e.kind === "var" && last !== undefined && last.v.id === e.id) return { lets: lets.slice(0, -1), tail: last.rhs };
  return { lets, tail: e };
}

export function planReduction(pl: Planner, e: Ifold): Loc | undefined {
  if (e.type.k !== "double") return undefined;
  const count = maybeLoc(pl, e.count);
  const init = maybeLoc(pl, e.init);
  if (count === undefined || init === undefined || !onHost(count)) return undefined;
  const { lets, tail } = tailOf(e.body);
  if (tail.kind !== "prim" || !["add", "max", "min"].includes(tail.op) || tail.tangent !== undefined) return undefined;
  const [a, b] = tail.args as [Atom, Atom];
  const isAcc = (x: Atom) => x.kind === "var" && x.id === e.acc.id;
  const term = isAcc(a) && !isAcc(b) ? b : isAcc(b) && !isAcc(a) ? a : undefined;
  if (term === undefined) return undefined;
  const rest: Expr = lets.reduceRight<Expr>((body, l) => ({ ...l, body }), term);
  if (freeVars(rest).has(e.acc.id)) return undefined;

  const em = kernelEmitter();
  em.exit = "return 0.0f;";
  const free = [...freeVars(rest).values()].filter((v) => v.id !== e.index.id);
  loadVars(em, free, pl.locOf);
  const index = varName(e.index.id);
  em.bind(e.index, [index]);
  em.out.line(`return ${em.expr(rest, em.fresh())[0]!};`);
  const out = pl.env();
  const wgsl = reduceModule(
    em,
    tail.op as ReduceOp,
    index,
    slotText(count[0]!, "int"),
    slotText(init[0]!, "double"),
    out,
  );
  const kernel = pl.kernel(wgsl, `a workgroup's ${tail.op === "add" ? "sum" : tail.op} of a loop's terms`);
  pl.steps.push({ kind: "dispatch", kernel, groups: () => [1, 1, 1] });
  return [{ from: "env", at: out }];
}

const ADD_ENV_F32 = `fn add_env_f32(k: i32, v: f32) {
  var old = atomicLoad(&C[k]);
  loop {
    let r = atomicCompareExchangeWeak(&C[k], old, bitcast<u32>(bitcast<f32>(old) + v));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}`;

export function planScatter(pl: Planner, e: Ifold): Loc | undefined {
  const acc = accumulation(e);
  const count = maybeLoc(pl, e.count);
  const init = maybeLoc(pl, e.init);
  if (acc === undefined || count === undefined || init === undefined || !onHost(count)) return undefined;
  const state = e.acc.type;
  const comps = state.k === "tuple" ? state.elems : [state];
  const isArray = comps.map((t) => t.k === "array");
  if (!comps.every((t, p) => isArray[p] || t.k === "double" || t.k === "int")) return undefined;
  const sizes = comps.map((t) => slotKinds(t).length);
  const starts = sizes.map((_, p) => sizes.slice(0, p).reduce((n, x) => n + x, 0));
  const initAtoms: readonly Atom[] | undefined =
    state.k !== "tuple" ? [e.init] : e.init.kind === "var" ? pl.tuples.get(e.init.id) : undefined;
  const { tail } = tailOf(e.body);
  const bodyAtoms: readonly Atom[] | undefined =
    state.k !== "tuple"
      ? tail.kind === "var" || tail.kind === "lit"
        ? [tail]
        : undefined
      : tail.kind === "tuple"
        ? tail.elems
        : undefined;
  const sameAtom = (x: Atom | undefined, y: Atom | undefined) =>
    x !== undefined &&
    y !== undefined &&
    (x.kind === "var" ? y.kind === "var" && x.id === y.id : y.kind === "lit" && x.value === y.value);
  // A component the loop does not add to must be the one it started with (a literal or a variable it keeps).
  for (let p = 0; p < comps.length; p++)
    if (acc.result[p]!.k === "indep" && !sameAtom(initAtoms?.[p], bodyAtoms?.[p])) return undefined;
  // An accumulator the loop's caller still sees afterwards is copied first (new zeros used only here are not).
  const copies = comps.map((_, p) => {
    if (!isArray[p] || acc.result[p]!.k !== "acc") return false;
    const own = initAtoms?.[p];
    const fresh =
      own?.kind === "var" &&
      (pl.freshZeros.has(own.id) || pl.freshArrays.has(own.id)) &&
      pl.uses.get(own.id) === 1 &&
      (state.k !== "tuple" || (e.init.kind === "var" && pl.uses.get(e.init.id) === 1));
    return !fresh;
  });
  // A component's own location where the planner has it (the tuple of them may have gone to a segment's env words).
  const compLoc = (p: number): Loc => {
    const a = initAtoms?.[p];
    if (a !== undefined && (a.kind === "lit" || pl.hasLoc(a))) return pl.atomLoc(a);
    return init.slice(starts[p], starts[p]! + sizes[p]!);
  };
  if (copies.some((c, p) => c && !onHost(compLoc(p)))) return undefined;

  const em = kernelEmitter("atomic");
  const free = [...freeVars(e.body).values()].filter((v) => v.id !== e.index.id && v.id !== e.acc.id);
  loadVars(em, free, pl.locOf);
  // Nested accumulation loops (./nest.ts): a thread per iteration of the innermost, its indexes from g.
  const known = comps.map((t, p): Known => {
    const a = initAtoms?.[p];
    if (t.k === "array") return acc.result[p]!.k === "acc" ? "state" : undefined;
    return acc.result[p]!.k === "indep" && a?.kind === "lit" ? a : undefined;
  });
  const nest = accumulationNest(e, known, (l) => {
    const c = maybeLoc(pl, l.count);
    return c !== undefined && onHost(c);
  });
  const counts = nest.map((l) => maybeLoc(pl, l.loop.count)![0]!);
  const countTexts = counts.map((c) => slotText(c, "int"));
  const threads = pl.param("int");
  const g = elementIndex(em, param(threads, "int"));
  let rest = g;
  for (let j = nest.length - 1; j >= 0; j--) {
    const name = varName(nest[j]!.loop.index.id);
    em.out.line(`let ${name} = ${j === 0 ? rest : `${rest} % ${countTexts[j]}`};`);
    if (j > 0) {
      em.out.line(`let q${j} = ${rest} / ${countTexts[j]};`);
      rest = `q${j}`;
    }
  }
  nest.forEach((l, j) => {
    const name = varName(l.loop.index.id);
    em.bind(l.loop.index, [name]);
    em.bounds.loopVariable(name, countTexts[j]!);
  });
  // The state: accumulator arrays where they are (copies the host makes get parameters), scalars from zero.
  const names = slotNames(varName(e.acc.id), state);
  const kinds = slotKinds(state);
  // A copied component: its leaves at new host allocations (offset 0), the same dimensions.
  const stateLoc: Loc[number][] = [];
  comps.forEach((t, p) => {
    const own = compLoc(p);
    if (!copies[p]) return stateLoc.push(...own);
    own.forEach((src, q) => {
      if (leafStart(t, q)) stateLoc.push({ from: "param", at: pl.param("int") });
      else if (q > 0 && leafStart(t, q - 1)) stateLoc.push({ from: "literal", value: 0 });
      else stateLoc.push(src);
    });
  });
  const componentOf = (i: number): number => {
    let p = 0;
    while (p + 1 < starts.length && starts[p + 1]! <= i) p++;
    return p;
  };
  const shared = new Set<string>();
  const slots = names.map((name, i) => {
    const p = componentOf(i);
    if (!isArray[p]) return literalText(0, kinds[i]!);
    const src = stateLoc[i]!;
    if (src.from === "literal") return literalText(src.value, kinds[i]!);
    em.out.line(`let ${name} = ${slotText(src, kinds[i]!)};`);
    if (leafStart(comps[p]!, i - starts[p]!)) shared.add(name);
    return name;
  });
  for (const name of shared) em.shared.add(name);
  em.bind(e.acc, slots);
  em.markDimensions(slots, state);
  const result = nestResult(em, nest);
  const envs = comps.map((_, p) => (!isArray[p] && acc.result[p]!.k === "acc" ? pl.env() : -1));
  for (let p = 0; p < comps.length; p++) {
    if (acc.result[p]!.k !== "acc") continue;
    if (isArray[p]) {
      // In place: the body gives back the accumulators it was handed (under their names, or a loop state's).
      for (let q = starts[p]!; q < starts[p]! + sizes[p]!; q++)
        if (leafStart(comps[p]!, q - starts[p]!) && !em.shared.has(result[q]!)) return undefined;
      continue;
    }
    const k = ENV + envs[p]!;
    const add = (v: string) =>
      kinds[starts[p]!] === "int" ? `atomicAdd(&C[${k}], bitcast<u32>(${v}));` : `add_env_f32(${k}, ${v});`;
    em.out.line(add(result[starts[p]!]!));
    em.out.line(`if (g == 0) { ${add(slotText(compLoc(p)[0]!, kinds[starts[p]!]!))} }`);
  }

  comps.forEach((_, p) => {
    if (!copies[p]) return;
    const own = compLoc(p);
    const leaves = leavesOf(comps[p]!);
    leafStarts(leaves).forEach((s, l) => {
      const [data, offset, ...dims] = own.slice(s, s + 2 + leaves[l]!.rank).map(hostRead);
      const to = (stateLoc[starts[p]! + s] as { at: number }).at;
      pl.steps.push({
        kind: "host",
        run: (h) => {
          const n = dims.reduce((m, d) => m * d(h), 1);
          h.values[to] = h.allocate(n);
          h.copy(data!(h) + offset!(h), h.values[to], n);
        },
      });
    });
  });
  const what =
    nest.length === 1 ? "an accumulation" : `${nest.length} nested accumulation loops (a thread per innermost one)`;
  const kernel = pl.kernel(kernelModule(em, PER_ELEMENT, [ADD_ENV_F32]), `a thread per iteration of ${what}`);
  const readCounts = counts.map(hostRead);
  pl.steps.push({
    kind: "host",
    run: (h) => {
      const sizes = readCounts.map((c) => Math.max(0, c(h)));
      // An empty inner loop under a running outer one: the lets before it would run on no thread, and a check in them
      // would go unreported, so the sequential plan runs the call.
      if (sizes[0]! > 0 && sizes.some((n) => n === 0)) throw new HostFailure("an empty inner loop");
      h.values[threads] = sizes.reduce((n, c) => n * c, 1);
    },
  });
  pl.steps.push({ kind: "dispatch", kernel, groups: (h) => groupsFor(h.values[threads]!) });
  return comps.flatMap((_, p) => {
    if (acc.result[p]!.k === "indep") return compLoc(p);
    if (isArray[p]) return stateLoc.slice(starts[p], starts[p]! + sizes[p]!);
    return [{ from: "env", at: envs[p]! } as const];
  });
}

/**
 * The slots of the outermost loop's body in one thread of a nest: each level's lets before its inner loop, the inner
 * loop's state bound to its initial slots (the outer state's, updated in place), the innermost body, then on the way
 * out each level's lets after its inner loop, which only pass the state on.
 */
function nestResult(em: WgslEmitter, nest: readonly NestLevel[]): Slots {
  for (const level of nest.slice(0, -1)) {
    for (const l of level.before) em.letBinding(l);
    const inner = level.inner!.rhs as Ifold;
    em.bind(inner.acc, em.atom(inner.init));
  }
  let result = em.expr(nest[nest.length - 1]!.loop.body, em.fresh());
  for (let j = nest.length - 2; j >= 0; j--) {
    em.bind(nest[j]!.inner!.v, result);
    result = em.expr(nest[j]!.after!, em.fresh());
  }
  return result;
}

/** Whether slot q of a value of type t is the data slot of one of its array leaves. */
function leafStart(t: Var["type"], q: number): boolean {
  const leaves = leavesOf(t);
  return leafStarts(leaves).some((s, l) => leaves[l]!.rank > 0 && s === q);
}
