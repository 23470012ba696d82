// A plain TypeScript function as a target: its source (read by acorn, src/tsfront/) translated into a Smooth program
// once per argument types, then compiled and differentiated like any Smooth definition. Number parameters it uses as
// indexes or lengths are Indexes (src/tsfront/hints.ts).
//
// A function value's free names are read from its closure (src/tsfront/routes.ts): data it reads there (numbers,
// arrays, typed arrays, objects of these; directly, through a helper function it calls, or a property of an object) is
// a hidden parameter of the instance, read at each call, so the program sees the variables' current values and
// contents. A translation is kept by the function's text and place, its argument types and the types of the data it
// reads (not their sizes: the program works for any), and reused by every function value of that text whose free
// names resolve alike: a closure made afresh in a loop is translated and compiled once.

import type { SmoothProgram } from "../api/program.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import type { Type } from "../types/types.js";
import { fail } from "../syntax/diagnostics.js";
import type { Span } from "../syntax/source.js";
import { M_INDEX, type MType } from "../types/mtype.js";
import type { Capture } from "../tsfront/captures.js";
import { integerParams } from "../tsfront/hints.js";
import { translateFunction } from "../tsfront/program.js";
import {
  closureReads,
  matches,
  readRoute,
  routeKey,
  Routing,
  type ClosureReads,
  type Lookup,
} from "../tsfront/routes.js";
import { spanOf, type FunctionSource } from "../tsfront/source.js";
import {
  hasFunction,
  showTsType,
  smoothType,
  T_BOOL,
  T_DOUBLE,
  T_INT,
  tArray,
  type TsType,
} from "../tsfront/ts-types.js";
import { encode } from "./convert.js";
import type { FnVal } from "../tsfront/values.js";
import { defaultForm } from "./forms.js";
import { BoundedCache } from "./bounded-cache.js";
import { describe, keyOf, showTree, treeType, type Tree, type Where } from "./pytree.js";
import type { Hidden, Instance, Target } from "./target.js";

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
      // (Integers given in an array stay integers when the function writes into it: an Int32Array.)
      for (let d = 0; d < t.shape.length; d++)
        u = d === 0 && t.elem === "int" ? { k: "array", elem: u, int32: true } : tArray(u);
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

/** How many translations of functions are kept for reuse by other function values of the same text. */
export const SHARED_TRANSLATIONS = 256;
/** How many translations one text keeps (for different argument types or types of the data it reads). */
const VARIANTS_PER_TEXT = 8;

/** A translation of a function value, reusable by another of the same text whose names resolve alike. */
interface Variant {
  readonly id: number;
  readonly lookups: readonly Lookup[];
  /** The data it reads, each with its type as a key. */
  readonly captures: readonly { readonly capture: Capture; readonly type: string }[];
  readonly program: SmoothProgram;
  readonly name: string;
  readonly result: TsType;
  /** The entry's result type, found by lowering it once. */
  resultType?: Type;
}

const TRANSLATIONS = new BoundedCache<string, Variant[]>(SHARED_TRANSLATIONS);
let variants = 0;

/** The translator's type of data a closure holds (an Index where it is used as one). */
function dataType(value: unknown, integer: boolean, what: string, span?: Span): TsType {
  return tsTypeOf(describe(value, integer ? M_INDEX : undefined, { what, ...(span ? { span } : {}) }));
}

type AnyFn = (...args: never[]) => unknown;

export class TsTarget implements Target {
  readonly label: string;
  private readonly integers: readonly boolean[];
  private readonly names: readonly (string | undefined)[];
  /** How many arguments it needs (those after have default values). */
  private readonly required: number;
  private readonly instances = new BoundedCache<string, Instance>();
  /** The function value, whose closure is read (undefined for a module's function: its names are the module's). */
  private readonly fn: AnyFn | undefined;
  /** Module functions: one translation per argument types. */
  private readonly translations = new Map<string, Variant>();
  /** Variants whose function lookups were checked for this function value (its functions are taken to stay). */
  private readonly checked = new WeakSet<Variant>();
  /** The variant found for the last call's reads (key and instance run on the same ones). */
  private last: { reads: number; argKey: string; variant: Variant } | undefined;
  /** The variant each argument key used last (tried first at the next call). */
  private readonly recent = new Map<string, Variant>();
  /** The data's structures as the last check found them (the call's hidden parameters are encoded by them). */
  private described: { reads: number; variant: Variant; trees: readonly Tree[] } | undefined;
  private readonly wheres: Where[] = [];

  /**
   * `src`, or with `entry.value` that function value (a function with custom rules made of src and others), whose
   * parameters are src's (translated once per argument types: such a target reads no data from closures).
   */
  constructor(
    readonly src: FunctionSource,
    private readonly entry?: { readonly value: FnVal; readonly label: string },
  ) {
    this.label = entry?.label ?? `the TypeScript function \`${src.name}\``;
    this.integers = integerParams(src.node);
    this.names = src.node.params.map((p) => {
      const target = p.type === "AssignmentPattern" ? p.left : p;
      return target.type === "Identifier" ? target.name : undefined;
    });
    this.required = src.node.params.findIndex((p) => p.type === "AssignmentPattern" || p.type === "RestElement");
    if (this.required < 0) this.required = this.names.length;
    this.fn = !entry && typeof src.value === "function" ? (src.value as AnyFn) : undefined;
  }

  /** (Where the function is written is read only when a message needs it: it may take reading the closure.) */
  get span(): Span {
    return spanOf(this.src, this.src.node);
  }

  hint(k: number): MType | undefined {
    return this.integers[k] ? M_INDEX : undefined;
  }

  where(k: number): Where {
    const name = this.names[k];
    return (this.wheres[k] ??= {
      what: `argument ${k}${name ? ` (\`${name}\`)` : ""} of ${this.label}`,
      span: this.span,
    });
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

  /** One translation per argument types and types of the data read from closures: the program works for any sizes. */
  key(trees: readonly Tree[]): string {
    const argKey = keyOf(trees, false);
    return `${argKey}|${this.variant(trees, argKey).id}`;
  }

  instance(trees: readonly Tree[]): Instance {
    const argKey = keyOf(trees, false);
    const v = this.variant(trees, argKey);
    const key = `${argKey}|${v.id}`;
    const hit = this.instances.get(key);
    if (hit) return hit;
    if (hasFunction(v.result))
      fail(
        "unsupported",
        `${this.label} returns a function (${showTsType(v.result)}), which has no value outside it`,
        this.span,
        {
          hint: "return numbers, arrays or objects of them; call the function it returns inside it",
        },
      );
    const argTypes = trees.map(treeType);
    const hidden = v.captures.map(({ capture }, k) => this.hidden(capture, v, k));
    const entryTypes = [...argTypes, ...hidden.map((h) => h.type)];
    v.resultType ??= resultTypeOf(lowerEntry(v.program.checked, v.name, entryTypes));
    const form = formOf(v.result);
    const inst: Instance = {
      argTypes,
      ...(hidden.length > 0 ? { hidden } : {}),
      resultType: v.resultType,
      paramNames: this.names,
      derivative: false,
      lower: () => lowerEntry(v.program.checked, v.name, entryTypes),
      resultForm: () => form,
      programKey: `ts${v.id}|${argKey}`,
    };
    this.instances.set(key, inst);
    return inst;
  }

  /** The translation for these arguments and the data the function reads now. */
  private variant(trees: readonly Tree[], argKey: string): Variant {
    const fn = this.fn;
    if (!fn) {
      let v = this.translations.get(argKey);
      if (!v) this.translations.set(argKey, (v = translated(this.src, trees, [], this.entry?.value)));
      return v;
    }
    const reads = closureReads();
    if (this.last?.reads === reads.id && this.last.argKey === argKey) return this.last.variant;
    const recent = this.recent.get(argKey);
    let variant = recent && this.fits(recent, reads) ? recent : undefined;
    const text = `${this.src.site ?? ""}\u0000${argKey}\u0000${Function.prototype.toString.call(fn)}`;
    const known = variant ? [] : (TRANSLATIONS.get(text) ?? []);
    variant ??= known.find((v) => this.fits(v, reads));
    if (!variant) {
      const routing = new Routing(reads);
      variant = translated(routing.source(fn, []), trees, routing.lookups);
      this.checked.add(variant);
      TRANSLATIONS.set(text, [...known.slice(1 - VARIANTS_PER_TEXT), variant]);
    }
    this.last = { reads: reads.id, argKey, variant };
    this.recent.set(argKey, variant);
    return variant;
  }

  /** Whether the function's free names resolve now as they did for the variant's translation. */
  private fits(v: Variant, reads: ClosureReads): boolean {
    const fn = this.fn!;
    try {
      if (!this.checked.has(v)) {
        if (!matches(reads, fn, v.lookups)) return false;
        this.checked.add(v);
      }
      const trees: Tree[] = [];
      for (const { capture, type } of v.captures) {
        const { found, value } = readRoute(reads, fn, capture.route);
        if (!found) return false;
        const tree = describe(value, capture.integer ? M_INDEX : undefined, { what: "" });
        if (JSON.stringify(tsTypeOf(tree)) !== type) return false;
        trees.push(tree);
      }
      this.described = { reads: reads.id, variant: v, trees };
      return true;
    } catch {
      return false; // data Smooth cannot read: the translation says where
    }
  }

  /** The hidden parameter of data the function reads from a closure (the variant's k-th): read at each call. */
  private hidden(c: Capture, v: Variant, k: number): Hidden {
    const fn = this.fn!;
    const where: Where = { what: `\`${routeKey(c.route)}\`, which ${this.label} reads from outside`, span: c.span };
    const read = (): unknown => {
      const { found, value } = readRoute(closureReads(), fn, c.route);
      if (!found)
        fail("argument", `${where.what} is no longer defined`, c.span, {
          hint: "a variable a compiled function reads must keep a value (and the objects on the way to it)",
        });
      return value;
    };
    return {
      type: smoothType(c.type),
      value: () => {
        const value = read();
        // The structure the call's check found (the same read), else described again and checked.
        const d = this.described;
        if (d && d.variant === v && d.reads === closureReads().id) return encode(value, d.trees[k]!, () => where);
        const tree = describe(value, c.integer ? M_INDEX : undefined, where);
        if (JSON.stringify(tsTypeOf(tree)) !== JSON.stringify(c.type))
          fail("argument", `${where.what} has changed type since the call began`, c.span, { found: showTree(tree) });
        return encode(value, tree, () => where);
      },
      get staged() {
        return read();
      },
    };
  }
}

/** The translation of `src` at the arguments' types; `lookups` are the free names it resolved (and how). */
function translated(src: FunctionSource, trees: readonly Tree[], lookups: readonly Lookup[], value?: FnVal): Variant {
  const t = translateFunction(src, trees.map(tsTypeOf), value ? {} : { dataType }, value);
  return {
    id: ++variants,
    lookups,
    captures: t.captures.map((capture) => ({ capture, type: JSON.stringify(capture.type) })),
    program: t.program,
    name: t.name,
    result: t.result,
  };
}

const resultTypeOf = (fn: IrFunction): Type => typeOf(fn.body);
