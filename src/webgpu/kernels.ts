// The kernels of the parallel plan (./parallel.ts), each a WGSL module over the shared bindings (./kernel.ts):
//
//   segment   one thread runs a stretch of the function's top level that has no parallel loop
//   map       a thread per element of a build (nested builds flattened: a thread per innermost element)
//   reduce    one workgroup sums (or takes the max or min of) a loop's terms: each thread a strided part, then a tree
//   scatter   a thread per iteration of an accumulation loop, adding into the shared accumulators atomically
//   move      one thread copies values into the environment (the result of a branch the host chose)
//
// Every kernel loads the variables it reads from where the plan keeps them (the host's parameters, the environment,
// literals) under the names the emitter gives them, so the emitter's bounds facts about names hold as in one thread.

import type { Var } from "../ir/ir.js";
import { slotNames, varName } from "../codegen/writer.js";
import type { ScalarKind } from "../runtime/value.js";
import { CONTROL } from "./control.js";
import { WgslEmitter, type HeapMode, type Slots } from "./emit.js";
import { envLoad, envStore, kernelModule, param, type EntryPoint } from "./kernel.js";
import { slotKinds, type SlotSource } from "./plan.js";
import { i32Literal, f32Literal } from "./wgsl.js";

/** Where each slot of a variable is. */
export type Loc = readonly SlotSource[];

/** The WGSL text of a literal slot of `kind`. */
export function literalText(value: number | boolean, kind: ScalarKind): string {
  if (kind === "bool") return value === true || value === 1 ? "true" : "false";
  return kind === "int" ? i32Literal(value as number) : f32Literal(value as number);
}

/** A new emitter for one kernel of the parallel plan: a failed check marks the run for the sequential rerun. */
export function kernelEmitter(heap: HeapMode = "plain"): WgslEmitter {
  return new WgslEmitter([], true, heap);
}

/** Binds `vars` in `em` to loads from their locations (literals inline). */
export function loadVars(em: WgslEmitter, vars: Iterable<Var>, locOf: (v: Var) => Loc): void {
  for (const v of vars) {
    if (em.isBound(v)) continue;
    const loc = locOf(v);
    const names = slotNames(varName(v.id), v.type);
    const kinds = slotKinds(v.type);
    const slots = names.map((name, i) => {
      const src = loc[i]!;
      if (src.from === "literal") return literalText(src.value, kinds[i]!);
      em.out.line(`let ${name} = ${src.from === "param" ? param(src.at, kinds[i]!) : envLoad(src.at, kinds[i]!)};`);
      return name;
    });
    em.bind(v, slots);
    em.markDimensions(slots, v.type);
  }
}

/** Stores `slots` (of a value of type kinds) into new environment words; their locations. */
export function storeEnv(em: WgslEmitter, slots: Slots, kinds: readonly ScalarKind[], env: () => number): Loc {
  return slots.map((s, i) => {
    const at = env();
    em.out.line(envStore(at, kinds[i]!, s));
    return { from: "env", at } as const;
  });
}

export const ONE: EntryPoint = { workgroupSize: [1, 1, 1], builtins: "" };

/** Threads per workgroup of a map or scatter kernel. */
export const GROUP = 64;

/** A thread per element: the element's linear index `g` (dispatched as 2-D past 65535 workgroups), below `total`. */
export const PER_ELEMENT: EntryPoint = {
  workgroupSize: [GROUP, 1, 1],
  builtins: "@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) groups: vec3u",
};

/** The first lines of a per-element kernel's body: `g`, and a return past `total`. */
export function elementIndex(em: WgslEmitter, total: string): string {
  em.out.line(`let g = i32(gid.x + gid.y * groups.x * ${GROUP}u);`);
  em.out.line(`if (g >= ${total}) { return; }`);
  return "g";
}

/** The workgroups that cover n elements, GROUP per workgroup (x at most 65535, the rest in y). */
export function groupsFor(n: number): [number, number, number] {
  if (n <= 0) return [0, 1, 1];
  const groups = Math.ceil(n / GROUP);
  const x = Math.min(groups, 65535);
  return [x, Math.ceil(groups / x), 1];
}

/** Threads in the workgroup of a reduction (128: the most every adapter allows, compatibility mode included). */
export const REDUCE_THREADS = 128;

export type ReduceOp = "add" | "max" | "min";

/**
 * A one-workgroup reduction: `term` (a function of the loop index, named `index`, whose body `em` wrote, returning the
 * term) over [0, count), combined with `init` by `op`; the result is stored at environment word `out`. `count` and
 * `init` are WGSL expressions the entry point can evaluate (literals, parameters, environment words).
 */
export function reduceModule(
  em: WgslEmitter,
  op: ReduceOp,
  index: string,
  count: string,
  init: string,
  out: number,
): string {
  const combine = (a: string, b: string) => (op === "add" ? `${a} + ${b}` : `js_${op}(${a}, ${b})`);
  if (op !== "add") em.use(`js_${op}`);
  const identity = op === "add" ? "0.0f" : op === "max" ? "(-bitcast<f32>(F32_INF))" : "bitcast<f32>(F32_INF)";
  const termFunction = [`fn term(${index}: i32) -> f32 {`, em.out.text(), "}"].join("\n");
  const body = new WgslEmitter([], true);
  const flags = [CONTROL.site, CONTROL.outOfHeap, CONTROL.parallelFailure]
    .map((c) => `atomicLoad(&C[${c}]) != 0u`)
    .join(" || ");
  for (const line of [
    "let t = i32(lid.x);",
    `let skip = ${flags};`,
    `var acc: f32 = ${identity};`,
    `if (!skip) { for (var i: i32 = t; i < ${count}; i += ${REDUCE_THREADS}) { acc = ${combine("acc", "term(i)")}; } }`,
    "partial[t] = acc;",
    "workgroupBarrier();",
    `for (var s: i32 = ${REDUCE_THREADS / 2}; s > 0; s = s >> 1u) {`,
    `  if (t < s) { partial[t] = ${combine("partial[t]", "partial[t + s]")}; }`,
    "  workgroupBarrier();",
    "}",
    `if (t == 0 && !skip) { ${envStore(out, "double", combine(init, "partial[0]"))} }`,
  ])
    body.out.line(line);
  for (const h of em.helpers) body.use(h);
  return kernelModule(
    body,
    { workgroupSize: [REDUCE_THREADS, 1, 1], builtins: "@builtin(local_invocation_id) lid: vec3u", uniform: true },
    [`var<workgroup> partial: array<f32, ${REDUCE_THREADS}>;`, termFunction],
  );
}
