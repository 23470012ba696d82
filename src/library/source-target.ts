// A definition of a Smooth module as a target: its type scheme guides how arguments are read (tuple or array, Index
// or Double) and is checked against them; one instance per argument types (the compiled code works for any sizes).

import type { SmoothProgram } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { typeOf } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import type { CheckedDef } from "../types/infer.js";
import { fromConcrete, instantiate, prune, TypeNamer, unifyRaw, UnifyError, type MType } from "../types/mtype.js";
import { showType } from "../types/types.js";
import { keyOf, treeType, type Tree, type Where } from "./pytree.js";
import type { Instance, Target } from "./target.js";
import { BoundedCache } from "./bounded-cache.js";

/** The parameter types of a scheme's instance (its arrows, outermost first). */
function paramTypes(t: MType): MType[] {
  const params: MType[] = [];
  for (let f = prune(t); f.k === "fun"; f = prune(f.result)) params.push(f.param);
  return params;
}

const PROGRAM_IDS = new WeakMap<SmoothProgram, number>();
let programs = 0;

/** A number per loaded program (a module's definitions' programs are shared by the transforms taken of them). */
function programId(p: SmoothProgram): number {
  let id = PROGRAM_IDS.get(p);
  if (id === undefined) PROGRAM_IDS.set(p, (id = ++programs));
  return id;
}

export class SourceTarget implements Target {
  readonly label: string;
  readonly span: Span;
  /** Read-only hints: never unified with anything. */
  private readonly hints: readonly MType[];
  private readonly instances = new BoundedCache<string, Instance>();

  constructor(
    readonly program: SmoothProgram,
    readonly def: CheckedDef,
  ) {
    this.label = `\`${def.name}\``;
    this.span = def.def.nameSpan;
    this.hints = paramTypes(instantiate(def.scheme));
  }

  get arity(): number {
    return this.hints.length;
  }

  hint(k: number): MType | undefined {
    return this.hints[k];
  }

  where(k: number): Where {
    return { what: describeParam(this.def, k), span: this.span };
  }

  argument(k: number): string {
    return describeParam(this.def, k);
  }

  checkArity(n: number): void {
    if (n !== this.arity)
      fail(
        "argument",
        `${this.label} takes ${this.arity} argument${this.arity === 1 ? "" : "s"}, but ${n} ${n === 1 ? "was" : "were"} given`,
        this.span,
      );
  }

  key(trees: readonly Tree[]): string {
    return keyOf(trees, false);
  }

  instance(trees: readonly Tree[]): Instance {
    const key = this.key(trees);
    const hit = this.instances.get(key);
    if (hit) return hit;
    const argTypes = trees.map(treeType);
    // The scheme, instantiated afresh, must accept the arguments' types (a Matrix where a Vector is expected fails
    // here).
    const params = paramTypes(instantiate(this.def.scheme));
    const namer = new TypeNamer();
    argTypes.forEach((t, k) => {
      const expected = namer.show(params[k]!);
      try {
        unifyRaw(params[k]!, fromConcrete(t));
      } catch (e) {
        if (!(e instanceof UnifyError)) throw e;
        fail(
          "argument",
          `${this.where(k).what} expects ${expected}, but the value given is ${showType(t)}`,
          this.span,
          {
            expected,
            found: showType(t),
          },
        );
      }
    });
    const { checked } = this.program;
    const name = this.def.name;
    const resultType = typeOf(lowerEntry(checked, name, argTypes).body);
    const inst: Instance = {
      argTypes,
      resultType,
      programKey: `smooth${programId(this.program)}.${name}|${key}`,
      paramNames: this.def.paramNames,
      derivative: false,
      lower: () => lowerEntry(checked, name, argTypes),
      resultForm: () => undefined,
      ...(this.program.sourceKey === undefined
        ? {}
        : { cacheKey: JSON.stringify(["source", this.program.sourceKey, name, argTypes]) }),
    };
    this.instances.set(key, inst);
    return inst;
  }
}
