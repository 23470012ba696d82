// Passes are values and pipelines are lists of them: each pass maps a function to a function in the same IR, so any
// sequence composes. A program's first-order functions (recursion) go through every pass like its entry does.
// `runPipeline` can verify the IR after every pass (tests always do) and trace each result
// (`smooth dev --passes a,b,c` prints them).

import { forEachNode } from "../ir/free.js";
import type { IrFunction } from "../ir/ir.js";
import { verify } from "../ir/verify.js";
import { timed } from "./stage-times.js";

export interface Pass {
  readonly name: string;
  run(fn: IrFunction): IrFunction;
  /**
   * The pass transforms a whole program (the entry and its `functions`, which it may add to). Otherwise `run` sees
   * one function at a time, and `runPass` runs it on the entry and on each of its functions.
   */
  readonly wholeProgram?: boolean;
}

/** Runs `pass` on a program: the entry function and each of the program's functions (src/ir/ir.ts `functions`). */
export function runPass(pass: Pass, fn: IrFunction): IrFunction {
  if (fn.functions === undefined || fn.functions.length === 0) return pass.run(fn);
  if (pass.wholeProgram === true) return withoutUnusedFunctions(pass.run(fn));
  const { functions, ...entry } = fn;
  return withoutUnusedFunctions({ ...pass.run(entry), functions: functions.map((f) => pass.run(f)) });
}

/** The program without the functions no call reaches from its entry (inlined, or dead code removed). */
export function withoutUnusedFunctions(fn: IrFunction): IrFunction {
  const { functions, ...entry } = fn;
  if (functions === undefined) return fn;
  const byName = new Map(functions.map((f) => [f.name, f]));
  const reached = new Set<string>();
  const work: IrFunction[] = [entry];
  while (work.length > 0) {
    forEachNode(work.pop()!.body, (e) => {
      if (e.kind !== "call" || reached.has(e.fn)) return;
      reached.add(e.fn);
      const f = byName.get(e.fn);
      if (f !== undefined) work.push(f);
    });
  }
  const kept = functions.filter((f) => reached.has(f.name));
  return kept.length > 0 ? { ...entry, functions: kept } : entry;
}

export type Pipeline = readonly Pass[];

export interface RunOptions {
  /** Check the IR invariants on the input and after every pass. */
  readonly verify?: boolean;
  /** Called with each pass's name and result, in order. */
  readonly trace?: (passName: string, fn: IrFunction) => void;
}

export function runPipeline(fn: IrFunction, passes: Pipeline, opts: RunOptions = {}): IrFunction {
  if (opts.verify) verifyAfter("(input)", fn);
  for (const pass of passes) {
    const input = fn;
    fn = timed(pass.name, () => runPass(pass, input));
    if (opts.verify) verifyAfter(pass.name, fn);
    opts.trace?.(pass.name, fn);
  }
  return fn;
}

function verifyAfter(passName: string, fn: IrFunction): void {
  try {
    verify(fn);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`after pass ${passName}, in function ${fn.name}: ${message}`, { cause: e });
  }
}
