// Occurrence analysis for rewrite rules: how each variable is used, computed once per simplifier iteration.

import { operands } from "../ir/free.js";
import type { Expr } from "../ir/ir.js";
import { compileWork } from "../ir/work.js";

export interface UseInfo {
  /** Uses as an operand anywhere. */
  total: number;
  /** Uses as the array of `get` (a[i]) or the operand of `length`: the uses pull-array fusion can remove. */
  asArray: number;
  /** Uses as the array of `get`. */
  gets: number;
  /**
   * Gets that read each element at most once per evaluation of the binding: at the binding's own loop depth, or in
   * exactly one loop entered after it whose index is the index of the get (the consumer's own loop).
   */
  getsOncePerElement: number;
  /**
   * Gets inside a loop entered after the binding whose index (the get's index) is the index of the innermost loop
   * around the get: the consumer walks the array with its innermost loop (../rules/transposed-view.ts).
   */
  getsInInnerLoop: number;
}

interface Frame {
  /** The index of the loop, or undefined for a lambda (called any number of times). */
  readonly index: number | undefined;
}

export function analyseUses(e: Expr): Map<number, UseInfo> {
  const info = new Map<number, UseInfo>();
  /** Loop depth at which each let-bound variable is bound. */
  const bindDepth = new Map<number, number>();
  const frames: Frame[] = [];
  /** Variables bound to `checkIndex j n`, with j: they index the same element as j. */
  const checked = new Map<number, number>();
  const entry = (id: number) => {
    let u = info.get(id);
    if (u === undefined)
      info.set(
        id,
        (u = {
          total: 0,
          asArray: 0,
          gets: 0,
          getsOncePerElement: 0,
          getsInInnerLoop: 0,
        }),
      );
    return u;
  };
  // An explicit stack: "leave" entries pop the loop frame after a nested body.
  const stack: (Expr | "leave")[] = [e];
  let visited = 0;
  while (stack.length > 0) {
    visited++;
    const node = stack.pop()!;
    if (node === "leave") {
      frames.pop();
      continue;
    }
    for (const a of operands(node)) if (a.kind === "var") entry(a.id).total++;
    switch (node.kind) {
      case "let":
        bindDepth.set(node.v.id, frames.length);
        if (node.rhs.kind === "prim" && node.rhs.op === "checkIndex" && node.rhs.args[0]!.kind === "var") {
          checked.set(node.v.id, node.rhs.args[0]!.id);
        }
        stack.push(node.body, node.rhs);
        continue;
      case "prim":
        if (node.op === "get" || node.op === "length") {
          const arr = node.args[0]!;
          if (arr.kind !== "var") break;
          const u = entry(arr.id);
          u.asArray++;
          if (node.op === "get") {
            u.gets++;
            const d0 = bindDepth.get(arr.id) ?? 0;
            const index = node.args[1]!;
            const indexId = index.kind === "var" ? (checked.get(index.id) ?? index.id) : undefined;
            const own = frames.length === d0 + 1 && indexId !== undefined && frames[d0]!.index === indexId;
            if (frames.length === d0 || own) u.getsOncePerElement++;
            if (frames.length > d0 && indexId !== undefined && frames[frames.length - 1]!.index === indexId)
              u.getsInInnerLoop++;
          }
        }
        break;
      case "if":
        stack.push(node.else, node.then);
        break;
      case "lam":
      case "build":
      case "ifold":
        frames.push({ index: node.kind === "lam" ? undefined : node.index.id });
        stack.push("leave", node.body);
        break;
      case "while":
        // Cond and body each run any number of times, with no index.
        frames.push({ index: undefined });
        stack.push("leave", node.body);
        frames.push({ index: undefined });
        stack.push("leave", node.cond);
        break;
      default:
        break;
    }
  }
  compileWork.nodes += visited;
  return info;
}
