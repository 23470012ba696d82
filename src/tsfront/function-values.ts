// Function values: a function written inside the function being translated (`x => a * x`, a declared helper), a
// function of the module or closure (`sq`), Math's (`Math.tanh`), or one a transform made (`grad(f)`), used as a
// value — given to another function, returned, stored in an object or an array. The translation defunctionalises
// them: a function value's type says which function it is (./function-refs.ts), so every call of it is known while
// the program is translated and no closure reaches the compiled code. As data a function value is what it captured
// (the values of the outer variables its body reads), so a definition that takes one (`twice(f, x)`) is made once per
// function and argument types, with the captured values as its arguments; a call of a function written inside is its
// body inlined with those values.
//
// A closure captures variables, not values, in JavaScript: reading a function value from a variable gives it the
// current values of the variables it captured that are still in scope (the same declaration), so `a = 2` after
// `const f = x => a * x` is seen by `f(1)`.

import type * as A from "acorn";
import { Env, Fn, type Binding } from "./context.js";
import { bindParams, requiredParameters, translateBody } from "./bodies.js";
import { localRef, globalRef, mathRef, type FnRef } from "./function-refs.js";
import { mathArity, mathOfValues } from "./math.js";
import { app } from "./smooth-ast.js";
import { spanOf, type FunctionSource } from "./source.js";
import { declaredNames, type FunctionNode, type Node } from "./syntax.js";
import { T_INT, typeKey, type Capture } from "./ts-types.js";
import { applyTransform } from "./transforms.js";
import { atom, pack, typeOfVal, type FnVal, type Lets, type Val } from "./values.js";
import { num } from "./smooth-ast.js";
import { walkTree } from "./walk.js";

const MENTIONED = new WeakMap<FunctionNode, readonly string[]>();

/**
 * The names a function's body and parameters mention as variables, in order, each once (not property names, nor the
 * function's own name).
 */
export function mentionedNames(node: FunctionNode): readonly string[] {
  const known = MENTIONED.get(node);
  if (known) return known;
  const names = new Set<string>();
  walkTree(node as Node, true, (n) => {
    if (n === node) {
      node.params.forEach((p) => collect(p, names));
      collect(node.body, names);
      return undefined;
    }
    return true;
  });
  const list = [...names];
  MENTIONED.set(node, list);
  return list;
}

/** The identifiers under `root` that are variables (member and key names left out). */
function collect(root: Node, out: Set<string>): void {
  walkTree(root, true, (n) => {
    if (n.type === "Identifier") out.add((n as A.Identifier).name);
    if (n.type === "MemberExpression") {
      const m = n as A.MemberExpression;
      collect(m.object, out);
      if (m.computed) collect(m.property, out);
      return undefined;
    }
    if (n.type === "Property" || n.type === "MethodDefinition" || n.type === "PropertyDefinition") {
      const p = n as A.Property;
      if (p.computed) collect(p.key, out);
      if (p.value) collect(p.value, out);
      return undefined;
    }
    return true;
  });
}

/** The Index 0 a function value that captured nothing holds (a Smooth value has parts). */
const nothing = (node: Node, fn: Fn): Val => atom(num(0, fn.span(node)), T_INT);

/** A function written at `node`, capturing the variables of `env` it mentions. */
export function closureOf(fn: Fn, node: FunctionNode, env: Env): FnVal {
  const captures: Capture[] = [];
  const parts: Val[] = [];
  for (const name of mentionedNames(node)) {
    const b = env.get(name);
    if (b?.kind !== "value") continue;
    if (b.val.kind === "atom" && b.val.type.k === "unset") continue;
    captures.push({ name, decl: b.decl });
    parts.push(b.val);
  }
  const label = node.type === "FunctionDeclaration" && node.id ? `\`${node.id.name}\`` : `\`${fn.text(node)}\``;
  const ref = localRef(node, fn.src, `the function ${label}`);
  if (parts.length === 0) return { kind: "fn", ref, captures: [undefined], parts: [nothing(node, fn)] };
  return { kind: "fn", ref, captures, parts };
}

/** A function of the module or closure as a value. */
export const globalFunction = (src: FunctionSource, node: Node, fn: Fn): FnVal => ({
  kind: "fn",
  ref: globalRef(src),
  captures: [undefined],
  parts: [nothing(node, fn)],
});

/** A function the library was given as a value (a rule of customJvp). */
export const sourceFunction = (src: FunctionSource): FnVal => ({
  kind: "fn",
  ref: globalRef(src),
  captures: [undefined],
  parts: [atom(num(0, spanOf(src, src.node)), T_INT)],
});

/** One of Math's functions of one or two numbers as a value (`xs.map(Math.tanh)`, `{ act: Math.tanh }`). */
export function mathFunction(name: string, node: Node, fn: Fn): FnVal {
  if (mathArity(name) === undefined)
    fn.fail(node, `Math.${name} as a value is not supported`, {
      hint: `call it where it is used, or write a function that calls it ((a, b) => Math.${name}(a, b))`,
    });
  return { kind: "fn", ref: mathRef(name), captures: [undefined], parts: [nothing(node, fn)] };
}

/** How deeply function values may hold each other before reading one stops (a function built from itself). */
const MAX_DEPTH = 64;

/**
 * The value as it is now: each function value in it with the current values of the variables it captured that `env`
 * still holds (the same declarations), as a JavaScript closure would see them.
 */
export function current(v: Val, env: Env, node: Node, fn: Fn, depth = 0): Val {
  if (v.kind === "atom") return v;
  if (depth > MAX_DEPTH)
    return fn.fail(node, "this function value holds functions nested too deeply (a function built from itself?)");
  if (v.kind === "record") {
    const fields = v.fields.map((f) => current(f, env, node, fn, depth + 1));
    return fields.every((f, i) => f === v.fields[i]) ? v : { ...v, fields };
  }
  if (v.kind === "tuple") {
    const elems = v.elems.map((f) => current(f, env, node, fn, depth + 1));
    return elems.every((f, i) => f === v.elems[i]) ? v : { ...v, elems };
  }
  const parts = v.parts.map((p, i) => {
    const c = v.captures[i];
    const b = c && env.get(c.name);
    const now = b?.kind === "value" && b.decl === c!.decl ? b.val : p;
    return current(now, env, node, fn, depth + 1);
  });
  return parts.every((p, i) => p === v.parts[i]) ? v : { ...v, parts };
}

/** How many arguments a function value takes, when it takes a fixed number (extra ones are dropped, as JS does). */
function parameterCount(ref: FnRef): number | undefined {
  if (ref.kind === "math") return mathArity(ref.name);
  const node = ref.kind === "local" ? ref.node : ref.kind === "global" ? ref.src.node : undefined;
  if (!node || node.params.some((p) => p.type === "RestElement")) return undefined;
  return node.params.length;
}

/** The calls of local functions being inlined (their types and arguments'), to stop a function calling itself. */
const INLINING = new Set<string>();

/**
 * A call of a function value. `args` may end in undefined ones (a callback given fewer values than its parameters,
 * or more than it takes: those are dropped).
 */
export function applyFunction(
  fn: Fn,
  f: FnVal,
  args: readonly (Val | undefined)[],
  env: Env,
  lets: Lets,
  call: Node,
): Val {
  const span = fn.span(call);
  const count = parameterCount(f.ref);
  const given = count === undefined ? args : args.slice(0, count);
  switch (f.ref.kind) {
    case "local":
      return inline(fn, f, f.ref.node, f.ref.src, given, lets, call);
    case "global": {
      const vals = given.map((a, k) => a ?? fn.fail(call, `argument ${k} of ${f.ref.label} has no value here`));
      const { name, result } = fn.program.define(f.ref.src, vals.map(typeOfVal), span);
      return lets.bind(
        app(
          name,
          vals.map((x) => pack(x, span)),
          span,
        ),
        result,
        "r",
        span,
      );
    }
    case "math":
      return mathOfValues(fn, call, f.ref.name, given, lets);
    case "transform":
      return applyTransform(fn, f, given, env, lets, call);
  }
}

/** A function written inside, called: its body with its parameters bound to the arguments and what it captured. */
function inline(
  fn: Fn,
  f: FnVal,
  node: FunctionNode,
  src: FunctionSource,
  args: readonly (Val | undefined)[],
  lets: Lets,
  call: Node,
): Val {
  const inner = new Fn(fn.program, src, fn.names);
  const key = `${typeKey(typeOfVal(f))}(${args.map((a) => (a ? typeKey(typeOfVal(a)) : "_")).join(",")})`;
  if (INLINING.has(key) || INLINING.size >= MAX_DEPTH)
    return fn.fail(call, `${f.ref.label} calls itself: a function written inside another cannot be recursive`, {
      hint: "declare it at the top level of the module (a recursive function there is a recursive definition)",
    });
  const supplied = args.filter((a) => a !== undefined).length;
  const required = requiredParameters(inner, node.params);
  if (supplied < required && args.length < required)
    fn.fail(
      call,
      `${f.ref.label} takes ${required} argument${required === 1 ? "" : "s"}, but ${supplied} ${supplied === 1 ? "is" : "are"} given`,
    );
  let body = Env.empty();
  f.captures.forEach((c, i) => {
    if (c) body = body.set(c.name, captured(f.parts[i]!, c.decl));
  });
  checkLaterNames(fn, f, node, src, call);
  body = body.enterCallback();
  INLINING.add(key);
  try {
    const bound = bindParams(inner, node.params, args, body, lets);
    const { expr, type } = translateBody(inner, node.body, bound, node);
    return lets.bind(expr, type, "r", fn.span(call));
  } finally {
    INLINING.delete(key);
  }
}

const captured = (val: Val, decl: object): Binding => ({
  kind: "value",
  val,
  mutable: false,
  ownership: "foreign",
  decl,
  level: 0,
});

const DECLARED = new WeakMap<FunctionNode, ReadonlySet<string>>();

/**
 * A function written inside another that reads a variable of the enclosing function which it did not capture (not
 * declared yet where the function was written: declared after it, or the variable holding the function itself, which
 * would make it recursive): refused rather than read from another scope.
 */
function checkLaterNames(fn: Fn, f: FnVal, node: FunctionNode, src: FunctionSource, call: Node): void {
  let outer = DECLARED.get(src.node);
  if (!outer) DECLARED.set(src.node, (outer = declaredNames(src.node)));
  let own = DECLARED.get(node);
  if (!own) DECLARED.set(node, (own = declaredNames(node)));
  for (const name of mentionedNames(node)) {
    if (own.has(name) || !outer.has(name) || f.captures.some((c) => c?.name === name)) continue;
    const at = firstUse(node, name) ?? call;
    const inner = new Fn(fn.program, src, fn.names);
    if (holds(src.node, node, name))
      inner.fail(at, `a local function that calls itself is not supported (\`${name}\` calls \`${name}\`)`, {
        hint: "declare a recursive function at the top level of the module (it is then a recursive definition)",
      });
    inner.fail(at, `${f.ref.label} reads \`${name}\`, which is not declared yet where the function is written`, {
      hint: `declare \`${name}\` before the function`,
    });
  }
}

/** The first identifier `name` in the function's body. */
function firstUse(node: FunctionNode, name: string): Node | undefined {
  let found: Node | undefined;
  walkTree(node.body as Node, true, (n) => {
    if (found) return undefined;
    if (n.type === "Identifier" && (n as A.Identifier).name === name) found = n;
    return found ? undefined : true;
  });
  return found;
}

/** Is `node` the function declared as `name`, or the value a declaration of `name` starts with, inside `root`? */
function holds(root: FunctionNode, node: FunctionNode, name: string): boolean {
  if (node.type === "FunctionDeclaration") return node.id?.name === name;
  let found = false;
  walkTree(root as Node, true, (n) => {
    if (found) return undefined;
    if (n.type === "VariableDeclarator") {
      const d = n as A.VariableDeclarator;
      if (d.init === node && d.id.type === "Identifier" && d.id.name === name) found = true;
    }
    return found ? undefined : true;
  });
  return found;
}
