// Data a translated function reads from closures (./routes.ts) is a parameter of the program: of the entry, after its
// arguments, and of every definition that reads it directly or through the definitions it calls, before their own
// parameters — so a reference to such a definition `f` becomes `f X`, a call `f X a b`, and the definitions stay
// closed (first-order after inlining, as the compiler needs them; a recursive one passes X on to itself).

import type { Definition, Expr, Param } from "../syntax/ast.js";
import type { Span } from "../syntax/source.js";
import { annotation, app, lam, v } from "./smooth-ast.js";
import type { Route } from "./source.js";
import type { TsType } from "./ts-types.js";

/** Data the program reads from a closure. */
export interface Capture {
  readonly route: Route;
  readonly type: TsType;
  /** Read as an Index (the function uses it as an index or a length). */
  readonly integer: boolean;
  /** Its parameter's name in the program (with a prime: no TypeScript name meets it). */
  readonly name: string;
  readonly span: Span;
}

/**
 * The captures each definition needs: those it reads, and those of the definitions it calls (a fixpoint over the
 * call graph, so a recursive group needs what any of its members reads).
 */
function needsOf(
  defs: readonly Definition[],
  reads: ReadonlyMap<string, ReadonlySet<string>>,
  calls: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, Set<string>> {
  const needs = new Map(defs.map((d) => [d.name, new Set(reads.get(d.name) ?? [])]));
  for (let changed = true; changed;) {
    changed = false;
    for (const d of defs) {
      const mine = needs.get(d.name)!;
      for (const callee of calls.get(d.name) ?? [])
        for (const c of needs.get(callee) ?? [])
          if (!mine.has(c)) {
            mine.add(c);
            changed = true;
          }
    }
  }
  return needs;
}

interface Slot {
  readonly get: () => Expr;
  readonly set: (x: Expr) => void;
  /** The names bound over it (by a lambda, a let, a let rec). */
  readonly binds: readonly string[];
}

const slot = (o: object, k: string, binds: readonly string[] = []): Slot => ({
  get: () => (o as Record<string, Expr>)[k]!,
  set: (x) => {
    (o as Record<string, Expr>)[k] = x;
  },
  binds,
});

/** The child slots of a node. */
function slots(e: Expr): Slot[] {
  switch (e.kind) {
    case "var":
    case "num":
    case "bool":
    case "opfun":
      return [];
    case "typed":
      return [slot(e, "expr")];
    case "tuple":
      return e.elems.map((_, i) => slot(e.elems, String(i)));
    case "binop":
      return [slot(e, "left"), slot(e, "right")];
    case "unop":
      return [slot(e, "arg")];
    case "app":
      return [slot(e, "fn"), slot(e, "arg")];
    case "index":
      return [slot(e, "array"), slot(e, "index")];
    case "lam":
      return [
        slot(
          e,
          "body",
          e.params.map((p) => p.name),
        ),
      ];
    case "if":
      return [slot(e, "cond"), slot(e, "then"), slot(e, "else")];
    case "let":
      return [slot(e, "value"), slot(e, "body", patternNames(e.pattern))];
    case "letrec": {
      const names = e.bindings.map((b) => b.name);
      return [...e.bindings.map((b) => slot(b, "value", names)), slot(e, "body", names)];
    }
  }
}

type Pat = Extract<Expr, { kind: "let" }>["pattern"];
const patternNames = (p: Pat): string[] => (p.kind === "pvar" ? [p.name] : p.elems.flatMap(patternNames));

/** Replaces each free reference to a definition that takes captures by its application to them. */
function applyCaptures(body: Expr, takes: ReadonlyMap<string, readonly Capture[]>): Expr {
  const holder = { body };
  const work: { slot: Slot; shadowed: ReadonlySet<string> }[] = [{ slot: slot(holder, "body"), shadowed: new Set() }];
  while (work.length > 0) {
    const { slot: s, shadowed } = work.pop()!;
    const e = s.get();
    if (e.kind === "var") {
      const caps = shadowed.has(e.name) ? undefined : takes.get(e.name);
      if (caps)
        s.set(
          app(
            e,
            caps.map((c) => v(c.name, e.span)),
            e.span,
          ),
        );
      continue;
    }
    for (const child of slots(e)) {
      const hides = child.binds.filter((n) => takes.has(n));
      work.push({ slot: child, shadowed: hides.length === 0 ? shadowed : new Set([...shadowed, ...hides]) });
    }
  }
  return holder.body;
}

/** A translated definition's lambda (every definition the translator makes is one). */
function lambdaOf(d: Definition): Extract<Expr, { kind: "lam" }> {
  if (d.value.kind !== "lam") throw new Error(`threadCaptures: \`${d.name}\` is not a function`);
  return d.value;
}

/** A capture as a parameter, annotated with its type. */
const captureParam = (c: Capture): Param => ({ name: c.name, span: c.span, annot: annotation(c.type, c.span) });

/**
 * The definitions with the captures threaded through (see the header), and the entry to call: `entry` itself when it
 * reads none, else a definition taking the entry's arguments and then its captures (`captures`, in that order).
 */
export function threadCaptures(
  defs: readonly Definition[],
  entry: string,
  all: readonly Capture[],
  reads: ReadonlyMap<string, ReadonlySet<string>>,
  calls: ReadonlyMap<string, ReadonlySet<string>>,
): { defs: Definition[]; entry: string; captures: Capture[] } {
  const needs = needsOf(defs, reads, calls);
  const takes = new Map<string, Capture[]>();
  for (const d of defs) {
    const n = needs.get(d.name)!;
    if (n.size > 0)
      takes.set(
        d.name,
        all.filter((c) => n.has(c.name)),
      );
  }
  const entryCaptures = takes.get(entry) ?? [];
  if (takes.size === 0) return { defs: [...defs], entry, captures: [] };
  const threaded = defs.map((d): Definition => {
    const caps = takes.get(d.name) ?? [];
    const f = lambdaOf(d);
    return { ...d, value: lam([...caps.map(captureParam), ...f.params], applyCaptures(f.body, takes), f.span) };
  });
  if (entryCaptures.length === 0) return { defs: threaded, entry, captures: [] };
  // The entry with its arguments first, then its captures: the library passes hidden parameters last.
  const def = defs.find((d) => d.name === entry)!;
  const span = def.span;
  const args = lambdaOf(def).params.map((p) => ({ ...p }));
  const call = app(entry, [...entryCaptures.map((c) => v(c.name, span)), ...args.map((p) => v(p.name, span))], span);
  const wrapper: Definition = {
    name: `${entry}'entry`,
    nameSpan: def.nameSpan,
    value: lam([...args, ...entryCaptures.map(captureParam)], call, span),
    span,
  };
  return { defs: [...threaded, wrapper], entry: wrapper.name, captures: entryCaptures };
}
