// Recursion on the heap instead of the JavaScript stack. A walk over a tree as deep as a program nests (10⁴ nested
// parentheses, an else-if chain of 10⁴ branches, an argument inside an argument ...) is written as a generator that
// yields the walk of each child it needs and is resumed with the child's result; `runNested` keeps the suspended
// walks on an array of its own, so the depth is bounded by memory, not by Node's default stack (about 10⁴ small
// frames). Inside one level, helpers that are generators themselves are delegated to with `yield*` (bounded depth);
// only `yield` starts a nested level.
//
// Used by the parser, the surface printer, the type checker and the lowering to the IR.

/** A walk producing a T that needs nested walks producing R: it yields them and is resumed with their results. */
export type Nested<T, R> = Generator<Nested<R, R>, T, R>;

/** Runs `root` to its result, running each nested walk it yields (and theirs) on an explicit stack. */
export function runNested<T, R>(root: Nested<T, R>): T {
  const suspended: Nested<unknown, R>[] = [];
  let current: Nested<unknown, R> = root;
  let input: R | undefined;
  for (;;) {
    // The first `next` of a walk starts it (its argument is ignored); later ones resume it with a child's result.
    const step = current.next(input as R);
    if (!step.done) {
      suspended.push(current);
      current = step.value;
      input = undefined;
      continue;
    }
    const parent = suspended.pop();
    if (parent === undefined) return step.value as T;
    current = parent;
    input = step.value as R;
  }
}
