// The names of all primitives. The rule table in table.ts is a mapped type over this list, so a primitive
// without a rule is a compile-time error.

export const PRIM_NAMES = [
  // arithmetic on Double or Index (both operands the same type)
  "add",
  "sub",
  "mul",
  "div",
  "pow",
  "neg",
  "max",
  "min",
  // Double -> Double (abs also on Index)
  "sin",
  "cos",
  "tan",
  "log",
  "exp",
  "sqrt",
  "tanh",
  // Math.atan, asin, acos (Double -> Double) and atan2 (Double * Double -> Double): JavaScript's own, on every back end
  "atan",
  "asin",
  "acos",
  "atan2",
  "abs",
  "floor",
  // stopGradient x: x in value, with derivative zero in every mode (logsumexp's shift; JAX's lax.stop_gradient)
  "stopGradient",
  // withDerivativeOf a b: a in value, with b's derivative in every mode (a min or max fold differentiated through
  // the element it selected, src/ad/selection-folds.ts; the exact form of the straight-through a + stopGradient(b - a))
  "withDerivativeOf",
  // Index -> Double (the implicit promotion, written `double i`)
  "toDouble",
  // Double -> Index: the Index equal to a Double holding an integer (an index error otherwise); TypeScript's numbers
  // used
  // as indexes or counts (src/tsfront/) are read this way
  "toIndex",
  // JavaScript's bit operators on Indexes (32-bit integers): &, |, ^, <<, >> to an Index, >>> to a Double (its result
  // is unsigned, up to 2^32 - 1)
  "bitAnd",
  "bitOr",
  "bitXor",
  "shiftLeft",
  "shiftRight",
  "shiftRightUnsigned",
  // comparisons: Num * Num -> Bool (eq, ne also Bool * Bool)
  "lt",
  "gt",
  "le",
  "ge",
  "eq",
  "ne",
  // Bool (strict: the surface && and || become if)
  "and",
  "or",
  "not",
  // arrays
  "get",
  "length",
  // checkIndex j n: j when 0 <= j < n, else the index error of get (emitted by the optimiser when it fuses (build n
  // f)[j])
  "checkIndex",
  // sameSize n m: n when n = m, else a shape error (the precondition of map2, reshape, scatter in the prelude)
  "sameSize",
  // checkpointSlots budget bytes steps widest: how many snapshots of `bytes` bytes a memory budget of `budget` bytes
  // holds, at most `steps` and what one array of snapshots holds (`widest`: a component's scalars); a located error
  // when not even one (reverse mode checkpointing a loop of `steps` steps, src/ad/reverse-checkpoint.ts)
  "checkpointSlots",
  // functional array updates (src/prims/updates.ts): reverse-mode accumulation, and the prelude's combinators
  "zerosLike",
  "setAt",
  "addAt",
  "addArray",
  // field arr k: the array of the k-th components of an array of tuples (no copy: arrays of tuples are stored as tuples
  // of arrays)
  "field",
  // record tape i v n: setAt tape i v, where an empty tape first becomes n copies of v (reverse mode's residual tapes)
  "record",
  // sameShape a b: the two values have the same array dimensions (reverse mode taping a loop state)
  "sameShape",
  // tapes (src/prims/tape.ts): reverse mode's stack of what recursive calls need in their reverse sweep
  "newTape",
  "tapePush",
  "tapePop",
] as const;

export type PrimName = (typeof PRIM_NAMES)[number];
