// What the translator's parts share: the program being made (its definitions, one per function and argument types),
// the function being translated (its names, its source for spans and messages), the environment of TypeScript
// names, and the continuations of statement translation.

import type { Definition, Expr } from "../syntax/ast.js";
import { fail, type ErrorKind } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { Capture } from "./captures.js";
import { spanOf, type FunctionSource, type Route } from "./source.js";
import type { FunctionNode, Node } from "./syntax.js";
import type { TsType } from "./ts-types.js";
import type { Names, Val } from "./values.js";

/** A function declared or bound inside the function being translated: inlined where it is called. */
export interface LocalFunction {
  readonly kind: "function";
  readonly node: FunctionNode;
}

/** A translated function body's exits that must agree: holes filled once the common type is known. */
export class Holes {
  readonly items: { readonly hole: Expr; readonly val: Val; readonly env: Env; readonly node: Node }[] = [];

  add(val: Val, env: Env, node: Node): Expr {
    const hole = { kind: "var", name: "", span: undefined } as unknown as Expr;
    this.items.push({ hole, val, env, node });
    return hole;
  }
}

/** Turns a hole into the expression it stands for. */
export function fill(hole: Expr, e: Expr): void {
  const h = hole as unknown as Record<string, unknown>;
  for (const k of Object.keys(h)) delete h[k];
  Object.assign(h, e);
}

/**
 * Whose an array (or object) value is: `owned` when this function made it and nothing else holds it (it may be written
 * element by element), `shared` once it was stored elsewhere (a write would be seen there in JavaScript, not in
 * Smooth, whose arrays are values), `foreign` for a parameter's or a closure's.
 */
export type Ownership = "owned" | "shared" | "foreign";

export interface ValueBinding {
  readonly kind: "value";
  readonly val: Val;
  /** Declared with `let` (reassignable). */
  readonly mutable: boolean;
  readonly ownership: Ownership;
  /** The declaration (its identity tells a variable from one of the same name in an inner scope). */
  readonly decl: object;
  /** The callback nesting depth where it was declared (a callback of map or reduce cannot assign outer variables). */
  readonly level: number;
}

export type Binding = ValueBinding | (LocalFunction & { readonly decl: object; readonly level: number });

/** TypeScript names in scope: immutable (each statement makes a new one). */
/**
 * An immutable map of bindings that is cheap to extend: a shared base and a small map of what was set since, merged
 * into a new base once it grows past the square root of the base. Copying the whole map per declaration was quadratic
 * in a function's length (10⁴ statements). Iteration order is a Map's: insertion order, an update keeping its place.
 */
class Bindings {
  private constructor(
    private readonly base: ReadonlyMap<string, Binding>,
    private readonly delta: ReadonlyMap<string, Binding>,
  ) {}

  static empty(): Bindings {
    return new Bindings(new Map(), new Map());
  }

  static of(map: ReadonlyMap<string, Binding>): Bindings {
    return new Bindings(map, new Map());
  }

  get(name: string): Binding | undefined {
    return this.delta.get(name) ?? this.base.get(name);
  }

  with(name: string, b: Binding): Bindings {
    const delta = new Map(this.delta);
    delta.set(name, b);
    if (delta.size <= 16 || delta.size * delta.size <= this.base.size) return new Bindings(this.base, delta);
    const base = new Map(this.base);
    for (const [k, v] of delta) base.set(k, v);
    return new Bindings(base, new Map());
  }

  *entries(): Generator<[string, Binding]> {
    for (const [k, v] of this.base) yield [k, this.delta.get(k) ?? v];
    for (const [k, v] of this.delta) if (!this.base.has(k)) yield [k, v];
  }

  keys(): string[] {
    return [...this.entries()].map(([k]) => k);
  }
}

export class Env {
  private constructor(
    private readonly map: Bindings,
    /** The callback nesting depth of the code being translated. */
    readonly level: number,
  ) {}

  static empty(): Env {
    return new Env(Bindings.empty(), 0);
  }

  get(name: string): Binding | undefined {
    return this.map.get(name);
  }

  set(name: string, b: Binding): Env {
    return new Env(this.map.with(name, b), this.level);
  }

  /**
   * A new variable. Its declaration is a new object each time (not the syntax node, which a loop body or an inlined
   * function declares again): a function value tells the variables it captured by it (./function-values.ts).
   */
  declare(name: string, val: Val, mutable: boolean, ownership: Ownership, node: object): Env {
    return this.set(name, { kind: "value", val, mutable, ownership, decl: { node }, level: this.level });
  }

  /** A variable's new value (its declaration, mutability and ownership kept unless given). */
  update(name: string, val: Val, ownership?: Ownership): Env {
    const b = this.map.get(name) as ValueBinding;
    return this.set(name, { ...b, val, ownership: ownership ?? b.ownership });
  }

  value(name: string): Val | undefined {
    const b = this.map.get(name);
    return b?.kind === "value" ? b.val : undefined;
  }

  /** Inside a callback: variables declared outside it are read-only. */
  enterCallback(): Env {
    return new Env(this.map, this.level + 1);
  }

  /** Leaving a block: the outer scope's variables, with the values the block gave them. */
  exitTo(outer: Env): Env {
    const m = new Map<string, Binding>();
    for (const [name, b] of outer.map.entries()) {
      const inner = this.map.get(name);
      m.set(name, inner && inner.decl === b.decl ? inner : b);
    }
    return new Env(Bindings.of(m), outer.level);
  }

  names(): string[] {
    return this.map.keys();
  }
}

/** Where control goes after a statement list: on, out of the function, out of or on to the next round of a loop. */
export interface Ctx {
  readonly next: (env: Env) => Expr;
  readonly ret: (val: Val, env: Env, node: Node) => Expr;
  readonly brk?: (env: Env, node: Node) => Expr;
  readonly cont?: (env: Env, node: Node) => Expr;
}

export interface Program {
  /** The definition of `src` at these argument types (made once, callees before callers). */
  define(src: FunctionSource, args: readonly TsType[], span: Span): { name: string; result: TsType };
  /** Names a generated program must not give to a user's variable (builtins and prelude definitions). */
  reserved(name: string): boolean;
  /** The parameter holding data read from a closure by `route` (`what` names it in messages). */
  capture(route: Route, value: unknown, integer: boolean, what: string, span: Span): Capture;
  readonly defs: Definition[];
}

/** The function being translated, with its own names. */
export class Fn {
  constructor(
    readonly program: Program,
    readonly src: FunctionSource,
    readonly names: Names,
  ) {}

  span(node: Node): Span {
    return spanOf(this.src, node);
  }

  /** A located error at `node` of the TypeScript source. */
  fail(
    node: Node,
    summary: string,
    details: { hint?: string; expected?: string; found?: string } = {},
    kind: ErrorKind = "unsupported",
  ): never {
    return fail(kind, summary, this.span(node), details);
  }

  /** The node's source text, for messages (shortened). */
  text(node: Node): string {
    const span = this.span(node);
    const t = span.file.text.slice(span.start, span.end).replace(/\s+/g, " ");
    return t.length > 40 ? `${t.slice(0, 37)}...` : t;
  }
}
