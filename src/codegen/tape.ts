// Tapes in compiled code (src/prims/tape.ts): a tape is used linearly, so one mutable stack stands for all its versions
// and `tapePush` / `tapePop` update it in place. A value is pushed slot by slot (leaves.ts): numbers (Index, Double,
// a Bool as 0/1, array offsets and dimensions) onto a growable Float64Array, array data and tapes onto an array of
// objects; a pop takes the slots back in the opposite order. The optimiser may leave a tape version used twice (see
// src/lowering/ownership.ts): an operation on a tape something else still holds works on a copy.

import type { Prim } from "../ir/ir.js";
import type { Type } from "../types/types.js";
import type { Emitter, Slots } from "./emit.js";
import { leavesOf } from "../lowering/leaves.js";
import { slotNames } from "./writer.js";

/** The runtime stack behind a tape. */
export class Tape {
  private numbers: Float64Array;
  private top = 0;
  private readonly objects: unknown[] = [];
  private objectTop = 0;

  constructor(capacity: number) {
    this.numbers = new Float64Array(Math.max(16, capacity));
  }

  pushNumber(x: number): void {
    if (this.top === this.numbers.length) {
      const bigger = new Float64Array(this.numbers.length * 2);
      bigger.set(this.numbers);
      this.numbers = bigger;
    }
    this.numbers[this.top++] = x;
  }

  pushObject(x: unknown): void {
    this.objects[this.objectTop++] = x;
  }

  /** A tape holding the same values, changed apart from this one (the objects are shared, never changed by a tape). */
  copy(): Tape {
    const t = new Tape(this.top);
    t.numbers.set(this.numbers.subarray(0, this.top));
    t.top = this.top;
    for (let k = 0; k < this.objectTop; k++) t.objects.push(this.objects[k]);
    t.objectTop = this.objectTop;
    return t;
  }

  popNumber(): number {
    return this.numbers[--this.top]!;
  }

  popObject(): unknown {
    const x = this.objects[--this.objectTop];
    this.objects[this.objectTop] = undefined; // nothing kept alive by the tape once popped
    return x;
  }
}

/** How each slot of a value of type `t` travels on a tape. */
function slotKinds(t: Type): ("number" | "bool" | "object")[] {
  return leavesOf(t).flatMap((l): ("number" | "bool" | "object")[] => {
    if (l.rank > 0) return ["object", "number", ...new Array<"number">(l.rank).fill("number")];
    return [l.kind === "bool" ? "bool" : l.kind === "tape" ? "object" : "number"];
  });
}

/** The tape `e` pushes on or pops from: its operand when ownership.ts allows changing it, else a copy of it. */
function owned(em: Emitter, e: Prim): string {
  const tape = em.atom(e.args[0]!)[0]!;
  return em.inPlace.has(e) ? tape : copyTape(em, tape);
}

/** Emits a copy of the tape in slot `tape`; returns the copy's slot. */
export function copyTape(em: Emitter, tape: string): string {
  const name = em.fresh();
  em.out.line(`const ${name} = ${tape}.copy();`);
  return name;
}

/** newTape, tapePush, tapePop: statements, and the slots of the result. */
export function emitTapeOp(em: Emitter, e: Prim, base: string): Slots {
  switch (e.op) {
    case "newTape": {
      em.out.line(`const ${base} = $rt.newTape(${em.atom(e.args[0]!)[0]!});`);
      return [base];
    }
    case "tapePush": {
      const tape = owned(em, e);
      const value = e.args[1]!;
      const slots = em.atom(value);
      const pushes = slotKinds(value.type).map((kind, q) => {
        const s = slots[q]!;
        if (kind === "object") return `${tape}.pushObject(${s});`;
        return `${tape}.pushNumber(${kind === "bool" ? `${s} ? 1 : 0` : s});`;
      });
      if (pushes.length > 0) em.out.line(pushes.join(" "));
      return [tape];
    }
    case "tapePop": {
      const tape = owned(em, e);
      if (e.type.k !== "tuple") throw new Error("codegen: tapePop without a pair type");
      const popped = e.type.elems[0]!;
      const names = slotNames(base, popped);
      const kinds = slotKinds(popped);
      for (let q = kinds.length - 1; q >= 0; q--) {
        const kind = kinds[q]!;
        const from = kind === "object" ? `${tape}.popObject()` : `${tape}.popNumber()`;
        em.out.line(`const ${names[q]} = ${kind === "bool" ? `${from} !== 0` : from};`);
      }
      em.markDimensions(names, popped);
      return [...names, tape];
    }
    default:
      throw new Error(`codegen: ${e.op} is not a tape operation`);
  }
}
