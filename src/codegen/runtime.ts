// `$rt`: the helpers generated code calls. Hot loops call none of them except `copy` (an array element copied into a
// build's buffer); the rest convert arguments and results, or raise the errors the interpreter raises, with the same
// kinds, messages and spans (the spans come from the closure array `$spans`, never from program text).

import { arrayTooLarge, MAX_CALL_DEPTH_COMPILED, recursionTooDeep } from "../runtime/limits.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { checkpointSlots, indexOutOfRange, intDiv, intPow, sizesDiffer, toIndex } from "../prims/table.js";
import { irregularBuild, negativeLoopCount, shapeOf } from "../runtime/stack.js";
import type { FlatData, Value } from "../runtime/value.js";
import { elemKind, leavesOf, slotsToValue, valueToSlots, type Slot } from "../lowering/leaves.js";
import { addShapeError, updateShapeError } from "../runtime/update.js";
import { Arena } from "./arena.js";
import { Tape } from "./tape.js";

function unpackArgs(given: readonly Value[], paramTypes: readonly Type[]): Slot[] {
  const args: readonly Value[] = given;
  if (!Array.isArray(given) || args.length !== paramTypes.length) {
    fail("argument", `expected ${paramTypes.length} argument(s), got ${Array.isArray(args) ? args.length : "no list"}`);
  }
  const out: Slot[] = [];
  for (let i = 0; i < paramTypes.length; i++) valueToSlots(args[i]!, paramTypes[i]!, out, `argument ${i}`);
  return out;
}

/**
 * The irregular-build error of src/runtime/stack.ts. Compiled code does not keep element values, only their
 * dimensions: `first` and `found` list, for elements of type Array^common<U>, the `common` leading dimensions and then
 * the dimensions of each array leaf of U, in leaf order. They are turned back into (empty) values of the element type
 * so that the shapes are described by stack.ts itself.
 */
function irregular(
  span: Span | undefined,
  elemType: Type,
  common: number,
  index: number,
  first: readonly number[],
  found: readonly number[],
): never {
  const shape = (dims: readonly number[]) => shapeOf(emptyValueWithDims(elemType, common, dims));
  return irregularBuild(index, shape(first), shape(found), span);
}

// A value of type `elemType` = Array^common<U> whose leaves have the given dimensions and no data (only its shape is
// ever looked at).
function emptyValueWithDims(elemType: Type, common: number, dims: readonly number[]): Value {
  const slots: Slot[] = [];
  const lead = dims.slice(0, common);
  let at = common;
  for (const leaf of leavesOf(elemType)) {
    const own = leaf.rank - common;
    if (leaf.rank === 0) {
      slots.push(leaf.kind === "bool" ? false : 0);
      continue;
    }
    slots.push(EMPTY[elemKind(leaf)], 0, ...lead, ...dims.slice(at, at + own));
    at += own;
  }
  return slotsToValue(slots, elemType);
}

const EMPTY = { double: new Float64Array(0), int: new Int32Array(0), bool: new Uint8Array(0) } as const;

/**
 * Copies an array element into a build's buffer. The count is clipped to the buffer: only an irregular build (whose
 * error is raised when its loop ends, as the interpreter does) can ask for more.
 */
function copy(dst: FlatData, at: number, src: FlatData, from: number, n: number): void {
  if (at + n > dst.length) n = dst.length - at;
  if (n <= 0) return;
  // A loop up to a few thousand elements: `set` needs a `subarray` object per call.
  if (n < 4096) {
    for (let q = 0; q < n; q++) dst[at + q] = src[from + q]!;
  } else {
    dst.set(src.subarray(from, from + n), at);
  }
}

/**
 * Runs a compiled function's generator (./functions.ts) and every call it makes, on a stack of generators: a call is
 * `yield` of the callee's generator, which runs to completion (leaving its result in the registers) before its caller
 * resumes. The JavaScript stack stays flat however deep the recursion; `below` calls are pending on it already, and
 * past MAX_CALL_DEPTH_COMPILED pending calls in all the recursion is an error at `span` (a recursive call of the
 * function), not an exhausted heap.
 */
function drive(first: Generator<Generator<unknown>, void>, below: number, span: Span | undefined): void {
  const stack: Generator<Generator<unknown>, void>[] = [first];
  const most = MAX_CALL_DEPTH_COMPILED - below;
  let top = first;
  for (;;) {
    const step = top.next();
    if (step.done === true) {
      stack.pop();
      if (stack.length === 0) return;
      top = stack[stack.length - 1]!;
    } else {
      if (stack.length >= most) recursionTooDeep(span);
      top = step.value as Generator<Generator<unknown>, void>;
      stack.push(top);
    }
  }
}

export const RUNTIME = {
  intDiv,
  toIndex,
  checkpointSlots,
  intPow,
  indexOutOfRange,
  sizesDiffer,
  badCount: (what: "build size" | "ifold count", n: number, span: Span | undefined): never =>
    n < 0 ? negativeLoopCount(what, n, span) : arrayTooLarge("a build", n, span),
  irregular,
  noError: (): never => {
    throw new Error("compiled code left its body without a result or an error");
  },
  copy,
  addShapeError,
  updateShapeError,
  unpackArgs,
  /**
   * The result's value; its arrays are copied out of the call's arena (./arena.ts), which the next call reuses, unless
   * the caller borrows the result.
   */
  packResult: (slots: readonly Slot[], t: Type, arena: Arena): Value =>
    slotsToValue(
      arena.borrowed ? slots : slots.map((s) => (ArrayBuffer.isView(s) ? arena.detach(s as Float64Array) : s)),
      t,
    ),
  newArena: (): Arena => new Arena(),
  isStackOverflow: (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message),
  newTape: (capacity: number): Tape => new Tape(capacity),
  drive,
  emptyF64: EMPTY.double,
  emptyI32: EMPTY.int,
  emptyU8: EMPTY.bool,
};

export type Runtime = typeof RUNTIME;
