// Deferred numeric constraints: an operator whose operand types are not yet known when it is checked.
//
// At the end of a top-level definition the constraints are solved, most certain first:
//  1. both operand types known: Index with Index gives Index, anything with a Double gives Double;
//  2. an arithmetic result that must be an Index (it is used as an index or size) makes both operands Index;
//  3. otherwise, one known side K and one unknown side U: in arithmetic U becomes Double (`v[i] * i` with v unknown
//     reads v as a Vector: arrays of numbers are Vectors unless something says otherwise); in a comparison U becomes K
//     (`if i = j` with j an Index makes i an Index);
//  4. otherwise both sides (and an arithmetic result) are one type, which stays polymorphic (`fun a b -> a + b`).

import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { M_DOUBLE, M_INDEX, prune, TypeNamer, unifyRaw, UnifyError, type MType } from "./mtype.js";

export interface NumericConstraint {
  readonly kind: "arith" | "compare";
  readonly a: MType;
  readonly b: MType;
  /** The operator's result type (Bool for a comparison). */
  readonly result: MType;
  readonly op: string;
  readonly span: Span;
  readonly leftSpan: Span;
  readonly rightSpan: Span;
}

const known = (t: MType) => prune(t).k !== "tvar";

export class NumericConstraints {
  private pending: NumericConstraint[] = [];

  defer(c: NumericConstraint): void {
    this.pending.push(c);
  }

  resolve(): void {
    while (this.pending.length > 0) {
      if (this.step()) continue;
      const c = this.pending.find((x) => known(x.a) !== known(x.b));
      if (c) {
        const [unknownSide, knownSide, span] = known(c.a) ? [c.b, c.a, c.rightSpan] : [c.a, c.b, c.leftSpan];
        unify(unknownSide, c.kind === "arith" ? M_DOUBLE : prune(knownSide), span, c);
        continue;
      }
      // Rule 4: nothing is known; the operands (and an arithmetic result) are one type and the constraint is solved.
      // That binds variables to variables, which decides nothing for rules 1-3: the constraints after it are solved
      // the same way, in order, without looking at all of them again (a sum of 10⁴ untyped terms was quadratic),
      // until one binds a variable to its known result type.
      let solved = 0;
      for (;;) {
        const first = this.pending[solved++]!;
        const resultKnown = first.kind === "arith" && known(first.result);
        unify(first.b, first.a, first.rightSpan, first);
        if (first.kind === "arith") unify(first.result, first.a, first.span, first);
        if (resultKnown || solved === this.pending.length) break;
      }
      this.pending = this.pending.slice(solved);
    }
  }

  /** Applies rules 1 and 2 to every constraint they decide; true if any was decided. */
  private step(): boolean {
    let progress = false;
    this.pending = this.pending.filter((c) => {
      const a = prune(c.a);
      const b = prune(c.b);
      if (a.k !== "tvar" && b.k !== "tvar") {
        // An Index result already known to be used as a Double is promoted (the lowering inserts the conversion).
        const join = a.k === b.k ? a : M_DOUBLE;
        if (c.kind === "arith" && !(join.k === "int" && prune(c.result).k === "double"))
          unify(c.result, join, c.span, c);
        progress = true;
        return false;
      }
      if (c.kind === "arith" && prune(c.result).k === "int") {
        unify(c.a, M_INDEX, c.leftSpan, c);
        unify(c.b, M_INDEX, c.rightSpan, c);
        progress = true;
        return false;
      }
      return true;
    });
    return progress;
  }
}

function unify(t: MType, want: MType, span: Span, c: NumericConstraint): void {
  try {
    unifyRaw(t, want);
  } catch (e) {
    if (!(e instanceof UnifyError)) throw e;
    const names = new TypeNamer();
    const what =
      c.kind === "arith" && prune(c.result).k === "int"
        ? `\`${c.op}\` gives a Double here, but its result is used where an Index is needed`
        : `the operands of \`${c.op}\` have incompatible types`;
    fail("type", what, span, { expected: names.show(want), found: names.show(t) });
  }
}
