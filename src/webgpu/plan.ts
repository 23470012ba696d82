// What the host runs for one call of a compiled program: a list of steps (host arithmetic on the values it knows,
// allocations it makes, kernels it dispatches), the kernels' WGSL, and where each slot of the result is found. Made
// by ./serial.ts (the whole function as one kernel on one thread) or ./parallel.ts (kernels per top-level loop).

import type { Type } from "../types/types.js";
import type { ScalarKind } from "../runtime/value.js";
import type { ErrorSite } from "./control.js";
import { leavesOf } from "../lowering/leaves.js";

/** Where a slot's value is at the end of a call. */
export type SlotSource =
  | { readonly from: "env"; readonly at: number }
  | { readonly from: "param"; readonly at: number }
  | { readonly from: "literal"; readonly value: number | boolean };

export interface KernelInfo {
  readonly wgsl: string;
  /** What it computes, for `inspect` ("elementwise build of 3 leaves", "one thread: the whole function"). */
  readonly what: string;
}

/**
 * The host's values during a call: the parameter words the kernels read (P), as numbers (Index, Bool, Double), and
 * the commands it puts between kernels, in order.
 */
export interface HostState {
  readonly values: number[];
  /** Allocates `words` words in the heap's host region; the word address. */
  allocate(words: number): number;
  /** Sets words [at, at + n) to zero (a command, after the kernels dispatched so far). */
  clear(at: number, words: number): void;
  /** Copies n words from `from` to `to` (a command, after the kernels dispatched so far). */
  copy(from: number, to: number, words: number): void;
}

/**
 * Thrown by a host step whose arithmetic fails (a shape check, an Index division by zero): the call is run again by
 * the sequential plan, which finds the program's first error in order.
 */
export class HostFailure extends Error {}

export type Step =
  | { readonly kind: "host"; readonly run: (h: HostState) => void }
  | {
      readonly kind: "dispatch";
      readonly kernel: number;
      /** The workgroups to dispatch (x, y, z); none when any is 0. */
      readonly groups: (h: HostState) => readonly [number, number, number];
    }
  | {
      readonly kind: "if";
      readonly cond: (h: HostState) => boolean;
      readonly then: readonly Step[];
      readonly else: readonly Step[];
    };

export interface Plan {
  readonly kernels: readonly KernelInfo[];
  readonly steps: readonly Step[];
  /** Parameter words: the arguments' slots first (offsets are 0 and have none), then host values. */
  readonly paramCount: number;
  /** The parameter word of each slot of the arguments, in order (none for offsets: an argument's arrays are whole). */
  readonly argParams: readonly (number | undefined)[];
  /** The kind of each parameter word (Doubles are float32 bits, Indexes and Bools i32). */
  readonly paramKinds: readonly ScalarKind[];
  readonly envCount: number;
  readonly result: readonly SlotSource[];
  readonly resultType: Type;
  readonly paramTypes: readonly Type[];
  readonly sites: readonly ErrorSite[];
}

/** The kind of each slot of a value of type `t` (array slots — data, offset, dimensions — are Indexes). */
export function slotKinds(t: Type): ScalarKind[] {
  return leavesOf(t).flatMap((l) => {
    if (l.kind === "tape") throw new Error("webgpu: a tape slot");
    return l.rank === 0 ? [l.kind] : new Array<ScalarKind>(l.rank + 2).fill("int");
  });
}

/** The positions of the offset slots of a value of type `t` (an argument's arrays are whole: offset 0). */
export function offsetPositions(t: Type): Set<number> {
  const out = new Set<number>();
  let at = 0;
  for (const l of leavesOf(t)) {
    if (l.rank > 0) out.add(at + 1);
    at += l.rank === 0 ? 1 : l.rank + 2;
  }
  return out;
}
