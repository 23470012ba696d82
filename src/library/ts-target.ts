// A plain TypeScript function as a target: its source (read by acorn, src/tsfront/) translated into
// a Smooth program once per argument types, then compiled and differentiated like any Smooth definition. Number
// parameters it uses as indexes or lengths are Indexes (src/tsfront/hints.ts).

import { typeOf, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import type { Type } from "../types/types.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { M_INDEX, type MType } from "../types/mtype.js";
import { integerParams } from "../tsfront/hints.js";
import { translateFunction } from "../tsfront/program.js";
import { spanOf, type FunctionSource } from "../tsfront/source.js";
import { smoothType, T_BOOL, T_DOUBLE, T_INT, tArray, type TsType } from "../tsfront/ts-types.js";
import { defaultForm } from "./forms.js";
import { keyOf, treeType, type Tree, type Where } from "./pytree.js";
import type { Instance, Target } from "./target.js";
import { BoundedCache } from "./bounded-cache.js";

/** The translator's type of an argument of this structure. */
function tsTypeOf(t: Tree): TsType {
  switch (t.k) {
    case "double":
      return T_DOUBLE;
    case "index":
      return T_INT;
    case "bool":
      return T_BOOL;
    case "dense": {
      let u: TsType = t.elem === "double" ? T_DOUBLE : t.elem === "int" ? T_INT : T_BOOL;
      for (let d = 0; d < t.shape.length; d++) u = tArray(u);
      return u;
    }
    case "tuple":
      return t.keys
        ? { k: "record", keys: t.keys, fields: t.elems.map(tsTypeOf) }
        : { k: "tuple", elems: t.elems.map(tsTypeOf) };
    case "list":
      return tArray(tsTypeOf(t.elem));
  }
}

/** The form of a result of this type: objects with their keys (arrays of objects: JS arrays of objects). */
function formOf(t: TsType): Tree {
  if (t.k === "record") return { k: "tuple", elems: t.fields.map(formOf), keys: t.keys };
  if (t.k === "tuple") return { k: "tuple", elems: t.elems.map(formOf) };
  if (t.k === "array") {
    const elem = formOf(t.elem);
    if (elem.k === "tuple" || elem.k === "list") return { k: "list", elem, length: 0 };
  }
  return defaultForm(smoothType(t));
}

export class TsTarget implements Target {
  readonly label: string;
  readonly span: Span;
  private readonly integers: readonly boolean[];
  private readonly names: readonly (string | undefined)[];
  /** How many arguments it needs (those after have default values). */
  private readonly required: number;
  private readonly instances = new BoundedCache<string, Instance>();

  constructor(readonly src: FunctionSource) {
    this.label = `the TypeScript function \`${src.name}\``;
    this.span = spanOf(src, src.node);
    this.integers = integerParams(src.node);
    this.names = src.node.params.map((p) => {
      const target = p.type === "AssignmentPattern" ? p.left : p;
      return target.type === "Identifier" ? target.name : undefined;
    });
    this.required = src.node.params.findIndex((p) => p.type === "AssignmentPattern" || p.type === "RestElement");
    if (this.required < 0) this.required = this.names.length;
  }

  hint(k: number): MType | undefined {
    return this.integers[k] ? M_INDEX : undefined;
  }

  where(k: number): Where {
    const name = this.names[k];
    return { what: `argument ${k}${name ? ` (\`${name}\`)` : ""} of ${this.label}`, span: this.span };
  }

  argument(k: number): string {
    return this.where(k).what;
  }

  checkArity(n: number): void {
    const m = this.names.length;
    if (n < this.required || n > m) {
      const takes = this.required === m ? `${m}` : `${this.required} to ${m}`;
      fail(
        "argument",
        `${this.label} takes ${takes} argument${m === 1 ? "" : "s"}, but ${n} ${n === 1 ? "was" : "were"} given`,
        this.span,
      );
    }
  }

  /** One translation per argument types: the program works for any sizes. */
  key(trees: readonly Tree[]): string {
    return keyOf(trees, false);
  }

  instance(trees: readonly Tree[]): Instance {
    const key = this.key(trees);
    const hit = this.instances.get(key);
    if (hit) return hit;
    const params = trees.map(tsTypeOf);
    const { program, name, result } = translateFunction(this.src, params);
    const argTypes = trees.map(treeType);
    const lowered = lowerEntry(program.checked, name, argTypes);
    const form = formOf(result);
    const inst: Instance = {
      argTypes,
      resultType: resultTypeOf(lowered),
      paramNames: this.names,
      derivative: false,
      lower: () => lowerEntry(program.checked, name, argTypes),
      resultForm: () => form,
    };
    this.instances.set(key, inst);
    return inst;
  }
}

const resultTypeOf = (fn: IrFunction): Type => typeOf(fn.body);
