// Small classes whose methods are pure (`class Particle { constructor(public x: number, public v: number) {}
// step(dt: number) { return new Particle(this.x + dt * this.v, this.v) } }`), defined in the module or in the closure
// of the function translated. An object made by `new` is a record of its fields that knows its class; the constructor
// is translated with `this` an object being built (each `this.x = ...` adds or sets a field), and a method or getter
// called on an object is inlined with `this` the object. Objects are values: a method that writes a field of `this`
// is refused at the write (JavaScript would change the object every holder sees).

import type * as A from "acorn";
import { fill, Holes, Env, Fn } from "./context.js";
import { bindParams, parameterPattern, requiredParameters, translateBody } from "./bodies.js";
import { expr, packAs } from "./expressions.js";
import type { FunctionSource, Resolver } from "./source.js";
import { stmts } from "./statements.js";
import { keyName, type Expression, type FunctionNode, type Node } from "./syntax.js";
import { classId, joinType, showTsType, typeKey, type TsType } from "./ts-types.js";
import { typeOfVal, type Lets, type Val } from "./values.js";
import type { SourceFile } from "../syntax/source.js";

/** A class the translator reads: its constructor, instance fields with initial values, methods, getters, statics. */
export interface ClassInfo {
  readonly name: string;
  readonly node: A.Class;
  readonly ctor?: FunctionNode;
  /** Instance fields declared in the class body (`x = 0;`), in order. */
  readonly fields: readonly { readonly key: string; readonly value: Expression | null; readonly node: Node }[];
  readonly methods: ReadonlyMap<string, FunctionNode>;
  readonly getters: ReadonlyMap<string, FunctionNode>;
  readonly statics: ReadonlyMap<string, FunctionNode>;
  /** The source of one of its functions (for spans and free names: the class's file and scope). */
  source(node: FunctionNode, what: string): FunctionSource;
}

/** The class of a class declaration or expression in `file` (positions shifted by `offset`); free names: `scope`. */
export function classInfo(node: A.Class, name: string, file: SourceFile, offset: number, scope: Resolver): ClassInfo {
  const fields: { key: string; value: Expression | null; node: Node }[] = [];
  const methods = new Map<string, FunctionNode>();
  const getters = new Map<string, FunctionNode>();
  const statics = new Map<string, FunctionNode>();
  let ctor: FunctionNode | undefined;
  const sources = new Map<FunctionNode, FunctionSource>();
  const info: ClassInfo = {
    name,
    node,
    get ctor() {
      return ctor;
    },
    fields,
    methods,
    getters,
    statics,
    source: (fnNode, what) => {
      let s = sources.get(fnNode);
      if (!s) sources.set(fnNode, (s = { name: `${name}.${what}`, node: fnNode, file, offset, scope }));
      return s;
    },
  };
  for (const m of node.body.body) {
    if (m.type === "MethodDefinition") {
      const key = keyName(m.key, m.computed);
      if (key === undefined) continue;
      if (m.kind === "constructor") ctor = m.value;
      else if (m.static) statics.set(key, m.value);
      else if (m.kind === "get") getters.set(key, m.value);
      else if (m.kind === "method") methods.set(key, m.value);
    } else if (m.type === "PropertyDefinition" && !m.static) {
      const key = keyName(m.key, m.computed);
      if (key !== undefined) fields.push({ key, value: m.value ?? null, node: m });
    }
  }
  return info;
}

/** The class of an object (a record made by `new`), if it has one. */
export const classOf = (x: Val): ClassInfo | undefined => (x.kind === "record" ? x.cls : undefined);

/** The calls of methods being inlined (class, method and types), to stop a method calling itself forever. */
const INLINING = new Set<string>();

/** `new C(...args)`: the constructor translated with `this` the object being built; the object, a record. */
export function construct(fn: Fn, c: ClassInfo, args: readonly Val[], env: Env, lets: Lets, call: Node): Val {
  const node = c.ctor;
  const src = c.source(node ?? (c.node as unknown as FunctionNode), "constructor");
  const inner = new Fn(fn.program, src, fn.names);
  if (c.node.superClass)
    return inner.fail(c.node.superClass, `\`${c.name}\` extends another class, which is not supported`, {
      hint: "give the class the fields and methods it needs itself, or use functions taking the object",
    });
  const key = `${classId(c)}.constructor(${args.map((a) => typeKey(typeOfVal(a))).join(",")})`;
  return guarded(fn, key, call, `the constructor of \`${c.name}\``, () => {
    let e = Env.empty().declare("this", { kind: "record", keys: [], fields: [], cls: c }, true, "owned", call);
    // Fields declared in the class body come first, as JavaScript initialises them.
    // (A field declared without a value, `x: number;`, is assigned by the constructor.)
    for (const f of c.fields)
      if (f.value) e = e.update("this", withField(e.value("this")!, f.key, expr(inner, f.value, e, lets)));
    if (!node) {
      if (args.length > 0) fn.fail(call, `\`${c.name}\` has no constructor: it takes no arguments`);
      return finished(fn, c, e.value("this")!, call);
    }
    const required = requiredParameters(inner, node.params);
    if (args.length < required)
      fn.fail(call, `the constructor of \`${c.name}\` takes ${required} arguments, but ${args.length} are given`);
    e = bindParams(inner, node.params, args, e, lets);
    // TypeScript's parameter properties (`constructor(public x: number)`) are fields too.
    for (const p of node.params) {
      if ((p as { type: string }).type !== "TSParameterProperty") continue;
      const target = parameterPattern(inner, p);
      const id = target.type === "AssignmentPattern" ? target.left : target;
      if (id.type === "Identifier") e = e.update("this", withField(e.value("this")!, id.name, e.value(id.name)!));
    }
    // The body: every way out ends with the object as it is then.
    const holes = new Holes();
    const body = stmts(inner, (node.body as A.BlockStatement).body, 0, e, {
      next: (after) => holes.add(after.value("this")!, after, node),
      ret: (_v, _e, n) => inner.fail(n, "a constructor that returns is not supported"),
    });
    let type: TsType | undefined;
    for (const h of holes.items) {
      const t = typeOfVal(h.val);
      type = type === undefined ? t : joinType(type, t);
      if (!type)
        inner.fail(h.node, `the fields of \`${c.name}\` differ between the ways through its constructor`, {
          found: showTsType(t),
        });
    }
    for (const h of holes.items) {
      finished(fn, c, h.val, call);
      fill(h.hole, packAs(h.val, type!, inner.span(h.node)));
    }
    return lets.bind(body, type!, c.name.toLowerCase() || "object", fn.span(call));
  });
}

/** An object whose construction is done: it must have a field. */
function finished(fn: Fn, c: ClassInfo, x: Val, call: Node): Val {
  if (x.kind === "record" && x.keys.length === 0)
    fn.fail(call, `an object of \`${c.name}\` has no fields, which has no value in Smooth`, {
      hint: "give the class a field, or use functions instead of a class without state",
    });
  return x;
}

/** The object with the field `key` set to `value` (added when it is new). */
export function withField(self: Val, key: string, value: Val): Val {
  const r = self as Extract<Val, { kind: "record" }>;
  const k = r.keys.indexOf(key);
  if (k >= 0) return { ...r, fields: r.fields.map((f, i) => (i === k ? value : f)) };
  return { ...r, keys: [...r.keys, key], fields: [...r.fields, value] };
}

/** `obj.name(...args)` of a class's object: the method inlined with `this` the object. */
export function callMethod(
  fn: Fn,
  c: ClassInfo,
  self: Val,
  name: string,
  node: FunctionNode,
  args: readonly Val[],
  lets: Lets,
  call: Node,
): Val {
  const inner = new Fn(fn.program, c.source(node, name), fn.names);
  const key = `${classId(c)}.${name}(${[self, ...args].map((a) => typeKey(typeOfVal(a))).join(",")})`;
  return guarded(fn, key, call, `the method \`${c.name}.${name}\``, () => {
    const required = requiredParameters(inner, node.params);
    if (args.length < required)
      fn.fail(call, `\`${c.name}.${name}\` takes ${required} arguments, but ${args.length} are given`);
    const env = Env.empty().declare("this", self, false, "foreign", call).enterCallback();
    const bound = bindParams(inner, node.params, args, env, lets);
    const { expr: body, type } = translateBody(inner, node.body, bound, node);
    return lets.bind(body, type, "r", fn.span(call));
  });
}

/** A static method of a class (`Particle.at(x)`), inlined without `this`. */
export function callStatic(
  fn: Fn,
  c: ClassInfo,
  name: string,
  node: FunctionNode,
  args: readonly Val[],
  lets: Lets,
  call: Node,
): Val {
  const inner = new Fn(fn.program, c.source(node, name), fn.names);
  const key = `${classId(c)}.static.${name}(${args.map((a) => typeKey(typeOfVal(a))).join(",")})`;
  return guarded(fn, key, call, `the static method \`${c.name}.${name}\``, () => {
    const env = Env.empty().enterCallback();
    const bound = bindParams(inner, node.params, args, env, lets);
    const { expr: body, type } = translateBody(inner, node.body, bound, node);
    return lets.bind(body, type, "r", fn.span(call));
  });
}

/** Runs `translate` unless the same call is being translated already (recursion, which inlining cannot end). */
function guarded(fn: Fn, key: string, call: Node, what: string, translate: () => Val): Val {
  if (INLINING.has(key) || INLINING.size > 64)
    return fn.fail(call, `${what} calls itself: a recursive method is not supported`, {
      hint: "write the recursion as a function of the module taking the object",
    });
  INLINING.add(key);
  try {
    return translate();
  } finally {
    INLINING.delete(key);
  }
}
