// vmap: a function mapped over the leading axis of some of its arguments. It is staged as Smooth source —
//   let vmapped = fun (a0: Matrix) (a1: Vector) -> build (length a0) (fun b -> f a0[b] a1)
// appended to the program that defines `f` at the element types — so the mapped function is an ordinary definition:
// compiled, differentiated (grad(vmap(f))), vmapped again, printed by inspect.

import { loadProgram } from "../api/program.js";
import { fail } from "../syntax/diagnostics.js";
import { mArray, type MType } from "../types/mtype.js";
import { showType } from "../types/types.js";
import { compiledFunction, type AnyFunction } from "./compile.js";
import { keyOf, treeType, type Tree, type Where } from "./pytree.js";
import { targetOf, type Instance, type Target } from "./target.js";

export interface VmapOptions {
  /**
   * Per argument, 0 to map over its leading axis or null to pass it whole to every call; a single 0 (the default)
   * maps every argument. Only the leading axis (0) is supported.
   */
  readonly inAxes?: 0 | null | readonly (0 | null)[];
}

let wrappers = 0;

/** The element's structure: the tree without its leading axis. */
function elementTree(t: Tree, where: Where): Tree {
  if (t.k === "dense") {
    if (t.shape.length === 1)
      return t.elem === "double" ? { k: "double" } : t.elem === "int" ? { k: "index" } : { k: "bool" };
    return { ...t, shape: t.shape.slice(1) };
  }
  if (t.k === "list") return t.elem;
  return fail("argument", `vmap maps over the leading axis of ${where.what}, but it is not an array`, where.span, {
    expected: "an array (or inAxes null for this argument)",
  });
}

const leadingLength = (t: Tree): number => (t.k === "dense" ? t.shape[0]! : t.k === "list" ? t.length : 0);

class VmapTarget implements Target {
  readonly label: string;
  private readonly instances = new Map<string, Instance>();

  constructor(
    readonly inner: Target,
    readonly inAxes: VmapOptions["inAxes"],
  ) {
    this.label = `vmap(${inner.label})`;
  }

  get span() {
    return this.inner.span;
  }

  mapped(k: number): boolean {
    const axes = this.inAxes ?? 0;
    return typeof axes === "number" || axes === null ? axes === 0 : axes[k] === 0;
  }

  hint(k: number): MType | undefined {
    const h = this.inner.hint(k);
    return this.mapped(k) && h ? mArray(h) : h;
  }

  where(k: number): Where {
    return this.inner.where(k);
  }

  checkArity(n: number): void {
    this.inner.checkArity(n);
    const axes = this.inAxes;
    if (Array.isArray(axes) && axes.length !== n)
      fail("argument", `${this.label}: inAxes has ${axes.length} entries for ${n} arguments`, this.span, {
        expected: "one entry (0 or null) per argument",
      });
    if (!Array.from({ length: n }, (_, k) => k).some((k) => this.mapped(k)))
      fail("argument", `${this.label}: inAxes maps no argument`, this.span);
  }

  /** The element trees (checking that the mapped arguments have one leading length). */
  private elements(trees: readonly Tree[]): Tree[] {
    let length: number | undefined;
    let first = 0;
    return trees.map((t, k) => {
      if (!this.mapped(k)) return t;
      const inner = elementTree(t, this.where(k));
      const n = leadingLength(t);
      if (length === undefined) [length, first] = [n, k];
      else if (n !== length)
        fail("argument", `${this.label}: the mapped arguments have different leading lengths`, this.span, {
          expected: `${length} (the length of ${this.where(first).what})`,
          found: `${n} (the length of ${this.where(k).what})`,
        });
      return inner;
    });
  }

  key(trees: readonly Tree[]): string {
    const elements = this.elements(trees);
    return `${this.inner.key(elements)}/${trees.map((_, k) => (this.mapped(k) ? "0" : "-")).join("")}/${keyOf(trees, false)}`;
  }

  instance(trees: readonly Tree[]): Instance {
    const key = this.key(trees);
    const hit = this.instances.get(key);
    if (hit) return hit;
    const element = this.inner.instance(this.elements(trees));
    const argTypes = trees.map(treeType);
    const avoid = new Set([element.name, ...element.program.userDefs.map((d) => d.name)]);
    const fresh = (base: string): string => {
      let name = base;
      for (let i = 0; avoid.has(name); i++) name = `${base}${i}`;
      avoid.add(name);
      return name;
    };
    const name = fresh(`vmapped${wrappers++}`);
    const params = argTypes.map(() => fresh("arg"));
    const b = fresh("row");
    const firstMapped = params.find((_, k) => this.mapped(k))!;
    const call = params.map((p, k) => (this.mapped(k) ? `${p}[${b}]` : p)).join(" ");
    const text =
      `${element.program.file.text}\n\n// ${this.label}\n` +
      `let ${name} = fun ${params.map((p, k) => `(${p}: ${showType(argTypes[k]!)})`).join(" ")} ->\n` +
      `  build (length ${firstMapped}) (fun ${b} -> ${element.name} ${call})\n`;
    const program = loadProgram({ name: element.program.file.name, text });
    const resultType = { k: "array", elem: element.resultType } as const;
    const resultTree: Tree | undefined = element.resultTree && { k: "list", elem: element.resultTree, length: 0 };
    const inst: Instance = {
      program,
      name,
      argTypes,
      resultType,
      paramNames: element.paramNames,
      ...(resultTree ? { resultTree } : {}),
    };
    this.instances.set(key, inst);
    return inst;
  }
}

/**
 * `f` mapped over the leading axis of its arguments (see {@link VmapOptions}): `vmap(f)(xs)` is the array of `f(x)`
 * for each row x of xs, computed by one compiled loop. The result is a function like `compile`'s, which every
 * transform accepts: `jacobian(vmap(f))`, `vmap(vmap(f))`, `inspect(vmap(f), ...)`.
 */
export function vmap(f: AnyFunction, options: VmapOptions = {}): AnyFunction {
  const axes = options.inAxes ?? 0;
  const list = Array.isArray(axes) ? axes : [axes];
  for (const a of list)
    if (a !== 0 && a !== null)
      fail("unsupported", `vmap: inAxes ${String(a)} is not supported`, undefined, {
        expected: "0 (the leading axis) or null",
      });
  const target = new VmapTarget(targetOf(f, "vmap"), axes);
  return compiledFunction(target, target.label, "vmapped");
}
