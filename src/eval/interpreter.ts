// The reference interpreter: the meaning of the core IR, written to be obviously right rather than fast. Compiled code
// and every transformation are tested against it.
//
// Environments. The environment is one mutable Map per function activation, keyed by Var.id. A binder (let, the index
// of build, the accumulator and index of ifold, the state of while) sets its variable for the extent of its body and
// then restores what was there before, so at every point the map holds exactly the variables in lexical scope, even
// if a transformation reuses an id in a nested scope. A lambda copies the map when it is created (its closure), and
// each application starts from a fresh copy of that closure, so a later rebinding (the next loop iteration, the next
// call) can never change what a closure sees.
//
// Loops (build, ifold, while) and let chains run as JS loops: the JS stack grows with the nesting of the program, never
// with the number of iterations or the length of a let chain.
//
// Calls of the program's functions (recursion, ./calls.ts) start a fresh environment; a call in tail position
// reuses the caller's JS frame, so tail recursion runs in constant stack. Other recursion is limited to
// MAX_CALL_DEPTH nested calls, beyond which the call is a located "recursion" error (compiled code has no limit).
// Array updates. setAt/addAt/addArray/record return new arrays. In a first-order function (what reverse mode's
// programs are) the updates that the compiled code's ownership analysis (../lowering/ownership.ts) proves
// unobservable are done in place here too, and the loop states it copies on entry are copied: otherwise a gradient's
// accumulation into an adjoint array copies it at every step, quadratic in its length (a sum's gradient at
// n = 10⁵ took 13.6 s). Functions with lambdas copy at every update.

import { fail, SmoothError } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Atom, Build, Call, Expr, Ifold, IrFunction, Prim, Var, While } from "../ir/ir.js";
import { symbolicZero } from "../ir/ir.js";
import { callFunction, withFunctions } from "./calls.js";
import { freeVars, someNode } from "../ir/free.js";
import { ownership, type Fresh } from "../lowering/ownership.js";
import { addArrays, copyArray, pathOf, updateAt } from "../runtime/update.js";
import { PRIMS } from "../prims/table.js";
import { arrayTooLarge, MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import { negativeLoopCount, stackValues } from "../runtime/stack.js";
import { arrayLength, isArrayValue, tuple, type ArrayValue, type FunValue, type Value } from "../runtime/value.js";

export type Env = Map<number, Value>;

/** The value of `e` in `env` (variables keyed by Var.id). `env` itself is not modified. */
export function evaluate(e: Expr, env: ReadonlyMap<number, Value>): Value {
  return evalExpr(e, new Map(env));
}

/** Applies a first-order IR function to its argument values. */
export function runFunction(fn: IrFunction, args: readonly Value[]): Value {
  if (args.length !== fn.params.length) {
    throw new Error(`runFunction ${fn.name}: expected ${fn.params.length} arguments, got ${args.length}`);
  }
  return withFunctions(fn.functions, () => {
    const env: Env = new Map();
    fn.params.forEach((p, i) => env.set(p.id, args[i]!));
    const outer = updates;
    updates = updatesOf(fn);
    try {
      return evalExpr(fn.body, env);
    } catch (e) {
      // Function applications nested as deeply as the program's functions call each other (a chain of 10⁴ functions,
      // each calling the one before): the interpreter recurses for each (./calls.ts limits the program's `let rec`s).
      if (e instanceof RangeError && /call stack/i.test(e.message))
        fail("recursion", "function calls nest too deeply for the interpreter (it ran out of stack)", undefined, {
          hint: "compiled code (--engine js) inlines them and runs them without nesting",
        });
      throw e;
    } finally {
      updates = outer;
    }
  });
}

interface Updates {
  readonly inPlace: ReadonlySet<Prim>;
  readonly copyOnEntry: ReadonlyMap<Ifold | While, Fresh>;
}
const NO_UPDATES: Updates = { inPlace: new Set(), copyOnEntry: new Map() };
/** The in-place decisions of the function running now (see the header). */
let updates: Updates = NO_UPDATES;
const updatesCache = new WeakMap<IrFunction, Updates>();

function updatesOf(fn: IrFunction): Updates {
  let u = updatesCache.get(fn);
  if (u === undefined) {
    // Not with lambdas (the analysis is of first-order code), nor with the program's functions: their calls run
    // with copying updates here, so what they return may share its arrays with their arguments.
    const higherOrder = someNode(fn.body, (e) => e.kind === "lam" || e.kind === "app");
    u = higherOrder || (fn.functions?.length ?? 0) > 0 ? NO_UPDATES : ownership(fn);
    updatesCache.set(fn, u);
  }
  return u;
}

/** An update the ownership analysis allows in place, done so (the same result as PRIMS' evaluate, without a copy). */
function updateInPlace(e: Prim, args: readonly Value[]): Value | undefined {
  const [a, b, c] = args;
  switch (e.op) {
    case "setAt":
    case "addAt":
      return updateAt(a as ArrayValue, pathOf(b!), c!, e.op === "setAt" ? "set" : "add", e.span, true);
    case "addArray":
      return addArrays(a as ArrayValue, b as ArrayValue, e.span, true);
    case "record": {
      const tape = a as ArrayValue;
      if (arrayLength(tape) === 0) return undefined; // allocated by evaluate, then written: nothing to save
      return updateAt(tape, [b as number], c!, "set", e.span, true);
    }
    default:
      return undefined;
  }
}

/** The initial state of a loop with the components the analysis asks for copied (they are updated in place). */
function copiedOnEntry(v: Value, fresh: Fresh): Value {
  if (fresh === true) return isArrayValue(v) ? copyArray(v) : v;
  if (fresh === false || typeof v !== "object" || v.tag !== "tuple") return v;
  return tuple(v.elems.map((x, k) => copiedOnEntry(x, fresh[k] ?? false)));
}

export function evalAtom(a: Atom, env: Env): Value {
  if (a.kind === "lit") return a.value;
  const v = env.get(a.id);
  if (v === undefined) throw new Error(`interpreter: unbound variable ${a.name}#${a.id}`);
  return v;
}

export function evalExpr(e: Expr, env: Env): Value {
  switch (e.kind) {
    case "lit":
    case "var":
      return evalAtom(e, env);
    case "let": {
      // A let chain is walked iteratively; its bindings are undone in reverse order afterwards.
      const saved: Saved[] = [];
      let cur: Expr = e;
      while (cur.kind === "let") {
        const value = evalExpr(cur.rhs, env);
        saved.push(bind(env, cur.v, value));
        cur = cur.body;
      }
      const result = evalExpr(cur, env);
      for (let i = saved.length - 1; i >= 0; i--) restore(env, saved[i]!);
      return result;
    }
    case "prim": {
      const args = e.args.map((a) => evalAtom(a, env));
      // A zero tangent is a symbolic zero (Prim.tangent): its product or quotient is 0 whatever the other operand.
      if (symbolicZero(e, (k) => args[k] === 0)) return 0;
      if (updates.inPlace.has(e)) {
        const done = updateInPlace(e, args);
        if (done !== undefined) return done;
      }
      return PRIMS[e.op].evaluate(
        args,
        e.args.map((a) => a.type),
        e.span,
      );
    }
    case "tuple":
      return tuple(e.elems.map((a) => evalAtom(a, env)));
    case "proj": {
      const t = evalAtom(e.arg, env);
      if (typeof t !== "object" || t.tag !== "tuple") throw new Error("interpreter: proj of a non-tuple");
      if (e.index < 0 || e.index >= t.elems.length) throw new Error(`interpreter: proj ${e.index} out of range`);
      return t.elems[e.index]!;
    }
    case "lam": {
      // The closure keeps the variables the lambda uses, not the whole environment: copying all of it made a program
      // of 10⁴ functions quadratic.
      const closure = new Map<number, Value>();
      for (const id of lambdaFreeVars(e)) if (env.has(id)) closure.set(id, env.get(id)!);
      const { param, body } = e;
      const fn: FunValue = {
        tag: "fun",
        apply: (arg) => {
          const frame = new Map(closure);
          frame.set(param.id, arg);
          return evalExpr(body, frame);
        },
      };
      return fn;
    }
    case "app": {
      const f = evalAtom(e.fn, env);
      if (typeof f !== "object" || f.tag !== "fun") throw new Error("interpreter: application of a non-function");
      if (e.span === undefined) return f.apply(evalAtom(e.arg, env));
      try {
        return f.apply(evalAtom(e.arg, env));
      } catch (err) {
        // An error inside a prelude function is reported at the user's call too (as inlining does for compiled code).
        throw err instanceof SmoothError ? err.calledFrom(e.span) : err;
      }
    }
    case "if": {
      // Lazy: only the taken branch runs (the other may, say, index out of range).
      const c = evalAtom(e.cond, env);
      if (typeof c !== "boolean") throw new Error("interpreter: if condition is not a Bool");
      return evalExpr(c ? e.then : e.else, env);
    }
    case "build":
      return evalBuild(e, env);
    case "ifold":
      return evalIfold(e, env);
    case "call":
      return callFunction(e, env);
    case "while":
      return evalWhile(e, env);
    case "custom":
      // The function itself: its rules only matter to differentiation.
      return evalAtom(e.fn, env);
    case "jvp":
      throw new Error("interpreter: expand jvp nodes first (the forward-ad pass)");
  }
}

/**
 * The value of a function body `e`, or the call it ends with (in tail position: the end of its let chain, or of the
 * branch of an `if` taken, also through `let r = ... in r`), for the caller to make without nesting a JS frame
 * (./calls.ts).
 */
export function evalTail(e: Expr, env: Env): Value | Call {
  for (;;) {
    while (e.kind === "let") {
      // `let r = x in r`: x is in tail position too.
      if (e.body.kind === "var" && e.body.id === e.v.id) {
        e = e.rhs;
        continue;
      }
      // A function's frame is its own: nothing to restore. A call goes straight to callFunction (fewer JS frames).
      env.set(e.v.id, e.rhs.kind === "call" ? callFunction(e.rhs, env) : evalExpr(e.rhs, env));
      e = e.body;
    }
    if (e.kind === "call") return e;
    if (e.kind !== "if") return evalExpr(e, env);
    const c = evalAtom(e.cond, env);
    if (typeof c !== "boolean") throw new Error("interpreter: if condition is not a Bool");
    e = c ? e.then : e.else;
  }
}

function evalBuild(e: Build, env: Env): Value {
  const n = loopCount(evalAtom(e.size, env), "build size", e.span);
  if (e.type.k !== "array") throw new Error("interpreter: build of a non-array type");
  const elems = new Array<Value>(n);
  const saved = bind(env, e.index, 0);
  for (let i = 0; i < n; i++) {
    env.set(e.index.id, i);
    elems[i] = evalExpr(e.body, env);
  }
  restore(env, saved);
  return stackValues(e.type.elem, elems, e.span);
}

function evalIfold(e: Ifold, env: Env): Value {
  const copy = updates.copyOnEntry.get(e);
  let acc = copy === undefined ? evalAtom(e.init, env) : copiedOnEntry(evalAtom(e.init, env), copy);
  const n = loopCount(evalAtom(e.count, env), "ifold count", e.span);
  const savedAcc = bind(env, e.acc, acc);
  const savedIndex = bind(env, e.index, 0);
  for (let i = 0; i < n; i++) {
    env.set(e.acc.id, acc);
    env.set(e.index.id, i);
    acc = evalExpr(e.body, env);
  }
  restore(env, savedIndex);
  restore(env, savedAcc);
  return acc;
}

function evalWhile(e: While, env: Env): Value {
  const copy = updates.copyOnEntry.get(e);
  let acc = copy === undefined ? evalAtom(e.init, env) : copiedOnEntry(evalAtom(e.init, env), copy);
  const saved = bind(env, e.acc, acc);
  for (;;) {
    env.set(e.acc.id, acc);
    const go = evalExpr(e.cond, env);
    if (typeof go !== "boolean") throw new Error("interpreter: while condition is not a Bool");
    if (!go) break;
    acc = evalExpr(e.body, env);
  }
  restore(env, saved);
  return acc;
}

/** A loop's iteration count: a non-negative Index, or a shape error at the loop. */
function loopCount(v: Value, what: "build size" | "ifold count", span: Span | undefined): number {
  if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`interpreter: ${what} is not an Index`);
  if (v < 0) negativeLoopCount(what, v, span);
  if (what === "build size" && v > MAX_ARRAY_ELEMENTS) arrayTooLarge("a build", v, span);
  return v;
}

/** What a binder displaced: restored when its scope ends. */
interface Saved {
  readonly id: number;
  readonly had: boolean;
  readonly old: Value | undefined;
}

function bind(env: Env, v: Var, value: Value): Saved {
  const saved = { id: v.id, had: env.has(v.id), old: env.get(v.id) };
  env.set(v.id, value);
  return saved;
}

function restore(env: Env, s: Saved): void {
  if (s.had) env.set(s.id, s.old!);
  else env.delete(s.id);
}

const FREE_OF_LAMBDA = new WeakMap<Expr, readonly number[]>();

/** The ids of the variables a lambda uses from around it (remembered per node: a lambda may be evaluated often). */
function lambdaFreeVars(e: Expr): readonly number[] {
  let ids = FREE_OF_LAMBDA.get(e);
  if (ids === undefined) {
    ids = [...freeVars(e).keys()];
    FREE_OF_LAMBDA.set(e, ids);
  }
  return ids;
}
