// The trace graph: what a staged TypeScript function has computed so far, as named bindings in nested scopes.
//
// Every traced operation becomes one Binding (one `let` of the emitted program), so a value the user computes once and
// uses twice is computed once (paper 003 Appendix B: sharing written by the user is kept). Bindings live in a Scope:
// the function's body, or the body of a `build`/`ifold`/lambda or a branch of `cond`, which are traced as nested
// scopes. A node may be used in its own scope and in scopes nested inside it, never outside (it would escape).

import type { Type } from "../types/types.js";
import { stagingFail } from "./errors.js";
import type { StaticType } from "./static-type.js";

export interface Node {
  readonly id: number;
  readonly name: string;
  readonly type: StaticType;
  readonly scope: Scope;
  /** The binding that defines the node; undefined for a parameter (of the function or of a lambda). */
  binding?: Binding;
}

/** What a binding names: one node, or a tuple pattern (`let (a, (b, c)) = ...`). */
export type Pattern = Node | readonly Pattern[];

export type Operand =
  | { readonly kind: "node"; readonly node: Node }
  | { readonly kind: "lit"; readonly value: number; readonly type: "double" | "int" }
  | { readonly kind: "tuple"; readonly elems: readonly Operand[] };

export interface Block {
  readonly scope: Scope;
  readonly result: Operand;
}

/** `fun (p0: T0) (p1: T1) -> body`; a tuple parameter is destructured by the first binding of the body. */
export interface Lambda {
  readonly kind: "lambda";
  readonly params: readonly Node[];
  readonly body: Block;
}

export type BinarySymbol = "+" | "-" | "*" | "/" | "**" | "<" | ">" | "<=" | ">=" | "=" | "<>" | "&&" | "||";

/** A binding's right-hand side: one construct of the language over operands (never a nested expression). */
export type Rhs =
  | { readonly kind: "binop"; readonly op: BinarySymbol; readonly left: Operand; readonly right: Operand }
  | { readonly kind: "neg"; readonly arg: Operand }
  /** A builtin or prelude function applied to its arguments: `exp t1`, `vectorAdd t1 t2`, `map2 (fun ...) t1 t2`. */
  | { readonly kind: "call"; readonly fn: string; readonly args: readonly (Operand | Lambda)[] }
  | { readonly kind: "index"; readonly array: Operand; readonly index: Operand }
  | { readonly kind: "build"; readonly count: Operand; readonly body: Lambda }
  | { readonly kind: "ifold"; readonly body: Lambda; readonly init: Operand; readonly count: Operand }
  | { readonly kind: "if"; readonly cond: Operand; readonly then: Block; readonly else: Block }
  /** An operand as it is: destructuring a tuple, or naming a constant. */
  | { readonly kind: "value"; readonly value: Operand };

export interface Binding {
  readonly pattern: Pattern;
  readonly rhs: Rhs;
  /**
   * Where the user's code made a Bool (to report one that is never used: it went into a JavaScript condition): the
   * call stack, captured now and read only if it is reported.
   */
  readonly site?: Error;
}

/**
 * A trace stops after this many operations: a JavaScript loop whose condition is a tensor never ends (a tensor is
 * always truthy). Loops over data belong in build and ifold, which trace their body once.
 */
export const MAX_TRACED_OPERATIONS = 100_000;

export class Scope {
  readonly bindings: Binding[] = [];
  /** `length x` already computed in this scope, by the id of x (computed once per scope chain). */
  readonly lengths = new Map<number, Node>();

  constructor(
    readonly trace: Trace,
    readonly parent: Scope | undefined,
    /** Where the scope comes from, for messages: "the body of `build`". */
    readonly label: string,
  ) {}

  /** True when a node of scope `s` may be used here: s is this scope or one it is nested in. */
  sees(s: Scope): boolean {
    if (s === this) return true;
    for (let c = this.parent; c; c = c.parent) if (c === s) return true;
    return false;
  }

  /** The node for `length x` computed here or in an enclosing scope. */
  knownLength(x: Node): Node | undefined {
    const here = this.lengths.get(x.id);
    if (here) return here;
    for (let c = this.parent; c; c = c.parent) {
      const hit = c.lengths.get(x.id);
      if (hit) return hit;
    }
    return undefined;
  }
}

/**
 * A function the staged one calls that is not a staged operation (a library function, e.g. grad(g), called with
 * tensors): the emitted definition takes it as an extra parameter, which the caller binds to the function's program.
 */
export interface External {
  /** The parameter's generated name. */
  readonly name: string;
  readonly type: Type;
  /** What the caller needs to bind it (opaque to the tracer). */
  readonly payload: unknown;
}

/**
 * A value from outside the function that the trace reads: a tensor of an enclosing trace (a closure traced inside
 * another function's trace: `x => mul(x, grad(y => mul(x, y))(3))`) or data the function closed over (a Float64Array).
 * The emitted definition takes it as a parameter after its arguments, which whoever calls the definition supplies (the
 * enclosing trace passes its tensor, the library the data's current contents).
 */
export interface Capture {
  /** The parameter standing for the value (in the root scope, unbound). */
  readonly node: Node;
  /** What the caller needs to supply it (opaque to the tracer): the enclosing trace's tensor, or the data. */
  readonly payload: unknown;
}

/** One staging of one function: its scopes and a counter for fresh names. */
export class Trace {
  private nextId = 0;
  readonly root: Scope;
  current: Scope;
  readonly externals: External[] = [];
  private readonly externalKeys = new Map<unknown, External>();
  readonly captures: Capture[] = [];
  private readonly captureKeys = new Map<unknown, Capture>();

  /** The parameter for the outside value `key` (one per distinct value), of type `type`. */
  capture(key: unknown, type: StaticType, payload: unknown): Node {
    let c = this.captureKeys.get(key);
    if (!c) {
      c = { node: this.freshNode("c", type, `c${this.captures.length}`, this.root), payload };
      this.captures.push(c);
      this.captureKeys.set(key, c);
    }
    return c.node;
  }
  /** How many operations have been recorded (bounded: a trace that does not end is stopped). */
  operations = 0;

  /** The external function for `key` (one parameter per distinct function called). */
  external(key: unknown, type: Type, payload: unknown): External {
    let e = this.externalKeys.get(key);
    if (!e) {
      e = { name: `ext${this.externals.length}`, type, payload };
      this.externals.push(e);
      this.externalKeys.set(key, e);
    }
    return e;
  }

  constructor() {
    this.root = new Scope(this, undefined, "the staged function");
    this.current = this.root;
  }

  /** A node with a fresh name (prefix + number) in the current scope (or `scope`), not yet bound. */
  freshNode(prefix: string, type: StaticType, name?: string, scope = this.current): Node {
    const id = this.nextId++;
    return { id, name: name ?? `${prefix}${id}`, type, scope };
  }

  /**
   * Binds `rhs` in the current scope. A tuple-typed right-hand side is destructured at once into one node per scalar or
   * array component (`let (t1, (t2, t3)) = ...`): staged values are never tuples, JavaScript arrays are. The
   * components are named after `base` when given (`x1_0`, `x1_1` for a parameter x1).
   */
  bind(rhs: Rhs, type: StaticType, prefix = "t", base?: string): Pattern {
    return this.bindIn(this.current, rhs, type, prefix, base);
  }

  /**
   * Binds `rhs` in `scope`, the current one or one enclosing it (where all its operands must be defined). The binding
   * comes before the construct that encloses the current scope, since that construct is bound only once its body is
   * traced.
   */
  bindIn(scope: Scope, rhs: Rhs, type: StaticType, prefix = "t", base?: string): Pattern {
    if (++this.operations > MAX_TRACED_OPERATIONS)
      stagingFail(
        `the trace has recorded ${MAX_TRACED_OPERATIONS} operations without ending: a JavaScript loop whose condition ` +
          "is a tensor never ends (JavaScript sees every tensor as true); loop over data with build or ifold",
      );
    const pattern = this.pattern(type, prefix, base, scope);
    const site = type.k === "bool" ? new Error() : undefined;
    const binding: Binding = site ? { pattern, rhs, site } : { pattern, rhs };
    setBinding(pattern, binding);
    scope.bindings.push(binding);
    return pattern;
  }

  /** Fresh nodes for the components of `type`, named after `base` when given (`x1_0`, `x1_1`). */
  private pattern(type: StaticType, prefix: string, base: string | undefined, scope: Scope): Pattern {
    if (type.k !== "tuple") return this.freshNode(prefix, type, base, scope);
    return type.elems.map((e, k) => this.pattern(e, prefix, base === undefined ? undefined : `${base}_${k}`, scope));
  }

  /**
   * Runs `body` in a new scope nested in the current one. Afterwards (even on an error) the current scope is the outer
   * one again, which does not see the nested scope: its nodes cannot be used any more.
   */
  nested<R>(label: string, body: (scope: Scope) => R): R {
    const outer = this.current;
    const scope = new Scope(this, outer, label);
    this.current = scope;
    try {
      return body(scope);
    } finally {
      this.current = outer;
    }
  }
}

function setBinding(p: Pattern, b: Binding): void {
  if (Array.isArray(p)) for (const q of p as readonly Pattern[]) setBinding(q, b);
  else (p as Node).binding = b;
}

/** Calls `f` on each operand a right-hand side reads, including the results of its nested bodies. */
export function forEachOperand(r: Rhs, f: (o: Operand) => void): void {
  switch (r.kind) {
    case "binop":
      f(r.left);
      return f(r.right);
    case "neg":
      return f(r.arg);
    case "call":
      for (const a of r.args) f(a.kind === "lambda" ? a.body.result : a);
      return;
    case "index":
      f(r.array);
      return f(r.index);
    case "build":
      f(r.count);
      return f(r.body.body.result);
    case "ifold":
      f(r.init);
      f(r.count);
      return f(r.body.body.result);
    case "if":
      f(r.cond);
      f(r.then.result);
      return f(r.else.result);
    case "value":
      return f(r.value);
  }
}

export function patternNodes(p: Pattern): Node[] {
  return Array.isArray(p) ? (p as readonly Pattern[]).flatMap(patternNodes) : [p as Node];
}

// The trace being recorded. Staging is synchronous; a function staged while another is being traced gets its own
// Trace, and the outer one is restored afterwards. `enclosing` holds the traces being recorded around the active one.
let active: Trace | undefined;
const enclosing: Trace[] = [];

export function activeTrace(): Trace | undefined {
  return active;
}

/** Whether `trace` is being recorded around the active trace (its tensors may be captured, see Capture). */
export const isEnclosing = (trace: Trace): boolean => enclosing.includes(trace);

/** The trace an operation records into; outside staging, an operation on tensors is an error naming it. */
export function traceFor(op: string): Trace {
  if (!active) {
    stagingFail(
      `\`${op}\` was called outside a staged function (staged operations exist only while a function is traced)`,
    );
  }
  return active;
}

export function withTrace<R>(trace: Trace, body: () => R): R {
  const outer = active;
  if (outer) enclosing.push(outer);
  active = trace;
  try {
    return body();
  } finally {
    active = outer;
    if (outer) enclosing.pop();
  }
}

/**
 * Checks that `node` may be used by `op` here: traced by the active trace, in the current scope or one enclosing it.
 */
export function checkVisible(node: Node, op: string): void {
  const trace = active;
  if (!trace || node.scope.trace !== trace) {
    // (A tensor of an enclosing trace is captured before this check: see `localNode` in ./tensor.ts.)
    stagingFail(`\`${op}\`: a tensor from another staged function (or one whose tracing has finished) was used`);
  }
  if (!trace.current.sees(node.scope)) {
    stagingFail(
      `\`${op}\`: a tensor created inside ${node.scope.label} is used outside it; ` +
        "a value computed in a body or branch can only leave it as that body's result",
    );
  }
}
