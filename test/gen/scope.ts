// The variables a generated expression may use: values (with their static shapes; loop indexes also with the range
// of values they take) and local functions. Also the expressions reachable from them without any risk: `x`,
// `x[0]` of a non-empty array, `fst x`, `snd x`. Those give leaves of a wanted type and sizes (`length x`).

import { sameType, type FunType, type GenType } from "./types.js";

export type Binding =
  | {
      readonly kind: "value";
      readonly name: string;
      readonly type: GenType;
      /** For a loop index: it takes the values 0 .. bound-1, so it indexes any array at least `bound` long. */
      readonly bound?: number;
    }
  | { readonly kind: "fun"; readonly name: string; readonly type: FunType }
  /**
   * A local recursive function `name (n: Index) (x: state) : result`. Outside its own body it is called with a small
   * literal count; inside its step (`counter` set) with `counter - 1`, so every recursion ends.
   */
  | {
      readonly kind: "rec";
      readonly name: string;
      readonly state: GenType;
      readonly result: GenType;
      readonly counter?: string;
    };

/** An expression built from variables alone, and its type. */
export interface Path {
  readonly text: string;
  readonly type: GenType;
  /** Set when the path is a loop index variable. */
  readonly bound?: number;
}

const PATH_DEPTH = 3;

export class Scope {
  private readonly stack: Binding[] = [];
  private counter = 0;

  /** A name not used anywhere in the program (no shadowing, no clash with builtins or the prelude). */
  fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  /** Runs `f` with `b` in scope. */
  with<T>(b: Binding, f: () => T): T {
    this.stack.push(b);
    try {
      return f();
    } finally {
      this.stack.pop();
    }
  }

  withAll<T>(bs: readonly Binding[], f: () => T): T {
    if (bs.length === 0) return f();
    return this.with(bs[0]!, () => this.withAll(bs.slice(1), f));
  }

  functions(): (Binding & { kind: "fun" })[] {
    return this.stack.filter((b): b is Binding & { kind: "fun" } => b.kind === "fun");
  }

  recursive(): (Binding & { kind: "rec" })[] {
    return this.stack.filter((b): b is Binding & { kind: "rec" } => b.kind === "rec");
  }

  /** Every safe path from the values in scope. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (text: string, type: GenType, depth: number, bound?: number) => {
      out.push(bound === undefined ? { text, type } : { text, type, bound });
      if (depth >= PATH_DEPTH) return;
      if (type.k === "array" && type.n > 0) walk(`${text}[0]`, type.elem, depth + 1);
      if (type.k === "pair") {
        walk(`(fst ${text})`, type.fst, depth + 1);
        walk(`(snd ${text})`, type.snd, depth + 1);
      }
    };
    for (const b of this.stack) if (b.kind === "value") walk(b.name, b.type, 0, b.bound);
    return out;
  }

  /** Paths of exactly type `t`. */
  pathsOf(t: GenType): Path[] {
    return this.paths().filter((p) => sameType(p.type, t));
  }

  /** Loop indexes that are in range for an array of length n. */
  indexesBelow(n: number): Path[] {
    return this.paths().filter((p) => p.bound !== undefined && p.bound >= 1 && p.bound <= n);
  }

  /** Index expressions whose value is n: `length x` for the arrays in scope that are n long. */
  sizesOf(n: number): string[] {
    return this.paths()
      .filter((p) => p.type.k === "array" && p.type.n === n)
      .map((p) => `(length ${p.text})`);
  }

  /** Every static array length in scope (preferred when choosing new lengths, so `length x` can express them). */
  lengths(): number[] {
    return [...new Set(this.paths().flatMap((p) => (p.type.k === "array" ? [p.type.n] : [])))];
  }
}
