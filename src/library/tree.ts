// Tree utilities over the values the transforms accept (JAX's tree_util): a tree is a plain object or a JS array of
// trees, down to leaves; a leaf is what the library reads as one Smooth value that is not a tuple — a number, a
// boolean,
// a typed array, an NDArray, or a regular JS array of numbers (a JS array of equally long rows is one matrix leaf).
// So the leaves of `{W: [[1, 2], [3, 4]], b: Float64Array}` are the matrix and the vector, as a gradient has them.

import { fail } from "../syntax/diagnostics.js";
import { NDArray } from "./ndarray.js";
import { describe, typedArrayName, isPlainObject } from "./pytree.js";
import { checkCallback } from "./check.js";

/** A leaf of a tree. */
export type TreeLeaf =
  | number
  | boolean
  | Float64Array
  | Float32Array
  | Int32Array
  | NDArray
  | readonly number[]
  | readonly (readonly number[] | Float64Array | Float32Array)[];

/** The structure of a tree without its leaves (from treeFlatten; treeUnflatten puts leaves back into it). */
export type TreeDef =
  | { readonly kind: "leaf" }
  | { readonly kind: "object"; readonly keys: readonly string[]; readonly children: readonly TreeDef[] }
  | { readonly kind: "array"; readonly children: readonly TreeDef[] };

const LEAF: TreeDef = { kind: "leaf" };

function isLeaf(x: unknown): boolean {
  if (typeof x === "number" || typeof x === "boolean") return true;
  if (x instanceof NDArray || typedArrayName(x) !== undefined) return true;
  if (!Array.isArray(x)) return false;
  // A regular JS array of numbers (or of equally shaped rows) is one array value; anything else is a container.
  if (x.length === 0) return true;
  try {
    return describe(x, undefined, { what: "a tree" }).k === "dense";
  } catch {
    return false;
  }
}

function structure(x: unknown, leaves: unknown[], path: string): TreeDef {
  if (isLeaf(x)) {
    leaves.push(x);
    return LEAF;
  }
  if (Array.isArray(x)) return { kind: "array", children: x.map((e, i) => structure(e, leaves, `${path}[${i}]`)) };
  if (isPlainObject(x)) {
    const keys = Object.keys(x);
    return { kind: "object", keys, children: keys.map((k) => structure(x[k], leaves, `${path}.${k}`)) };
  }
  return fail(
    "argument",
    `the tree${path ? ` at ${path}` : ""} holds ${describeValue(x)}, which is neither a leaf nor a container`,
    undefined,
    {
      expected:
        "a number, a boolean, a typed array, an NDArray, an array of numbers, or an object or JS array of these",
    },
  );
}

const describeValue = (x: unknown): string =>
  x === null
    ? "null"
    : x === undefined
      ? "undefined"
      : typeof x === "object"
        ? `a ${x.constructor?.name ?? "object"}`
        : `a ${typeof x}`;

/** The leaves of a tree, depth first (objects in key order), and its structure. */
export function treeFlatten(tree: unknown): [TreeLeaf[], TreeDef] {
  const leaves: unknown[] = [];
  const def = structure(tree, leaves, "");
  return [leaves as TreeLeaf[], def];
}

/** The leaves of a tree, depth first (objects in key order). */
export function treeLeaves(tree: unknown): TreeLeaf[] {
  return treeFlatten(tree)[0];
}

/** Fails unless `def` is a structure treeFlatten makes (`path` locates it inside the whole). */
function checkTreeDef(def: unknown, path: string): void {
  const d = def as { kind?: unknown; keys?: unknown; children?: unknown } | null;
  const bad = (why: string): never =>
    fail("argument", `treeUnflatten: the structure${path ? ` at ${path}` : ""} ${why}`, undefined, {
      expected: "a TreeDef, as treeFlatten returns it",
    });
  if (typeof d !== "object" || d === null) return bad(`is ${describeValue(def)}`);
  if (d.kind === "leaf") return;
  if (d.kind !== "array" && d.kind !== "object") return bad("has no kind leaf, array or object");
  if (!Array.isArray(d.children)) return bad("has no list of children");
  const keys = d.keys;
  if (d.kind === "object") {
    const ok = Array.isArray(keys) && keys.length === d.children.length && keys.every((k) => typeof k === "string");
    if (!ok) bad("has no key (a string) for each child");
  }
  d.children.forEach((c: unknown, i) =>
    checkTreeDef(c, d.kind === "object" ? `${path}.${String((keys as string[])[i])}` : `${path}[${i}]`),
  );
}

const countLeaves = (d: TreeDef): number =>
  d.kind === "leaf" ? 1 : d.children.reduce((n, c) => n + countLeaves(c), 0);

/** The tree of structure `def` with the given leaves (as many as `def` has), in order. */
export function treeUnflatten<T = unknown>(def: TreeDef, leaves: readonly unknown[]): T {
  checkTreeDef(def, "");
  if (!Array.isArray(leaves))
    fail("argument", `treeUnflatten: the leaves must be an array, not ${describeValue(leaves)}`);
  const n = countLeaves(def);
  if (leaves.length !== n)
    fail("argument", `treeUnflatten: the structure has ${n} leaves, but ${leaves.length} were given`);
  let next = 0;
  const build = (d: TreeDef): unknown => {
    if (d.kind === "leaf") return leaves[next++];
    const children = d.children.map(build);
    return d.kind === "array" ? children : Object.fromEntries(d.keys.map((k, i) => [k, children[i]]));
  };
  return build(def) as T;
}

const sameStructure = (a: TreeDef, b: TreeDef): boolean =>
  a.kind === b.kind &&
  (a.kind === "leaf" ||
    (a.children.length === (b as typeof a).children.length &&
      (a.kind !== "object" || a.keys.every((k, i) => k === (b as typeof a).keys[i])) &&
      a.children.every((c, i) => sameStructure(c, (b as typeof a).children[i]!))));

/**
 * `f` applied to each leaf of `tree` (and the leaves at the same places of `rest`, which must have the same
 * structure), in a tree of the same structure.
 *
 * @example
 * const next = treeMap((p, g) => p.map((x, i) => x - 0.1 * g[i]), params, grads);
 */
export function treeMap<T>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- leaves are of the user's types
  f: (leaf: any, ...rest: any[]) => unknown,
  tree: T,
  ...rest: readonly unknown[]
): T {
  checkCallback(f, "treeMap: the first argument");
  const [leaves, def] = treeFlatten(tree);
  const others = rest.map((r, i) => {
    const [ls, d] = treeFlatten(r);
    if (!sameStructure(def, d)) fail("argument", `treeMap: rest[${i}] does not have the structure of the first tree`);
    return ls;
  });
  return treeUnflatten<T>(
    def,
    leaves.map((leaf, i) => f(leaf, ...others.map((ls) => ls[i]))),
  );
}
