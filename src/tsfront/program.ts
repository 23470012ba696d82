// A TypeScript function as a Smooth program: the function (and every function it calls, once per argument types)
// becomes a definition whose body the translator builds from the TypeScript tree; the program is the prelude and
// those definitions, checked and lowered like any Smooth source (spans point into the TypeScript).

import type * as TS from "typescript";
import { loadProgram, preludeFile, type SmoothProgram } from "../api/program.js";
import type { Definition, Expr } from "../syntax/ast.js";
import { fail } from "../syntax/diagnostics.js";
import { KEYWORDS } from "../syntax/lexer.js";
import { parseProgram } from "../syntax/parser.js";
import type { Span } from "../syntax/source.js";
import { BUILTINS } from "../types/builtins.js";
import { typescript } from "./compiler.js";
import { Env, Fn, type Program } from "./context.js";
import { lam, param } from "./smooth-ast.js";
import { spanOf, type FunctionSource } from "./source.js";
import { bindParams, translateBody } from "./bodies.js";
import { showTsType, type TsType } from "./ts-types.js";
import { Lets, Names, type Val } from "./values.js";

let preludeNames: ReadonlySet<string> | undefined;

/** Names generated code uses: the language's keywords and builtins, and the prelude's definitions. */
function reserved(name: string): boolean {
  preludeNames ??= new Set(parseProgram(preludeFile()).defs.map((d) => d.name));
  return KEYWORDS.has(name) || BUILTINS.has(name) || preludeNames.has(name);
}

const typesKey = (ts: readonly TsType[]): string => ts.map(showTsType).join(",");

class ProgramBuilder implements Program {
  readonly ts = typescript();
  readonly defs: Definition[] = [];
  private readonly made = new Map<FunctionSource, Map<string, { name: string; result: TsType }>>();
  private readonly inProgress = new Set<string>();
  private readonly topNames = new Names(reserved);

  reserved(name: string): boolean {
    return reserved(name);
  }

  define(src: FunctionSource, args: readonly TsType[], span: Span): { name: string; result: TsType } {
    let byTypes = this.made.get(src);
    if (!byTypes) this.made.set(src, (byTypes = new Map<string, { name: string; result: TsType }>()));
    const key = typesKey(args);
    const known = byTypes.get(key);
    if (known) return known;
    const progress = `${src.name}(${key})`;
    if (this.inProgress.has(progress))
      fail("unsupported", `\`${src.name}\` calls itself: recursive functions are not supported yet`, span, {
        hint: "the language's recursion is being added; write the recursion as a loop meanwhile",
      });
    this.inProgress.add(progress);
    try {
      const made = this.translate(src, args);
      byTypes.set(key, made);
      return made;
    } finally {
      this.inProgress.delete(progress);
    }
  }

  private translate(src: FunctionSource, args: readonly TsType[]): { name: string; result: TsType } {
    const ts = this.ts;
    const node = src.node;
    const span = spanOf(src, node);
    const params = node.parameters;
    if (args.length !== params.length)
      fail(
        "argument",
        `the TypeScript function \`${src.name}\` takes ${params.length} argument${params.length === 1 ? "" : "s"}, but ${args.length} ${args.length === 1 ? "is" : "are"} given`,
        span,
      );
    if (node.asteriskToken) fail("unsupported", "generator functions are not supported", span);
    if (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Async)
      fail("unsupported", "async functions are not supported", span);
    if (!node.body) fail("unsupported", `\`${src.name}\` has no body`, span);
    const fn = new Fn(this, src, new Names(reserved));
    // Parameters: one Smooth parameter each (annotated with its type); objects and tuples taken apart in the body.
    const lets = new Lets(fn.names);
    const smoothParams = params.map((p, k) => {
      const base = ts.isIdentifier(p.name) ? p.name.text : `arg${k}`;
      return { name: fn.names.fresh(base), type: args[k]!, span: spanOf(src, p) };
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
    const name = this.topNames.fresh(src.name);
    this.defs.push({ name, nameSpan: nameSpan(ts, src, node) ?? span, value, span });
    return { name, result: type };
  }
}

function nameSpan(ts: typeof TS, src: FunctionSource, node: FunctionSource["node"]): Span | undefined {
  const name = (node as { name?: TS.Node }).name;
  return name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) ? spanOf(src, name) : undefined;
}

export interface TranslatedFunction {
  readonly program: SmoothProgram;
  /** The entry's definition name. */
  readonly name: string;
  readonly result: TsType;
}

/** The Smooth program of a TypeScript function at these parameter types. */
export function translateFunction(src: FunctionSource, params: readonly TsType[]): TranslatedFunction {
  const builder = new ProgramBuilder();
  const { name, result } = builder.define(src, params, spanOf(src, src.node));
  const program = loadProgram(src.file, { ast: { defs: builder.defs } });
  return { program, name, result };
}
