// Bounds facts: what a compiled back end knows, while it writes a function, about the Index values in its slots
// (./leaves.ts), so that it can leave out index checks that cannot fail and size checks that cannot see a negative:
//
//   - a loop variable lies in [0, bound) (the index of a build or ifold, over its count);
//   - so do `last - k` with last = bound - 1 and k a loop variable over [0, bound), and `i + 1` lies in
//     [0, bound + 1) when a slot holds bound + 1 (the index arithmetic of reverse sweeps);
//   - a dimension of an array is never negative;
//   - a check made earlier in a block that is still open holds for the rest of that block (a failed check leaves the
//     function, and slots are assigned once, or only at the end of the loop body that declares them).
//
// Facts are keyed by slot text: a local's name, or a literal, which `indexLiteral` (the back end's) reads back. The
// back end asks `indexCheck(i, n)` before reading element i of an array of length n and writes what it answers.

/** The blocks of the code being written: the innermost open one, and whether a block is still open. */
export interface Blocks {
  readonly scope: number;
  isOpen(id: number): boolean;
}

/** Which part of `0 <= i < n` an index needs checked: none, only `i < n` (i is never negative), or both. */
export type IndexCheck = "none" | "upper" | "both";

export class BoundsFacts {
  /** Loop variable -> its loop's bound: the variable lies in [0, bound). */
  private readonly loopBounds = new Map<string, string>();
  /** Locals that only ever hold array dimensions, so are never negative. */
  private readonly dimensions = new Set<string>();
  /** Slots never above a literal (`min 8 m`), with that literal. */
  private readonly upperBounds = new Map<string, number>();
  /** Slots holding `x - 1` and `x + 1` (Index), by x. */
  private readonly minusOne = new Map<string, string>();
  private readonly plusOne = new Map<string, string>();
  /** Checks already made, with the block they were made in. */
  private readonly checked = new Map<string, number>();
  /** Sizes a shape check (`sameSize`) has found equal, with the block it was made in. */
  private readonly equalSized = new Map<string, number>();

  constructor(
    private readonly blocks: Blocks,
    /** The value of a slot that is a non-negative Index literal, else undefined. */
    private readonly indexLiteral: (slot: string) => number | undefined,
  ) {}

  /** `name` is a loop variable running over [0, bound). */
  loopVariable(name: string, bound: string): void {
    this.loopBounds.set(name, bound);
  }

  /** `name` holds a dimension of an array. */
  dimension(name: string): void {
    this.dimensions.add(name);
  }

  /** Whether `n` holds a dimension of an array. */
  isDimension(n: string): boolean {
    return this.dimensions.has(n);
  }

  /** `n` is never negative: a literal, a dimension or a loop variable. */
  nonNegative(n: string): boolean {
    const v = this.indexLiteral(n);
    return (v !== undefined && v >= 0) || this.dimensions.has(n) || this.loopBounds.has(n);
  }

  /** Learns from `result = min a b` (Index) with a literal operand: result is at most that literal. */
  minimum(a: string, b: string, result: string): void {
    const bounds = [a, b].map(this.indexLiteral).filter((v) => v !== undefined);
    if (bounds.length > 0) this.upperBounds.set(result, Math.min(...bounds));
  }

  /** A bound `n` never exceeds, when one is known (`min 8 m`: the chunks of an accumulation), else undefined. */
  atMost(n: string): number | undefined {
    return this.upperBounds.get(n);
  }

  /** Learns from `result = a - b` or `result = a + b` (Index): reversed and shifted loop indexes keep a range. */
  arithmetic(op: "add" | "sub", a: string, b: string, result: string): void {
    if (this.indexLiteral(b) === 1) (op === "sub" ? this.minusOne : this.plusOne).set(a, result);
    if (op === "sub") {
      const bound = this.loopBounds.get(b);
      if (bound !== undefined && this.minusOne.get(bound) === a && !this.loopBounds.has(result))
        this.loopBounds.set(result, bound);
    } else if (this.indexLiteral(b) === 1) {
      const bound = this.loopBounds.get(a);
      const above = bound === undefined ? undefined : this.plusOne.get(bound);
      if (above !== undefined && above !== result) this.loopBounds.set(result, above);
    }
  }

  /**
   * `n` and `m` were checked equal here: past the check a loop up to n reads an array of length m in range (the
   * prelude's shape checks then cost one comparison, and no bounds check in the loop).
   */
  equalSizes(n: string, m: string): void {
    this.equalSized.set(`${n} ${m}`, this.blocks.scope);
    this.equalSized.set(`${m} ${n}`, this.blocks.scope);
  }

  private provedEqual(n: string, m: string): boolean {
    const made = this.equalSized.get(`${n} ${m}`);
    return made !== undefined && this.blocks.isOpen(made);
  }

  /** What reading element `i` of an array of length `length` must check here (and, from here on, need not again). */
  indexCheck(i: string, length: string): IndexCheck {
    // The same check earlier in the same run passed (a failed check leaves the function), so it holds here too.
    const key = `${i} ${length}`;
    const made = this.checked.get(key);
    if (made !== undefined && this.blocks.isOpen(made)) return "none";
    this.checked.set(key, this.blocks.scope);
    const bound = this.loopBounds.get(i);
    // i < bound, and a bound that is itself a loop variable is below its own bound (nested triangular loops).
    for (let b = bound, hops = 0; b !== undefined && hops < 8; b = this.loopBounds.get(b), hops++)
      if (b === length || this.provedEqual(b, length)) return "none";
    return bound !== undefined || this.nonNegativeLiteral(i) ? "upper" : "both";
  }

  /**
   * Takes the facts `outer` holds here about slots passed to a function being written (a loop body in a function of
   * its own): `rename` gives a slot's key in the new function (its parameter's; a literal's own), or undefined for a
   * slot not passed. Checks and shape checks made in blocks still open hold for the whole of the new function.
   */
  inherit(outer: BoundsFacts, rename: (key: string) => string | undefined): void {
    const pair = (key: string): string | undefined => {
      const [a, b] = key.split(" ") as [string, string];
      const [x, y] = [rename(a), rename(b)];
      return x === undefined || y === undefined ? undefined : `${x} ${y}`;
    };
    for (const [name, bound] of outer.loopBounds) {
      const [n, b] = [rename(name), rename(bound)];
      if (n !== undefined && b !== undefined) this.loopBounds.set(n, b);
    }
    for (const d of outer.dimensions) {
      const n = rename(d);
      if (n !== undefined) this.dimensions.add(n);
    }
    for (const [mine, theirs] of [
      [this.minusOne, outer.minusOne],
      [this.plusOne, outer.plusOne],
    ] as const)
      for (const [x, y] of theirs) {
        const [a, b] = [rename(x), rename(y)];
        if (a !== undefined && b !== undefined) mine.set(a, b);
      }
    for (const [mine, theirs] of [
      [this.checked, outer.checked],
      [this.equalSized, outer.equalSized],
    ] as const)
      for (const [key, made] of theirs) {
        const renamed = outer.blocks.isOpen(made) ? pair(key) : undefined;
        if (renamed !== undefined) mine.set(renamed, this.blocks.scope);
      }
  }

  private nonNegativeLiteral(s: string): boolean {
    const v = this.indexLiteral(s);
    return v !== undefined && v >= 0;
  }
}
