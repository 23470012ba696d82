// Heavy loops in functions of their own (issue 16: the second call at steady speed). V8 compiles a module's
// functions with its baseline compiler (Liftoff) first and tiers a function up to its optimising one (TurboFan) when
// it has run enough, in the background; a call already running keeps the code it started with (wasm has no
// on-stack replacement). `main` runs once per call: its loops ran as baseline code for the whole first call, and
// still for the next when the optimised code was not ready by then (the gmm gradient's second call took 2.7 times
// its steady time). So a loop at the top of `main` over the elements of an array (its count a dimension) whose body
// runs loops is a function of its own, `main` calling it on chunks of iterations, 1, 2, 4, ... up to CHUNK: the
// function runs often enough in the first call to be optimised during it, later chunks and the next call run the
// optimised code, and a call costs at most 1/CHUNK of an iteration.
//
// The cost: V8's optimised code for the same loop is a little slower in a function of its own than in `main` (values
// `main` computes from one another, such as n - 1 from n or a state's dimension from a count, arrive as separate
// parameters; a loop-invariant value or constant may be reloaded per iteration): 2-5% on kmeans' and lstm's
// gradients, and 28% on ode's, whose loop over its steps (a count given as a number, not a dimension) is therefore
// left in `main`.
//
// The function takes the chunk's first and last iteration, the loop body's free variables (each local slot once;
// constants are written in) and the loop state; it returns the state (multi-value). It knows what `main` knows at the
// call about the slots it takes (the bounds facts: checks made, loop ranges, dimensions), and that the loop index is
// below the loop's count. Its code is the loop's code in `main`, slot for slot: results are bit for bit the same.
//
// A build's loop writes its elements into memory `main` allocated as it goes, and checks their shapes across
// iterations, so it is not cut into chunks: the element's own work is the function, called once per element with the
// index and the free variables, returning what the rest of the element reads (ht's Jacobian reaches its steady time
// by the third to fifth call instead of the sixth to tenth, and its steady time is 3% lower).
import { freeVars, someNode } from "../ir/free.js";
import type { Expr, Ifold, Let, Var } from "../ir/ir.js";
import type { FunctionBuilder, ModuleBuilder, ValType } from "./encoder.js";
import { call, i32, localGet, localSet, op } from "./instructions.js";
import { WasmEmitter, type WSlots } from "./emit.js";
import { distinctLocals, isLocal, slotCode, slotKey, slotTypes, type WSlot } from "./slots.js";

/** The most iterations of one call: the chunks double up to it. */
const CHUNK = 64;
/** The most parameters and results of a wasm function in the engines (V8's and the JS API's limit on each). */
const MAX_PARAMS = 1000;

/** Whether `e` runs a loop: a loop body worth a function of its own. */
export const holdsLoop = (e: Expr): boolean =>
  someNode(e, (node) => node.kind === "ifold" || node.kind === "build" || node.kind === "while");

/**
 * Writes the loop `e` over [0, count) (its state `state`, already set to the initial value, in scope where the loop
 * goes) as a function of the module, and in `em` the loop over chunks calling it. False, with nothing written, when
 * the function would take more parameters than the engines allow (the loop then stays in `main`).
 */
export function emitOutlinedLoop(em: WasmEmitter, mb: ModuleBuilder, e: Ifold, count: WSlot, state: WSlots): boolean {
  const free = [...freeVars(e.body).values()].filter((v) => v.id !== e.index.id && v.id !== e.acc.id);
  // Parameters: the chunk's first and last iteration, then each local slot once (state locals are returned).
  const stateLocals = [...new Set(state.filter(isLocal).map((s) => s.local))];
  let returned: WSlot[] = [];
  const f = outlinedFunction(em, mb, free, [count, ...state], 2, (param) => {
    returned = stateLocals.map((l) => param.get(l)!);
    return returned.map((s) => s.type);
  });
  if (f === undefined) return false;
  const { fb, sub, passed, rename } = f;
  const subState = state.map(rename);
  sub.bind(e.acc, subState);
  sub.markDimensions(subState, e.acc.type);
  // The index runs over [first, last), within [0, count).
  const [first, last]: WSlot[] = [0, 1].map((local) => ({ local, type: "i32" as const }));
  const i = sub.local("i32");
  sub.bind(e.index, [i]);
  sub.bounds.loopVariable(slotKey(i), slotKey(rename(count)));
  sub.countedLoop(i, last!, () => sub.assign(subState, sub.expr(e.body)), first);
  // The state's locals (in `main`), returned.
  fb.emit(...returned.map(slotCode));
  addCounts(em, sub);

  // In `em`: for (from = 0, size = 1; from < count; from = to, size = min(2 size, CHUNK)) state = f(from, to, ...).
  const [from, to, size] = [em.define("i32", i32(0)), em.local("i32"), em.define("i32", i32(1))];
  const main = em.fb;
  main.block("exit");
  main.loop("next");
  main.brIf("exit", op("i32.ge_s", slotCode(from), slotCode(count)));
  const next = op("i32.add", slotCode(from), slotCode(size));
  em.set(to, op("select", slotCode(count), next, op("i32.gt_s", next, slotCode(count))));
  main.emit(call(fb.index, slotCode(from), slotCode(to), ...passed.map(slotCode)));
  for (let k = stateLocals.length - 1; k >= 0; k--) main.emit(localSet(stateLocals[k]!, []));
  em.set(from, slotCode(to));
  const doubled = op("i32.shl", slotCode(size), i32(1));
  em.set(size, op("select", i32(CHUNK), doubled, op("i32.gt_s", doubled, i32(CHUNK))));
  main.br("next");
  main.end();
  main.end();
  return true;
}

/** The variables a chain of lets reads but does not bind: the outlined function's parameters. */
function freeOfLets(lets: readonly Let[]): Map<number, Var> {
  const bound = new Set(lets.map((l) => l.v.id));
  const free = new Map<number, Var>();
  for (const l of lets) for (const v of freeVars(l.rhs).values()) if (!bound.has(v.id)) free.set(v.id, v);
  return free;
}

/**
 * Writes the lets that begin an element of a top-level loop (`lets`: each a loop variable's element, a build's
 * level, the loop index bound in `em`) as a function of the module called once per element, and binds in `em` the
 * variables `live` (those the rest of the element reads) to its results. `main` runs such a loop once per call: its
 * elements' heavy lets, in a function of their own, are optimised once they have run enough and the next element
 * calls the optimised code (the Jacobian of ht: the second call at 2.9 times its steady time, the loop over its 26
 * directions in `main`). False, with nothing written, past the engines' limit on parameters or results.
 */
export function emitOutlinedLets(
  em: WasmEmitter,
  mb: ModuleBuilder,
  lets: readonly Let[],
  live: readonly Var[],
): boolean {
  const free = freeOfLets(lets);
  const results = live.flatMap((v) => slotTypes(v.type, em.real));
  const f = outlinedFunction(em, mb, [...free.values()], [], 0, () => results);
  if (f === undefined) return false;
  const { fb, sub, passed } = f;
  // Inside the element: loops in the lets are not at the top.
  sub.loopDepth = em.loopDepth;
  for (const l of lets) sub.letBinding(l);
  fb.emit(...live.flatMap((v) => sub.atom(v).map(slotCode)));
  addCounts(em, sub);
  em.fb.emit(call(fb.index, ...passed.map(slotCode)));
  bindResults(em, results, live);
  return true;
}

/**
 * Writes the branch of an `if` on `flag` that runs when it is true (its lets, then the variables `live` bound) as a
 * function of the module, and in `em`, before the `if`, a call of it whatever the flag (false: it returns zeros at
 * once); binds `live` in `em` to its results, for the branch to read. Why called before the `if`: TurboFan's scheduler
 * splits a pure value used in both branches of an `if` and in no block that dominates them (`--turbo-splitting`)
 * into a copy per branch, and the copy in the other branch stays where its uses are, inside that branch's loops: ode's
 * gradient divided by the step count in every iteration (1.6 times slower) when the checkpointed branch (src/ad/
 * reverse-checkpoint.ts) read the values the taped branch's loops read. Arguments of a call before the `if` are uses
 * that dominate both branches. False, with nothing written, past the engines' limit on parameters or results.
 */
export function emitOutlinedBranch(
  em: WasmEmitter,
  mb: ModuleBuilder,
  flag: WSlot,
  lets: readonly Let[],
  live: readonly Var[],
): boolean {
  const free = freeOfLets(lets);
  const results = live.flatMap((v) => slotTypes(v.type, em.real));
  const f = outlinedFunction(em, mb, [...free.values()], [], 1, () => results);
  if (f === undefined) return false;
  const { fb, sub, passed } = f;
  sub.loopDepth = em.loopDepth;
  // The results' locals start as zeros (wasm's locals do): what a call with the flag false returns.
  const values = results.map((type) => ({ local: fb.local(type), type }));
  fb.if(localGet(0));
  for (const l of lets) sub.letBinding(l);
  const slots = live.flatMap((v) => sub.atom(v));
  fb.emit(...values.map((r, k) => localSet(r.local, slotCode(slots[k]!))));
  fb.end();
  fb.emit(...values.map((r) => localGet(r.local)));
  addCounts(em, sub);
  em.checkpointBranches++;
  em.fb.emit(call(fb.index, slotCode(flag), ...passed.map(slotCode)));
  bindResults(em, results, live);
  return true;
}

/** Binds `live` in `em` to new locals set from the results of the call just written (`results`, on the stack). */
function bindResults(em: WasmEmitter, results: readonly ValType[], live: readonly Var[]): void {
  const out = results.map((type) => ({ local: em.fb.local(type), type }));
  for (let k = out.length - 1; k >= 0; k--) em.fb.emit(localSet(out[k]!.local, []));
  let at = 0;
  for (const v of live) {
    const slots = out.slice(at, (at += slotTypes(v.type, em.real).length));
    em.bind(v, slots);
    em.markDimensions(slots, v.type);
  }
}

/**
 * A function of the module for code `em` would write, and the emitter `sub` to write it: its parameters `leading`
 * i32s, then each local slot of the free variables `free` and of `extra` once (`passed`, in that order), bound in
 * `sub` as in `em`, with what `em` knows of them; `rename` maps a slot of `em` to `sub`'s. Undefined past the engines'
 * limit on parameters or results.
 */
function outlinedFunction(
  em: WasmEmitter,
  mb: ModuleBuilder,
  free: readonly Var[],
  extra: readonly WSlot[],
  leading: number,
  results: (param: ReadonlyMap<number, WSlot>) => ValType[],
): { fb: FunctionBuilder; sub: WasmEmitter; passed: WSlot[]; rename: (s: WSlot) => WSlot } | undefined {
  const sorted = [...free].sort((a, b) => a.id - b.id);
  const passed = distinctLocals([...sorted.flatMap((v) => em.atom(v)), ...extra]);
  const param = new Map(passed.map((s, k) => [s.local, { local: leading + k, type: s.type }]));
  const resultTypes = results(param);
  if (leading + passed.length > MAX_PARAMS || resultTypes.length > MAX_PARAMS) return undefined;
  const fb = mb.addFunction({
    params: [...new Array<ValType>(leading).fill("i32"), ...passed.map((s) => s.type)],
    results: resultTypes,
  });
  const sub = new WasmEmitter(fb, em.helpers, em.real, em.errorArea);
  sub.sites = em.sites;
  sub.inPlace = em.inPlace;
  sub.buildInto = em.buildInto;
  sub.copyOnEntry = em.copyOnEntry;
  const rename = (s: WSlot): WSlot => (isLocal(s) ? param.get(s.local)! : s);
  for (const v of sorted) sub.bind(v, em.atom(v).map(rename));
  const keys = new Map(passed.map((s) => [slotKey(s), slotKey(rename(s))]));
  sub.bounds.inherit(em.bounds, (key) => (key.startsWith("l") ? keys.get(key) : key));
  return { fb, sub, passed, rename };
}

/** Adds what `sub`, a function of `em`'s own, counted to `em`'s counts (shown in the code listing). */
function addCounts(em: WasmEmitter, sub: WasmEmitter): void {
  em.outlined++;
  em.laneLoops += sub.laneLoops;
  em.outerLaneLoops += sub.outerLaneLoops;
  em.fusedFolds += sub.fusedFolds;
  em.buildsInPlace += sub.buildsInPlace;
  for (const body of sub.stepping.loops) em.stepping.loops.add(body);
  em.savedCount = Math.max(em.savedCount, sub.savedCount);
}
