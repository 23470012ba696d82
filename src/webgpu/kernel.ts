// One kernel as a WGSL module: the three bindings every kernel has (the heap `H`, the control words `C`, the host's
// parameters `P`), the allocator, the helpers its code calls, and its entry point `main`.
//
//   H  storage, read_write: array<u32> (array<atomic<u32>> in a kernel whose threads add into shared arrays)
//   C  storage, read_write: array<atomic<u32>>, the control words and the values kernels pass on (./control.ts)
//   P  storage, read: array<u32>, the values the host knows (arguments, sizes, addresses of its allocations)

import { CONTROL, ENV } from "./control.js";
import { guardLoops } from "./loop-guard.js";
import type { WgslEmitter } from "./emit.js";
import { fromWord, HELPERS, SPECIAL_VALUES, toWord, type HelperName } from "./wgsl.js";
import type { ScalarKind } from "../runtime/value.js";

/** What a kernel's entry point is: its workgroup size and how threads find their element. */
export interface EntryPoint {
  readonly workgroupSize: readonly [number, number, number];
  /** The entry point's parameters (builtins), e.g. `@builtin(global_invocation_id) gid: vec3u`. */
  readonly builtins: string;
  /** Whether the kernel must not return before its barriers (a workgroup reduction or a tiled product). */
  readonly uniform?: boolean;
}

export const ONE_THREAD: EntryPoint = { workgroupSize: [1, 1, 1], builtins: "" };

const ALLOC = `fn alloc(n: i32) -> i32 {
  if (n < 0) { atomicStore(&C[${CONTROL.outOfHeap}], 1u); return -1; }
  let old = atomicSub(&C[${CONTROL.top}], u32(n));
  if (old < u32(n) || old - u32(n) < atomicLoad(&C[${CONTROL.floor}])) {
    atomicStore(&C[${CONTROL.outOfHeap}], 1u);
    return -1;
  }
  return i32(old - u32(n));
}`;

const ATOMIC_ADD_F32 = `fn atomic_add_f32(at: i32, v: f32) {
  var old = atomicLoad(&H[at]);
  loop {
    let r = atomicCompareExchangeWeak(&H[at], old, bitcast<u32>(bitcast<f32>(old) + v));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}`;

/** The WGSL module of a kernel whose body `em` wrote (plus declarations written before the entry point). */
export function kernelModule(em: WgslEmitter, entry: EntryPoint, extra: readonly string[] = []): string {
  const heap = em.heap === "atomic" ? "array<atomic<u32>>" : "array<u32>";
  const helpers = [...em.helpers].sort().map((h: HelperName) => HELPERS[h]);
  const [x, y, z] = entry.workgroupSize;
  const guard = `  if (atomicLoad(&C[${CONTROL.site}]) != 0u || atomicLoad(&C[${CONTROL.outOfHeap}]) != 0u || atomicLoad(&C[${CONTROL.parallelFailure}]) != 0u) { return; }`;
  const code = [
    ALLOC,
    ...(em.heap === "atomic" ? [ATOMIC_ADD_F32] : []),
    ...helpers,
    ...extra,
    "",
    `@compute @workgroup_size(${x}, ${y}, ${z})`,
    `fn main(${entry.builtins}) {`,
    ...(entry.uniform === true ? [] : [guard]),
    em.out.text(),
    "}",
    "",
  ].join("\n");
  return [
    `@group(0) @binding(0) var<storage, read_write> H: ${heap};`,
    "@group(0) @binding(1) var<storage, read_write> C: array<atomic<u32>>;",
    "@group(0) @binding(2) var<storage, read> P: array<u32>;",
    SPECIAL_VALUES,
    "",
    guardLoops(code),
  ].join("\n");
}

/** A host parameter as a value of `kind` (slots of arrays are i32). */
export const param = (k: number, kind: ScalarKind): string => fromWord(kind, `P[${k}]`);

/** Passes a value on through the control words' environment. */
export const envStore = (k: number, kind: ScalarKind, value: string): string =>
  `atomicStore(&C[${ENV + k}], ${toWord(kind, value)});`;

/** A value passed on through the environment. */
export const envLoad = (k: number, kind: ScalarKind): string => fromWord(kind, `atomicLoad(&C[${ENV + k}])`);
