// The reverse-mode derivatives of a program's function f, for a given set of active parameters (./reverse-calls.ts):
//
//   f_fwd (x1 ... xn) tape          = (f x1 ... xn, tape with what f_bwd reads pushed on top)
//   f_bwd ȳ (x̄i for active i) tape  = (x̄i + the adjoint of xi through f, for active i; tape with that popped)
//   f_vjp x1 ... xn ȳ (x̄i ...)      = f_fwd on a fresh tape, then f_bwd (for calls the taped sweep does not reach)
//
// f_fwd is f's primal with its own calls made through their f_fwd, the same tape threaded through them; at its end it
// pushes the values f_bwd reads (its parameters and lets that the reverse sweep uses), so they are on top when f_bwd
// starts by popping them. f_bwd is the reverse sweep of f's body (./reverse.ts), its own calls reversed by their
// f_bwd in the opposite order, with the adjoints of f's active parameters starting as the accumulators it is given.
// Both are memoised per function and set of active parameters, and named before they are made: they call themselves.

import { AnfBuilder } from "../ir/builder.js";
import { freeVars, someNode } from "../ir/free.js";
import { isTapeOp } from "../prims/tape.js";
import { freshVar, mkTuple, typeOf, type IrFunction, type Var } from "../ir/ir.js";
import { copyFunction } from "../ir/rename.js";
import { TAPE, tupleOf, type Type } from "../types/types.js";
import { materialize } from "./adjoints.js";
import type { ProgramFunctions } from "./functions.js";
import { popping, pushing, TapedSweep } from "./reverse-calls.js";
import { Reverse } from "./reverse.js";
import { rewriteSelectionFolds } from "./selection-folds.js";

export interface TapeFunctions {
  readonly fwd: string;
  readonly bwd: string;
  readonly fwdType: Type;
  readonly bwdType: Type;
}

const maskKey = (name: string, mask: readonly boolean[]) => `${name}|${mask.map((m) => (m ? 1 : 0)).join("")}`;

/** f_fwd and f_bwd of function `name` with the parameters where `mask` is true active (made on first use). */
export function tapeFunctions(table: ProgramFunctions, name: string, mask: readonly boolean[]): TapeFunctions {
  const key = `tape:${maskKey(name, mask)}`;
  const have = table.memo.get(key) as TapeFunctions | undefined;
  if (have !== undefined) return have;
  const f = copyFunction(table.get(name));
  // Pushes would be inactive and their values' adjoints lost: reverseSweep refuses such code before (reachesTapes).
  if (someNode(f.body, (e) => e.kind === "prim" && isTapeOp(e.op)))
    throw new Error(`reverse: \`${name}\` keeps a tape, which reverse mode does not reverse`);
  const active = f.params.filter((_, i) => mask[i]);
  const accTypes = active.map((p) => p.type);
  const names: TapeFunctions = {
    fwd: table.reserve(`${name}_fwd`),
    bwd: table.reserve(`${name}_bwd`),
    fwdType: tupleOf([typeOf(f.body), TAPE]),
    bwdType: tupleOf([...accTypes, TAPE]),
  };
  table.memo.set(key, names);

  const r = new Reverse();
  r.functions = table;
  for (const p of active) r.active.add(p.id);
  const tapeIn = freshVar("tape", TAPE);
  const sweep = new TapedSweep(r, table, tapeIn);
  const forward = new AnfBuilder();
  const { steps, result } = sweep.forward(rewriteSelectionFolds(f.body), forward);

  // f_bwd: the adjoints start as the accumulators; the tape as it is once f's own residuals are popped.
  const ct = freshVar("ct", typeOf(f.body));
  const accs = active.map((p) => freshVar(`d${p.name}`, p.type));
  const bwdTape = freshVar("tape", TAPE);
  const popped = freshVar("tape", TAPE);
  const backward = new AnfBuilder();
  sweep.tapeB = popped;
  active.forEach((p, k) => r.setAdjoint(p, accs[k]!));
  r.contribute(result, ct, backward);
  sweep.backward(steps, backward);
  const outs = active.map((p) => materialize(r.adjointOf(p), p.type, p, backward));
  const bwdBody = backward.finish(mkTuple([...outs, sweep.tapeB]));
  // What f_bwd reads of f_fwd's values (its parameters, its top-level lets) is pushed last and popped first.
  const own = new Set([ct, ...accs, popped].map((v) => v.id));
  const residuals: Var[] = [...freeVars(bwdBody).values()].filter((v) => !own.has(v.id));
  const end = freshVar("tape", TAPE);
  for (const bd of pushing(residuals, sweep.tapeF, end)) forward.bindVar(bd.v, bd.rhs);
  const fwdBody = sweep.finish(forward.finish(mkTuple([result, end])));

  const span = f.span ? { span: f.span } : {};
  table.define({ name: names.fwd, params: [...f.params, tapeIn], body: fwdBody, ...span });
  table.define({
    name: names.bwd,
    params: [ct, ...accs, bwdTape],
    body: popping(residuals, bwdTape, popped, bwdBody),
    owned: [false, ...accs.map(() => true), false],
    ownedResults: [...accs.map(() => true), false],
    ...span,
  });
  return names;
}

/**
 * f_vjp of function `name` for the active parameters `mask`: (x1 ... xn, ȳ, x̄i ...) -> the x̄i (a tuple if several).
 */
export function vjpFunction(
  table: ProgramFunctions,
  name: string,
  mask: readonly boolean[],
): { name: string; type: Type } {
  const key = `vjp:${maskKey(name, mask)}`;
  const have = table.memo.get(key) as { name: string; type: Type } | undefined;
  if (have !== undefined) return have;
  const { fwd, bwd, fwdType, bwdType } = tapeFunctions(table, name, mask);
  const f = table.get(name);
  const params = f.params.map((p) => freshVar(p.name, p.type));
  const active = params.filter((_, i) => mask[i]);
  const ct = freshVar("ct", typeOf(f.body));
  const accs = active.map((p) => freshVar(`d${p.name}`, p.type));
  const b = new AnfBuilder();
  const tape = b.prim("newTape", [{ kind: "lit", value: 0, type: { k: "int" } }], "tape");
  const y = b.bind("y", { kind: "call", fn: fwd, args: [...params, tape], type: fwdType });
  const out = b.bind("d", { kind: "call", fn: bwd, args: [ct, ...accs, b.proj(1, y, "tape")], type: bwdType });
  const adjoints = accs.map((_, k) => b.proj(k, out, `d${active[k]!.name}`));
  const result = adjoints.length === 1 ? adjoints[0]! : b.tuple(adjoints, "d");
  const type = adjoints.length === 1 ? accs[0]!.type : tupleOf(accs.map((a) => a.type));
  const vjp: IrFunction = {
    name: table.reserve(`${name}_vjp`),
    params: [...params, ct, ...accs],
    body: b.finish(result),
    owned: [...params.map(() => false), false, ...accs.map(() => true)],
    ownedResults: accs.map(() => true),
    ...(f.span ? { span: f.span } : {}),
  };
  table.define(vjp);
  const made = { name: vjp.name, type };
  table.memo.set(key, made);
  return made;
}
