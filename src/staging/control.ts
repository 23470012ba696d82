// The constructs with bodies: build, ifold and cond stay in the staged program (dynamic control flow), their bodies
// traced once as nested scopes with symbolic parameters. Functions given to the prelude's higher-order definitions
// (map2, reduce, scanl, ...) are traced the same way (traceLambda, traceStep).

import { traceFor, type Lambda, type Operand, type Trace } from "./graph.js";
import { aStatic, joinStatic, sameStatic, sameType, S_INT, sArray, type StaticType } from "./static-type.js";
import { describeJsValue, stagingFail } from "./errors.js";
import {
  countOperand,
  emit,
  emitTensor,
  litOperand,
  nodeOperand,
  parameterValue,
  Tensor,
  tensorArg,
  toOperand,
  type Staged,
  type Traced,
} from "./tensor.js";

/** A parameter of a traced function: its static type, and the prefix of its generated name. */
export interface ParamSpec {
  readonly type: StaticType;
  readonly prefix: string;
}

export function checkFunction(f: unknown, op: string, what: string): void {
  if (typeof f !== "function") stagingFail(`\`${op}\`: ${what} must be a function, but it is ${describeJsValue(f)}`);
}

/**
 * Traces `f` as a lambda in a nested scope: one symbolic parameter per spec (a tuple parameter reaches `f` as a
 * JavaScript array, destructured by the body's first binding). Numbers in the result take the types of `resultHint`.
 */
export function traceLambda(
  trace: Trace,
  op: string,
  label: string,
  params: readonly ParamSpec[],
  f: (...args: Staged[]) => unknown,
  resultHint?: StaticType,
): { lambda: Lambda; type: StaticType } {
  return trace.nested(label, (scope) => {
    const nodes = params.map((p) => trace.freshNode(p.prefix, p.type));
    const args = nodes.map((n) => parameterValue(trace, n));
    const { operand, type } = toOperand(f(...args), op, `the result of ${label}`, resultHint);
    return { lambda: { kind: "lambda", params: nodes, body: { scope, result: operand } }, type };
  });
}

/**
 * Traces a loop step whose state starts as `init`: the state parameter first gets init's static type; when the step
 * returns a state whose lengths differ (a growing vector), those lengths become unknown and the step is traced again.
 */
export function traceStep(
  trace: Trace,
  op: string,
  label: string,
  init: StaticType,
  params: (state: StaticType) => readonly ParamSpec[],
  f: (...args: Staged[]) => unknown,
): { lambda: Lambda; state: StaticType } {
  let state = init;
  for (;;) {
    const step = traceLambda(trace, op, label, params(state), f, state);
    if (!sameType(step.type, state)) {
      stagingFail(
        `\`${op}\`: ${label} returns ${aStatic(step.type)}, but the state is ${aStatic(state)} ` +
          "(the step must return a state of the type it is given)",
      );
    }
    const joined = joinStatic(state, step.type);
    if (sameStatic(joined, state)) return { lambda: step.lambda, state };
    state = joined;
  }
}

/** `build n f` with a known result length (elementwise operations know it even when the count is a checked size). */
export function buildArray(count: Operand, length: number | undefined, f: (i: Tensor) => unknown, op: string): Tensor {
  const trace = traceFor(op);
  const index = [{ type: S_INT, prefix: "i" }];
  const body = traceLambda(trace, op, `the body of \`${op}\``, index, f as (...a: Staged[]) => unknown);
  const result = emitTensor(trace, { kind: "build", count, body: body.lambda }, sArray(length, body.type));
  // Its length is the count: `length` of the result reads the count instead of being computed again.
  if (count.kind === "node") trace.current.lengths.set(result.node.id, count.node);
  return result;
}

/**
 * The array of n elements `f(0), ..., f(n-1)` (Smooth's `build n f`). `f` is traced once, with a symbolic Index `i`;
 * it returns a tensor, a number, or a tuple (a JavaScript array), giving an array of tuples.
 */
export function build(n: number | Tensor, f: (i: Tensor) => Staged): Tensor {
  const count = countOperand(n, "build", "the length");
  checkFunction(f, "build", "the element function");
  return buildArray(count.operand, count.value, f, "build");
}

/**
 * The loop `s = init; for i in 0 .. n-1: s = f(s, i)` (Smooth's `ifold f init n`), kept as a loop in the program. The
 * state may be a tuple (a JavaScript array of tensors and numbers); `f` is traced once with a symbolic state and Index.
 * A number in the initial state is a Double (use `index(k)` for an Index state).
 */
export function ifold<S extends Staged | []>(
  f: (acc: Traced<S>, i: Tensor) => Staged,
  init: S,
  n: number | Tensor,
): Traced<S> {
  const op = "ifold";
  const trace = traceFor(op);
  checkFunction(f, op, "the step function");
  const start = toOperand(init, op, "the initial state");
  const count = countOperand(n, op, "the number of steps");
  const step = traceStep(
    trace,
    op,
    "the step of `ifold`",
    start.type,
    (state) => [
      { type: state, prefix: "a" },
      { type: S_INT, prefix: "i" },
    ],
    f as unknown as (...args: Staged[]) => unknown,
  );
  return emit(
    trace,
    { kind: "ifold", body: step.lambda, init: start.operand, count: count.operand },
    step.state,
  ) as never;
}

/**
 * `if c then a() else b()`, kept as a conditional in the program: both branches are traced (as nested scopes), and
 * only the taken one runs. `c` must be a staged Bool (from lt, eq, ...); a JavaScript boolean is decided by a
 * JavaScript `if` instead. The branches must give values of the same type; a number adopts the other branch's type.
 */
export function cond<A extends Staged | [], B extends Staged | []>(c: Tensor, a: () => A, b: () => B): Traced<A> {
  const op = "cond";
  if (typeof c === "boolean") {
    stagingFail(
      `\`cond\`: the condition is the JavaScript boolean ${String(c)}; a condition known when tracing is static ` +
        "control flow: use a JavaScript `if` (or `?:`) instead",
    );
  }
  const condition = tensorArg(c, op, "the condition");
  if (condition.node.type.k !== "bool") {
    stagingFail(`\`cond\`: the condition must be a Bool, but it is ${aStatic(condition.node.type)}`);
  }
  checkFunction(a, op, "the `then` branch");
  checkFunction(b, op, "the `else` branch");
  const trace = traceFor(op);
  const branch = (label: string, f: () => unknown) =>
    trace.nested(label, (scope) => ({ scope, ...toOperand(f(), op, `the result of ${label}`) }));
  const yes = branch("the `then` branch of `cond`", a);
  const no = branch("the `else` branch of `cond`", b);
  const thenResult = adaptLiterals(yes.operand, yes.type, no.type);
  const elseResult = adaptLiterals(no.operand, no.type, thenResult.type);
  if (!sameType(thenResult.type, elseResult.type)) {
    stagingFail(
      `\`cond\`: the branches give different types: the \`then\` branch ${aStatic(thenResult.type)}, ` +
        `the \`else\` branch ${aStatic(elseResult.type)}`,
    );
  }
  return emit(
    trace,
    {
      kind: "if",
      cond: nodeOperand(condition.node),
      then: { scope: yes.scope, result: thenResult.operand },
      else: { scope: no.scope, result: elseResult.operand },
    },
    joinStatic(thenResult.type, elseResult.type),
  ) as never;
}

/** An operand whose integer Double literals become Index literals where `target` has an Index. */
function adaptLiterals(o: Operand, type: StaticType, target: StaticType): { operand: Operand; type: StaticType } {
  if (o.kind === "lit" && o.type === "double" && target.k === "int" && Number.isInteger(o.value)) {
    return { operand: litOperand(o.value, "int"), type: S_INT };
  }
  if (o.kind === "tuple" && type.k === "tuple" && target.k === "tuple" && target.elems.length === o.elems.length) {
    const parts = o.elems.map((e, k) => adaptLiterals(e, type.elems[k]!, target.elems[k]!));
    return {
      operand: { kind: "tuple", elems: parts.map((p) => p.operand) },
      type: { k: "tuple", elems: parts.map((p) => p.type) },
    };
  }
  return { operand: o, type };
}
