// Tapes: the stack reverse mode keeps of what the reverse sweep of a recursive function needs
// (src/ad/reverse-functions.ts). A function's forward sweep pushes, its reverse sweep pops in the opposite order, so
// any call tree uses one tape in LIFO order.
//
//   newTape n        an empty tape (n: a hint of how many values it will hold)
//   tapePush t x     t with x on top (x of any type without functions)
//   tapePop t        (x, t') where x was pushed last and t' is the tape below it; the node's type says x's type
//                    (written `(tapePop t : T * Tape)` in Smooth)
//
// A tape is used linearly (each version once), so compiled code keeps one mutable stack per tape (src/codegen/tape.ts);
// the interpreter keeps an immutable list: the empty tape is the empty tuple, t with x on top the pair (x, t).

import { fail } from "../syntax/diagnostics.js";
import { containsFun, TAPE, type Type } from "../types/types.js";
import { tuple, type Value } from "../runtime/value.js";
import type { PrimRule } from "./table.js";
import * as D from "../ad/derivatives.js";

const elemsOf = (t: Value): readonly Value[] => {
  if (typeof t !== "object" || t.tag !== "tuple") throw new Error("tape: not a tape");
  return t.elems;
};

// Never fail (pushes and pops pair up by construction), cost a push or a pop, and are about data, not numbers.
const TAPE_FACTS = { fails: "never", cost: "cheap", domain: "array" } as const;

export const TAPE_PRIMS = {
  newTape: {
    ...TAPE_FACTS,
    arity: 1,
    syntax: { prefix: "newTape" },
    derivative: D.STRUCTURAL,
    type: ([n]) => (n!.k === "int" ? TAPE : { expected: "an Index (how many values the tape will hold)" }),
    evaluate: () => tuple([]),
  },
  tapePush: {
    ...TAPE_FACTS,
    arity: 2,
    syntax: { prefix: "tapePush" },
    // A tape of duals for forward over reverse: what is pushed is the dual of what the primal pushes.
    derivative: D.STRUCTURAL,
    type: ([t, x]) => (t!.k === "tape" && !containsFun(x!) ? TAPE : { expected: "a tape and a value" }),
    evaluate: ([t, x]) => tuple([x!, t!]),
  },
  tapePop: {
    ...TAPE_FACTS,
    arity: 1,
    syntax: { prefix: "tapePop" },
    derivative: D.STRUCTURAL,
    type: () => ({ expected: "a tape; the type of what is popped is the node's own (`tapePop t : T * Tape`)" }),
    resultFromNode: ([t], result) =>
      t!.k === "tape" && result.k === "tuple" && result.elems.length === 2 && result.elems[1]!.k === "tape",
    // Pushes and pops pair up by construction (src/ad/reverse-functions.ts): an empty tape here is a compiler bug.
    evaluate: ([t]) => {
      const elems = elemsOf(t!);
      if (elems.length !== 2) return fail("unsupported", "internal: a pop from an empty tape");
      return tuple([elems[0]!, elems[1]!]);
    },
  },
} satisfies Record<string, PrimRule>;

/** The tape primitives: reverse mode cannot differentiate code that uses tapes (reverse over reverse). */
export const isTapeOp = (op: string): boolean => op === "newTape" || op === "tapePush" || op === "tapePop";

/** The type of `tapePop t` popping a value of type `t`. */
export const poppedType = (t: Type): Type => ({ k: "tuple", elems: [t, TAPE] });
