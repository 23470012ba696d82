// customJvp and customVjp for TypeScript functions over tensors (JAX's custom_jvp and custom_vjp): a function whose
// derivatives come from rules the user gives, instead of from differentiating it.
//
// The result is a function like `compile(f)`'s, which every transform accepts; called while another function is
// being traced, it stages itself into that trace. Either way it is staged as the language's construct
//   customJvp (fun x -> f x) (fun x dx -> rule x dx) args      or      customVjp f fwd bwd args
// with f and the rules traced as lambdas (a function of several arguments takes them as one tuple), so forward and
// reverse mode, Hessians, vmap and compiled code treat it as they treat the language's (src/ad/custom.ts).
//
// Conventions (JAX's): jvpRule(primals, tangents) returns [value, tangent], where primals and tangents are arrays
// with one entry per argument; fwd(...args) returns [value, residuals]; bwd(residuals, cotangent) returns the
// adjoint of the argument, or for several arguments an array of adjoints, one per argument.

import { activeTrace, traceFor, type Lambda, type Operand } from "../staging/graph.js";
import { checkFunction, traceLambda } from "../staging/control.js";
import { describeJsValue, stagingFail } from "../staging/errors.js";
import { aStatic, sameType, type StaticType } from "../staging/static-type.js";
import { emit, toOperand, type Staged } from "../staging/tensor.js";
import { compile, compiledFunction, type AnyFunction } from "./compile.js";
import { libraryFunction, register } from "./target.js";
import { stagedTarget } from "./staged.js";
import { readsAsPlain } from "./plain.js";
import { TsTarget } from "./ts-target.js";
import { functionSource } from "../tsfront/closure.js";
import { sourceFunction } from "../tsfront/function-values.js";
import { transformRef } from "../tsfront/function-refs.js";
import { registerCustom, registerTransform } from "../tsfront/transforms.js";

/** The arguments of a staged call as one operand: the argument itself, or a tuple of several. */
function packArguments(args: readonly unknown[], op: string): { operand: Operand; type: StaticType } {
  if (args.length === 0) stagingFail(`\`${op}\`: a function with custom rules needs at least one argument`);
  const parts = args.map((a, k) => toOperand(a, op, `argument ${k + 1}`));
  if (parts.length === 1) return parts[0]!;
  return {
    operand: { kind: "tuple", elems: parts.map((p) => p.operand) },
    type: { k: "tuple", elems: parts.map((p) => p.type) },
  };
}

/** The user's arguments from the traced lambda's one parameter (a JavaScript array when there are several). */
const spread = (p: Staged, n: number): Staged[] => (n === 1 ? [p] : [...(p as readonly Staged[])]);

/** `value` as a pair [a, b] (the result of a rule), or a staging error naming `what`. */
function pairType(t: StaticType, op: string, what: string): [StaticType, StaticType] {
  if (t.k !== "tuple" || t.elems.length !== 2)
    stagingFail(`\`${op}\`: ${what} must return a pair [value, ${op === "customJvp" ? "tangent" : "residuals"}]`);
  return [t.elems[0]!, t.elems[1]!];
}

function expectType(found: StaticType, expected: StaticType, op: string, what: string): void {
  if (!sameType(found, expected))
    stagingFail(`\`${op}\`: ${what} is ${aStatic(found)}, but it must be ${aStatic(expected)}`);
}

/** One custom call staged into the active trace: `customJvp f rule args` or `customVjp f fwd bwd args`. */
function stageCustom(op: "customJvp" | "customVjp", fns: readonly AnyFunction[], args: readonly unknown[]): Staged {
  const trace = traceFor(op);
  const n = args.length;
  const arg = packArguments(args, op);
  const x = [{ type: arg.type, prefix: "x" }];
  const f = fns[0]!;
  const fn = traceLambda(trace, op, `the function of \`${op}\``, x, (p) => f(...spread(p, n)));
  let rules: Lambda[];
  if (op === "customJvp") {
    const rule = fns[1]!;
    const dx = [...x, { type: arg.type, prefix: "dx" }];
    const r = traceLambda(trace, op, "the rule of `customJvp`", dx, (p, dp) => rule(spread(p, n), spread(dp, n)), {
      k: "tuple",
      elems: [fn.type, fn.type],
    });
    const [value, tangent] = pairType(r.type, op, "the rule");
    expectType(value, fn.type, op, "the rule's value");
    expectType(tangent, fn.type, op, "the rule's tangent");
    rules = [r.lambda];
  } else {
    const [fwd, bwd] = [fns[1]!, fns[2]!];
    const forward = traceLambda(trace, op, "the forward rule of `customVjp`", x, (p) => fwd(...spread(p, n)));
    const [value, residuals] = pairType(forward.type, op, "the forward rule");
    expectType(value, fn.type, op, "the forward rule's value");
    const backward = traceLambda(
      trace,
      op,
      "the backward rule of `customVjp`",
      [
        { type: residuals, prefix: "r" },
        { type: value, prefix: "ct" },
      ],
      (r, ct) => {
        const out = bwd(r, ct) as unknown;
        // One argument: its adjoint, also when given as a one-element array (JAX's convention).
        return n === 1 && Array.isArray(out) && out.length === 1 ? (out[0] as unknown) : out;
      },
      arg.type,
    );
    expectType(backward.type, arg.type, op, "the backward rule's adjoint");
    rules = [forward.lambda, backward.lambda];
  }
  return emit(trace, { kind: "call", fn: op, args: [fn.lambda, ...rules, arg.operand] }, fn.type, "c");
}

/**
 * Rules written with numbers (Math.* and operators) instead of tensor operations: the function and its rules are
 * translated (src/tsfront/transforms.ts) into the language's customJvp / customVjp, as a target of their own; a plain
 * function calling the result is translated with it.
 */
function plainCustom(op: "customJvp" | "customVjp", fns: readonly AnyFunction[]): AnyFunction {
  const sources = fns.map((f) => functionSource(f as (...args: never[]) => unknown));
  const values = sources.map(sourceFunction);
  const name = fns[0]!.name;
  const value = {
    kind: "fn",
    ref: transformRef(op, {}),
    captures: values.map(() => undefined),
    parts: values,
  } as const;
  const target = new TsTarget(sources[0]!, { value, label: `${op}(${name ? `\`${name}\`` : "a function"})` });
  const g = compiledFunction(target, target.label, op);
  registerCustom(g, op, values);
  return g;
}

/** The library function: staged into an active trace, compiled otherwise, a target for every transform. */
function customFunction(
  op: "customJvp" | "customVjp" | "checkpoint",
  fns: readonly AnyFunction[],
  stage: (args: readonly unknown[]) => Staged = (args) => stageCustom(op as "customJvp" | "customVjp", fns, args),
): AnyFunction {
  if (op !== "checkpoint" && fns.every(readsAsPlain)) return plainCustom(op, fns);
  const staged = (...args: unknown[]) => stage(args);
  const name = fns[0]!.name;
  Object.defineProperty(staged, "name", { value: name ? `${op}(${name})` : op });
  const compiled = compiledFunction(stagedTarget(staged), `${op}(${name ? `\`${name}\`` : "a function"})`, op);
  const g = (...args: unknown[]): unknown => (activeTrace() ? staged(...args) : compiled(...args));
  return register(g, libraryFunction(compiled)!, op);
}

function checkFunctions(op: string, fns: readonly [unknown, string][]): void {
  for (const [f, what] of fns) {
    checkFunction(f, op, what);
    if (libraryFunction(f) !== undefined)
      stagingFail(
        `\`${op}\`: ${what} is ${describeJsValue(f)} returned by the library; give a TypeScript function over ` +
          "tensors (a Smooth definition gets its rules in its source: customJvp / customVjp in the language)",
      );
  }
}

/**
 * `f` with its forward derivative given by `jvpRule(primals, tangents) => [value, tangent]` (JAX's custom_jvp): forward
 * mode uses the rule, reverse mode transposes its tangent part (which must be linear in the tangents), and higher
 * derivatives differentiate the rule. f and jvpRule are TypeScript functions over tensors.
 *
 * @example
 * const log1pexp = customJvp(
 *   (x) => log(add(1, exp(x))),
 *   ([x], [dx]) => [log(add(1, exp(x))), mul(dx, sub(1, div(1, add(1, exp(x)))))],
 * );
 * grad(log1pexp)(1000); // 1
 */
export function customJvp(f: AnyFunction, jvpRule: AnyFunction): AnyFunction {
  checkFunctions("customJvp", [
    [f, "the function"],
    [jvpRule, "the rule"],
  ]);
  return customFunction("customJvp", [f, jvpRule]);
}

/**
 * `f` with its reverse derivative given by `fwd(...args) => [value, residuals]` and `bwd(residuals, cotangent) =>
 * adjoint(s)` (JAX's custom_vjp): reverse mode uses the rules; forward mode transposes bwd (which must be linear in
 * the cotangent), and a Hessian differentiates fwd and bwd. All three are TypeScript functions over tensors.
 *
 * @example
 * const clip = customVjp((x) => x, (x) => [x, 0], (_r, ct) => max(-1, min(1, ct)));
 */
export function customVjp(f: AnyFunction, fwd: AnyFunction, bwd: AnyFunction): AnyFunction {
  checkFunctions("customVjp", [
    [f, "the function"],
    [fwd, "the forward rule"],
    [bwd, "the backward rule"],
  ]);
  return customFunction("customVjp", [f, fwd, bwd]);
}

registerTransform(customJvp, "customJvp");
registerTransform(customVjp, "customVjp");

/** `checkpoint f args` staged into the active trace, f called on the trace's tensors (staged, or a library call). */
function stageCheckpoint(f: AnyFunction, args: readonly unknown[]): Staged {
  const op = "checkpoint";
  const trace = traceFor(op);
  const n = args.length;
  const arg = packArguments(args, op);
  const x = [{ type: arg.type, prefix: "x" }];
  const fn = traceLambda(trace, op, "the function of `checkpoint`", x, (p) => f(...spread(p, n)));
  return emit(trace, { kind: "call", fn: op, args: [fn.lambda, arg.operand] }, fn.type, "c");
}

/**
 * `f` itself, except that reverse mode does not store the intermediate values of f's computation: its reverse pass
 * runs f again from its arguments and reverses that (JAX's checkpoint, or remat), trading time for memory — inside a
 * loop's step, a long computation's reverse then holds one step's values at a time. Forward mode differentiates f as
 * it is; every transform composes with it. f is a TypeScript function over tensors, a plain TypeScript function or a
 * Smooth definition; values f closes over that the differentiated function computes become its inputs.
 *
 * @example
 * const step = checkpoint((x) => tanh(matvec(W, x)));
 * const loss = (x0) => sum(fori(0, 1000, (_i, x) => step(x), x0));
 * grad(loss)(x0);
 */
export function checkpoint<F extends AnyFunction>(f: F): F {
  checkFunction(f, "checkpoint", "the function");
  // Called in the trace as a library function (a plain function's or a staged one's compiled form, or f itself).
  const inner = libraryFunction(f) !== undefined ? f : (compile(f) as AnyFunction);
  return customFunction("checkpoint", [f], (args) => stageCheckpoint(inner, args)) as F;
}
