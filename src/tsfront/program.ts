// A TypeScript function as a Smooth program: the function (and every function it calls, once per argument types)
// becomes a definition whose body the translator builds from the TypeScript tree; the program is the prelude and
// those definitions, checked and lowered like any Smooth source (spans point into the TypeScript).

import { loadProgram, preludeFile, type SmoothProgram } from "../api/program.js";
import { withinCompilerStack } from "../api/compiler-stack.js";
import type { Definition, Expr } from "../syntax/ast.js";
import { fail, SmoothError } from "../syntax/diagnostics.js";
import { KEYWORDS } from "../syntax/lexer.js";
import { parseProgram } from "../syntax/parser.js";
import type { Span } from "../syntax/source.js";
import { BUILTINS } from "../types/builtins.js";
import { threadCaptures, type Capture } from "./captures.js";
import { Env, Fn, type Program } from "./context.js";
import { routeKey } from "./routes.js";
import { lam, param, unshare } from "./smooth-ast.js";
import { spanOf, type FunctionSource, type Route } from "./source.js";
import { bindParams, parameterPattern, requiredParameters, translateBody } from "./bodies.js";
import { returnTypeOf, type TypeNode } from "./syntax.js";
import { sameType, showTsType, T_BOOL, T_DOUBLE, tArray, typeKey, type TsType } from "./ts-types.js";
import { Lets, Names, typeOfVal, type FnVal, type Val } from "./values.js";
import { applyFunction } from "./function-values.js";
import { packAs } from "./expressions.js";

let preludeNames: ReadonlySet<string> | undefined;

/** Names generated code uses: the language's keywords and builtins, and the prelude's definitions. */
function reserved(name: string): boolean {
  preludeNames ??= new Set(parseProgram(preludeFile()).defs.map((d) => d.name));
  return KEYWORDS.has(name) || BUILTINS.has(name) || preludeNames.has(name);
}

const typesKey = (ts: readonly TsType[]): string => ts.map(typeKey).join(",");

interface Made {
  readonly name: string;
  readonly result: TsType;
}

/** A function being translated: its name, and the result type its recursive calls assume. */
interface InProgress extends Made {
  /** Whether a call used `result` before the translation finished (the assumption must then hold). */
  assumed: boolean;
}

/** How often a recursive function is translated again with the result type the previous attempt found. */
const MAX_RESULT_ATTEMPTS = 3;

/** How a translation for the library reads data from closures. */
export interface TranslateOptions {
  /**
   * The translator's type of data a closure holds, read as an Index where `integer` (a SmoothError where Smooth cannot
   * take it: `what` names it). Without it, a translation reads no data from closures.
   */
  readonly dataType?: (value: unknown, integer: boolean, what: string, span: Span) => TsType;
}

class ProgramBuilder implements Program {
  readonly defs: Definition[] = [];
  /** Data read from closures, by route (and Index-ness). */
  readonly captures = new Map<string, Capture>();
  /** Definition name -> the captures it reads itself. */
  readonly reads = new Map<string, Set<string>>();
  private readonly made = new Map<FunctionSource, Map<string, Made>>();
  /** The functions being translated, by source and argument types (two functions may have one name). */
  private readonly inProgress = new Map<FunctionSource, Map<string, InProgress>>();
  /** The definitions being translated, innermost last (the caller of a `define`). */
  private readonly callers: string[] = [];
  /** Definition name -> the definitions it calls (for the recursive groups, see `ordered`). */
  private readonly calls = new Map<string, Set<string>>();
  private readonly topNames = new Names(reserved);

  constructor(private readonly options: TranslateOptions = {}) {}

  reserved(name: string): boolean {
    return reserved(name);
  }

  capture(route: Route, value: unknown, integer: boolean, what: string, span: Span): Capture {
    const key = `${routeKey(route)}${integer ? "#index" : ""}`;
    let c = this.captures.get(key);
    if (!c) {
      if (!this.options.dataType)
        fail("unsupported", `${what} is data from outside the function, which is read only for the library`, span);
      const type = this.options.dataType(value, integer, what, span);
      const base = /^[A-Za-z_][A-Za-z0-9_]*$/.test(route.name) ? route.name : "data";
      c = { route, type, integer, name: `${base}'c${this.captures.size}`, span };
      this.captures.set(key, c);
    }
    const caller = this.callers[this.callers.length - 1];
    if (caller !== undefined) {
      let set = this.reads.get(caller);
      if (!set) this.reads.set(caller, (set = new Set()));
      set.add(c.name);
    }
    return c;
  }

  /** Definition name -> the definitions it calls. */
  get callGraph(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.calls;
  }

  define(src: FunctionSource, args: readonly TsType[], span: Span): Made {
    let byTypes = this.made.get(src);
    if (!byTypes) this.made.set(src, (byTypes = new Map<string, Made>()));
    const key = typesKey(args);
    const known = byTypes.get(key);
    if (known) return this.called(known);
    let progress = this.inProgress.get(src);
    if (!progress) this.inProgress.set(src, (progress = new Map<string, InProgress>()));
    const running = progress.get(key);
    if (running) {
      // A recursive call: the function's own name, and the result type assumed until its translation is done.
      running.assumed = true;
      return this.called(running);
    }
    const name = this.topNames.fresh(src.name);
    // A recursive function whose result is not a number is translated again with the type found (defs and cached
    // translations of the failed attempt are dropped: they may depend on the wrong assumption).
    let guess: TsType = declaredResult(returnTypeOf(src.node)) ?? T_DOUBLE;
    for (let attempt = 1; ; attempt++) {
      const entry: InProgress = { name, result: guess, assumed: false };
      const [defsBefore, cacheBefore] = [this.defs.length, [...this.made].map(([f, m]) => [f, new Map(m)] as const)];
      progress.set(key, entry);
      this.callers.push(name);
      let made: Made;
      try {
        made = { name, result: this.translate(src, args, name) };
      } catch (e) {
        // A recursive call typed with a wrong assumption can make the translation fail before it finds the type.
        if (e instanceof SmoothError && entry.assumed && returnTypeOf(src.node) === undefined)
          throw e.withHint(
            `\`${src.name}\` calls itself, and its calls were taken to return ${showTsType(guess)}: annotate its return type`,
          );
        throw e;
      } finally {
        this.callers.pop();
        progress.delete(key);
      }
      if (!entry.assumed || sameType(made.result, guess)) {
        byTypes.set(key, made);
        return this.called(made);
      }
      if (attempt === MAX_RESULT_ATTEMPTS)
        fail("type", `the result type of the recursive function \`${src.name}\` could not be settled`, span, {
          found: `${showTsType(guess)} assumed, ${showTsType(made.result)} found`,
          hint: "annotate what it returns, or return the same type on every path",
        });
      guess = made.result;
      this.defs.length = defsBefore;
      this.made.clear();
      for (const [f, m] of cacheBefore) this.made.set(f, m);
      byTypes = this.made.get(src)!;
    }
  }

  /** A definition calling a function value with parameters of these types (an entry that is a value). */
  defineValue(src: FunctionSource, value: FnVal, args: readonly TsType[]): Made {
    const name = this.topNames.fresh(src.name);
    const span = spanOf(src, src.node);
    const fn = new Fn(this, src, new Names(reserved));
    const lets = new Lets(fn.names);
    const params = args.map((type, k) => ({ name: fn.names.fresh(`x${k}`), type }));
    const vals = params.map((p) => lets.bind({ kind: "var", name: p.name, span }, p.type, p.name, span));
    this.callers.push(name);
    try {
      const r = applyFunction(fn, value, vals, Env.empty(), lets, src.node);
      const result = typeOfVal(r);
      const body = lets.wrap(packAs(r, result, span));
      const lambda = lam(
        params.map((p) => param(p.name, span, p.type)),
        body,
        span,
      );
      this.defs.push({ name, nameSpan: span, value: lambda, span });
      return { name, result };
    } finally {
      this.callers.pop();
    }
  }

  /** `made`, recorded as called by the definition being translated. */
  private called(made: Made): Made {
    const caller = this.callers[this.callers.length - 1];
    if (caller !== undefined) {
      let set = this.calls.get(caller);
      if (!set) this.calls.set(caller, (set = new Set()));
      set.add(made.name);
    }
    return made;
  }

  /**
   * The definitions, callees first, each group of functions that call each other (a strongly connected component of
   * the call graph, or a function calling itself) a `let rec ... and ...` group (Tarjan's algorithm lists the
   * components callees first).
   */
  ordered(): Definition[] {
    const byName = new Map(this.defs.map((d) => [d.name, d]));
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const out: Definition[] = [];
    const visit = (v: string): void => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      onStack.add(v);
      for (const w of this.calls.get(v) ?? []) {
        if (!byName.has(w)) continue;
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) !== index.get(v)) return;
      const group: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        group.unshift(w);
        if (w === v) break;
      }
      const recursive = group.length > 1 || (this.calls.get(v)?.has(v) ?? false);
      group.forEach((n, k) => {
        const d = byName.get(n)!;
        out.push(recursive ? { ...d, rec: k === 0 ? "rec" : "and" } : d);
      });
    };
    // A call chain as deep as the program's functions: the recursion here is as deep as the TypeScript's own calls.
    for (const d of this.defs) if (!index.has(d.name)) visit(d.name);
    return out;
  }

  /** Translates `src` into the definition `name`; returns its result type. */
  private translate(src: FunctionSource, args: readonly TsType[], name: string): TsType {
    const node = src.node;
    const span = spanOf(src, node);
    const params = node.params;
    const fn = new Fn(this, src, new Names(reserved));
    const required = requiredParameters(fn, params);
    if (args.length < required || args.length > params.length) {
      const takes = required === params.length ? `${required}` : `${required} to ${params.length}`;
      fail(
        "argument",
        `the TypeScript function \`${src.name}\` takes ${takes} argument${params.length === 1 ? "" : "s"}, but ${args.length} ${args.length === 1 ? "is" : "are"} given`,
        span,
      );
    }
    if (node.generator) fail("unsupported", "generator functions are not supported", span);
    if (node.async) fail("unsupported", "async functions are not supported", span);
    // Parameters: one Smooth parameter each (annotated with its type); objects and tuples taken apart in the body.
    const lets = new Lets(fn.names);
    const smoothParams = args.map((type, k) => {
      const p = parameterPattern(fn, params[k]!);
      const target = p.type === "AssignmentPattern" ? p.left : p;
      const base = target.type === "Identifier" ? target.name : `arg${k}`;
      return { name: fn.names.fresh(base), type, span: spanOf(src, p) };
    });
    const vals: Val[] = smoothParams.map((p) =>
      lets.bind({ kind: "var", name: p.name, span: p.span }, p.type, p.name, p.span),
    );
    const env = bindParams(fn, params, vals, Env.empty(), lets);
    const { expr: body, type } = translateBody(fn, node.body, env, node);
    const value: Expr = lam(
      smoothParams.map((p) => param(p.name, p.span, p.type)),
      lets.wrap(body),
      span,
    );
    this.defs.push({ name, nameSpan: nameSpan(src) ?? span, value, span });
    return type;
  }
}

/** The result type a function declares, where it is one the translation reads at once (numbers and arrays of them). */
function declaredResult(t: TypeNode | undefined): TsType | undefined {
  if (t === undefined) return undefined;
  if (t.type === "TSNumberKeyword") return T_DOUBLE;
  if (t.type === "TSBooleanKeyword") return T_BOOL;
  if (t.type === "TSArrayType") {
    const elem = declaredResult(t.elementType);
    return elem && tArray(elem);
  }
  if (t.type === "TSTypeReference" && t.typeName?.type === "Identifier") {
    const name = t.typeName.name;
    if (name === "Float64Array" || name === "Float32Array") return tArray(T_DOUBLE);
    const arg = (t.typeArguments ?? t.typeParameters)?.params[0];
    if ((name === "Array" || name === "ReadonlyArray") && arg) {
      const elem = declaredResult(arg);
      return elem && tArray(elem);
    }
  }
  return undefined;
}

function nameSpan(src: FunctionSource): Span | undefined {
  const id = src.node.id;
  return id ? spanOf(src, id) : undefined;
}

export interface TranslatedFunction {
  readonly program: SmoothProgram;
  /** The entry's definition name: it takes the arguments, then the captures. */
  readonly name: string;
  readonly result: TsType;
  /** Data the program reads from closures, in the order the entry takes it after its arguments. */
  readonly captures: readonly Capture[];
}

/**
 * The Smooth program of a TypeScript function at these parameter types; with `value`, of that function value (a
 * function with custom rules made of `src` and others) called with the parameters.
 */
export function translateFunction(
  src: FunctionSource,
  params: readonly TsType[],
  options: TranslateOptions = {},
  value?: FnVal,
): TranslatedFunction {
  const builder = new ProgramBuilder(options);
  const span = spanOf(src, src.node);
  // Statement lists and operator chains are translated in loops; other nesting (calls in calls) recurses.
  const made = withinCompilerStack(
    `\`${src.name}\``,
    () => (value ? builder.defineValue(src, value, params) : builder.define(src, params, span)),
    span,
  );
  const { defs, entry, captures } = threadCaptures(
    builder.ordered(),
    made.name,
    [...builder.captures.values()],
    builder.reads,
    builder.callGraph,
  );
  const program = loadProgram(src.file, { ast: { defs: defs.map((d) => ({ ...d, value: unshare(d.value) })) } });
  return { program, name: entry, result: made.result, captures };
}
