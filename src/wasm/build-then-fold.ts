// A fold of an array right after its build, over the same count, runs in the build's loop: each element is added to
// the fold as it is written (softmax, logsumexp's gradient), the same additions in the same order as the two loops.

import type { Atom, Let } from "../ir/ir.js";
import { emitBuild, takesFold, type ElementFold } from "./build.js";
import type { Code } from "./encoder.js";
import type { WasmEmitter } from "./emit.js";
import { extractLane, op, type OpName } from "./instructions.js";
import { laneCount } from "./simd.js";
import { slotCode } from "./slots.js";

/** The operators of a fold that ./build.ts can run as the array it reads is written. */
const FOLDS: ReadonlySet<string> = new Set(["add", "mul", "max", "min"]);

/**
 * `let xs = build n f in let s = ifold (fun a i -> a ⊕ xs[i]) z n` (⊕ one of + * max min): one loop that writes each
 * element and adds it to the fold, in the same order as the two loops (so bit for bit; softmax, logsumexp's
 * gradient). True when written so.
 */
export function buildThenFold(em: WasmEmitter, first: Let, second: Let): boolean {
  const xs = first.v;
  const build = first.rhs;
  const fold = second.rhs;
  if (build.kind !== "build" || fold.kind !== "ifold" || fold.acc.type.k !== "double" || !takesFold(build))
    return false;
  const sameCount =
    (build.size.kind === "var" && fold.count.kind === "var" && build.size.id === fold.count.id) ||
    (build.size.kind === "lit" && fold.count.kind === "lit" && build.size.value === fold.count.value);
  if (!sameCount) return false;
  // The step: `let x = xs[i] in a ⊕ x` (or with the result named).
  let body = fold.body;
  if (body.kind !== "let" || body.rhs.kind !== "prim" || body.rhs.op !== "get") return false;
  const [array, index] = body.rhs.args as [Atom, Atom];
  if (array.kind !== "var" || array.id !== xs.id || index.kind !== "var" || index.id !== fold.index.id) return false;
  const x = body.v;
  body = body.body;
  if (body.kind === "let" && body.body.kind === "var" && body.body.id === body.v.id) body = body.rhs;
  if (body.kind !== "prim" || !FOLDS.has(body.op) || body.tangent !== undefined) return false;
  const [p, q] = body.args as [Atom, Atom];
  const isAcc = (a: Atom) => a.kind === "var" && a.id === fold.acc.id;
  const isX = (a: Atom) => a.kind === "var" && a.id === x.id;
  if (!((isAcc(p) && isX(q)) || (isX(p) && isAcc(q)))) return false;
  const accFirst = isAcc(p);
  const step = `${em.real}.${body.op}` as OpName;
  const acc = em.define(em.real, slotCode(em.atom(fold.init)[0]!));
  const add = (value: Code) => em.set(acc, accFirst ? op(step, slotCode(acc), value) : op(step, value, slotCode(acc)));
  const shape = em.real === "f64" ? "f64x2" : "f32x4";
  const taken: ElementFold = {
    scalar: (value) => add(slotCode(value)),
    lanes: ([values]) => {
      for (let lane = 0; lane < laneCount(em.real); lane++) add(extractLane(shape, values!, lane));
    },
    idempotent: body.op === "max" || body.op === "min",
  };
  em.bind(xs, emitBuild(em, build, taken));
  em.fusedFolds++;
  em.checkCount(em.atom(fold.count)[0]!, "ifold count", fold.span);
  em.bind(second.v, [acc]);
  return true;
}
