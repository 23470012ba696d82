// What the IR printer decides before printing: a unique, valid Smooth name for every variable, and (with sugar) which
// let-bound variables are printed inline at their single use.

import { PRIMS } from "../prims/table.js";
import { PRIM_NAMES } from "../prims/names.js";
import { KEYWORDS } from "../syntax/lexer.js";
import type { Expr, IrFunction, Var } from "./ir.js";
import { freeVars, operands } from "./free.js";

const BUILTINS = ["build", "ifold", "while", "customJvp", "customVjp", "get", "length", "fst", "snd", "pair"];

/** Names a variable must not take: keywords, and the built-ins the printer refers to (a binder would shadow them). */
const RESERVED: ReadonlySet<string> = new Set([
  ...KEYWORDS,
  ...BUILTINS,
  ...PRIM_NAMES.flatMap((op) => {
    const s = PRIMS[op].syntax;
    return "prefix" in s ? [s.prefix] : [];
  }),
]);

/** A valid identifier ([A-Za-z_][A-Za-z0-9_']*, not just underscores) close to `name`. */
export function sanitizeName(name: string): string {
  let s = name.replace(/[^A-Za-z0-9_']/g, "_");
  if (!/^[A-Za-z_]/.test(s)) s = `v${s}`;
  if (/^_*$/.test(s)) s = "v";
  return s;
}

/** Hands out unique printed names: the user's name when free, else `name_2`, `name_3`, ... */
export class Namer {
  private readonly taken = new Set<string>();
  private readonly names = new Map<number, string>();

  /** Next suffix to try for a base name (so naming n variables `x` costs O(n), not O(n^2)). */
  private readonly nextSuffix = new Map<string, number>();

  /** A namer that never hands out `names` (the program's functions, which a variable would shadow). */
  constructor(names: Iterable<string> = []) {
    for (const n of names) this.taken.add(n);
  }

  fresh(base: string): string {
    const s = sanitizeName(base);
    let candidate = s;
    let k = this.nextSuffix.get(s) ?? 2;
    while (this.taken.has(candidate) || RESERVED.has(candidate)) candidate = `${s}_${k++}`;
    this.nextSuffix.set(s, k);
    this.taken.add(candidate);
    return candidate;
  }

  nameOf(v: Var): string {
    let n = this.names.get(v.id);
    if (n === undefined) {
      n = this.fresh(v.name);
      this.names.set(v.id, n);
    }
    return n;
  }
}

/**
 * One walk over the program finds the let-bound variables used exactly once in the same region as their let: with
 * sugar, those print inline at their use. A region is the body of a lambda, build or ifold, or one branch of an if, so
 * inlining never moves a computation into a loop, a function or a branch.
 * Names are handed out as the printer first writes each variable (parameters and free variables first), so in the
 * text the first `x` a reader meets keeps its name.
 */
const MAX_NESTING = 6;

export class PrintAnalysis {
  readonly namer: Namer;
  /** Let-bound variables printed at their use, with their right-hand sides. */
  readonly inlined = new Map<number, Expr>();
  private readonly letRhs = new Map<number, Expr>();
  private readonly letRegion = new Map<number, number>();
  private readonly useCount = new Map<number, number>();
  private readonly useRegion = new Map<number, number>();
  /** Variables used as the function of an application. */
  private readonly called = new Set<number>();
  /** The printed name of the function, when printing one. */
  readonly functionName: string | undefined;
  private regions = 0;

  /**
   * `functions`: the printed names of the program's functions, by IR name (when printing a program that has some);
   * variables never take them. `name`: the printed name of `root` itself, when already decided.
   */
  constructor(
    root: IrFunction | Expr,
    sugar: boolean,
    readonly functions: ReadonlyMap<string, string> = new Map(),
    name?: string,
  ) {
    this.namer = new Namer(functions.values());
    this.functionName = "params" in root ? (name ?? this.namer.fresh(root.name)) : undefined;
    if ("params" in root) {
      for (const p of root.params) this.namer.nameOf(p);
      this.walk(root.body, 0);
    } else {
      // Free variables are the outer ones: they keep their names first.
      for (const v of freeVars(root).values()) this.namer.nameOf(v);
      this.walk(root, 0);
    }
    if (!sugar) return;
    // In binding order, so the operands of a right-hand side are decided before it. `height` is how deeply inlined
    // expressions nest in the one a variable prints as; past MAX_NESTING a name reads better (and a long chain of
    // single-use lets cannot become one enormous expression).
    const height = new Map<number, number>();
    for (const [id, rhs] of this.letRhs) {
      if (this.useCount.get(id) !== 1 || this.useRegion.get(id) !== this.letRegion.get(id)) continue;
      // `(fun x -> ...) a` reads worse than naming the function, so a lambda is inlined only as an argument.
      if (rhs.kind === "lam" && this.called.has(id)) continue;
      let h = 1;
      for (const a of operands(rhs)) if (a.kind === "var") h = Math.max(h, 1 + (height.get(a.id) ?? 0));
      if (h > MAX_NESTING) continue;
      height.set(id, h);
      this.inlined.set(id, rhs);
    }
  }

  private use(v: Var, region: number): void {
    this.useCount.set(v.id, (this.useCount.get(v.id) ?? 0) + 1);
    this.useRegion.set(v.id, region);
  }

  private walk(e: Expr, region: number): void {
    while (e.kind === "let") {
      this.walk(e.rhs, region);
      this.letRhs.set(e.v.id, e.rhs);
      this.letRegion.set(e.v.id, region);
      e = e.body;
    }
    for (const a of operands(e)) if (a.kind === "var") this.use(a, region);
    switch (e.kind) {
      case "app":
        if (e.fn.kind === "var") this.called.add(e.fn.id);
        return;
      case "lam":
        this.walk(e.body, ++this.regions);
        return;
      case "build":
        this.walk(e.body, ++this.regions);
        return;
      case "ifold":
        this.walk(e.body, ++this.regions);
        return;
      case "while":
        this.walk(e.cond, ++this.regions);
        this.walk(e.body, ++this.regions);
        return;
      case "if":
        this.walk(e.then, ++this.regions);
        this.walk(e.else, ++this.regions);
        return;
      default:
        return;
    }
  }
}
