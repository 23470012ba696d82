// The command line on a TypeScript or JavaScript file: `smooth run|grad|jacobian|hessian model.ts --fn f --args JSON`
// translates the function from its source (the library's TypeScript front end) and prints JSON as for Smooth files.
// Arguments are JSON (objects for objects); a gradient has the form of its argument, objects as objects.

import { hasTangent } from "../ad/dual-types.js";
import type { DerivativeView } from "./derivative-commands.js";
import { parseWrt, type Mode } from "./derivative-options.js";
import { fail } from "../syntax/diagnostics.js";
import { libraryFunction, Specialisations } from "../library/target.js";
import { hessian, jacobian, valueAndGrad } from "../library/transforms.js";
import { compile } from "../library/compile.js";
import type { BackendOption } from "../library/backend-option.js";
import { parseEngine } from "../backends/registry.js";
import { sparseMatrixJson } from "./sparse-commands.js";
import { typescriptModule, type TypeScriptModule } from "../library/ts-module.js";
import { NDArray } from "../library/ndarray.js";
import { treeFlatten, treeLeaves, type TreeDef } from "../library/tree.js";
import type { AnyFunction } from "../library/types.js";

/** Is this file TypeScript or JavaScript (by its extension)? */
export const isTypeScriptFile = (path: string): boolean => /\.(ts|mts|cts|js|mjs|cjs)$/.test(path);

export function loadTypeScript(path: string, text: string): TypeScriptModule {
  return typescriptModule(text, { fileName: path });
}

function entry(m: TypeScriptModule, name: string, path: string): AnyFunction {
  const f = m[name];
  if (!f)
    fail("name", `${path} has no top-level function named \`${name}\``, undefined, {
      hint: `functions: ${Object.keys(m).join(", ")}`,
    });
  return f;
}

/** A library result as JSON: typed arrays and NDArrays as (nested) arrays, objects as objects. */
export function toJson(x: unknown): unknown {
  if (x instanceof Float64Array || x instanceof Int32Array || x instanceof Float32Array) return Array.from(x);
  if (x instanceof NDArray) return x.toArray();
  if (Array.isArray(x)) return x.map(toJson);
  if (x !== null && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, toJson(v)]));
  return x;
}

const flatten = (x: unknown): number[] =>
  typeof x === "number"
    ? [x]
    : x instanceof Float64Array || x instanceof Float32Array
      ? Array.from(x)
      : x instanceof NDArray
        ? Array.from(x.data)
        : Array.isArray(x)
          ? x.flatMap(flatten)
          : x !== null && typeof x === "object"
            ? Object.values(x).flatMap(flatten)
            : [];

/** The positions of the arguments holding Doubles (as the function's translation types them), or --wrt's. */
function positions(f: AnyFunction, args: readonly unknown[], wrt: string | undefined): number[] {
  const target = libraryFunction(f)!.target!;
  const { inst } = new Specialisations(target).lookup(args);
  if (wrt !== undefined) return [parseWrt(wrt, inst.argTypes.length, f.name)];
  const all = inst.argTypes.flatMap((t, k) => (hasTangent(t) ? [k] : []));
  if (all.length === 0) fail("argument", `${target.label} has no argument containing a number to differentiate`);
  return all;
}

/** The library's back-end options for --engine (js, wasm, wasm-f32; the interpreter runs only Smooth files). */
export function typeScriptBackend(engine: string): BackendOption {
  const e = parseEngine(engine);
  if (e === "js" || e === "wasm") return { backend: e };
  if (e === "wasm-f32") return { dtype: "float32" };
  return fail(
    "argument",
    `--engine ${e} runs Smooth files; a TypeScript or JavaScript file runs on js or wasm`,
    undefined,
    {
      expected: "js, wasm or wasm-f32",
      found: e,
    },
  );
}

export function runTypeScript(
  m: TypeScriptModule,
  path: string,
  fn: string,
  args: unknown[],
  backend: BackendOption = {},
): unknown {
  return toJson(compile(entry(m, fn, path), backend)(...args));
}

/** `smooth grad|jacobian|hessian` on a TypeScript function, in the Smooth commands' JSON formats. */
export function derivativeTypeScript(
  kind: DerivativeView,
  m: TypeScriptModule,
  path: string,
  fn: string,
  args: unknown[],
  wrt: string | undefined,
  backend: BackendOption = {},
  mode?: Mode,
  sparse = false,
): unknown {
  const f = entry(m, fn, path);
  const argnums = positions(f, args, wrt);
  if (sparse && kind !== "grad") {
    const options = { argnums, sparse: true, ...backend } as const;
    const matrix =
      kind === "jacobian" ? jacobian(f, { ...options, mode: mode ?? "auto" })(...args) : hessian(f, options)(...args);
    const { colours, density, note } = matrix.info;
    const value = toJson(compile(f, backend)(...args));
    const json = { value, [kind]: sparseMatrixJson(matrix), mode: matrix.info.mode, colours, density };
    return note === undefined ? json : { ...json, note };
  }
  if (kind === "grad") {
    // Forward mode: the Jacobian of the scalar result, one block per argument in its shape, as a gradient is.
    const [value, grads]: [unknown, unknown[]] =
      mode === "forward"
        ? [compile(f, backend)(...args) as unknown, jacobian(f, { argnums, mode, ...backend })(...args) as unknown[]]
        : (valueAndGrad(f, { argnums, ...backend })(...args) as [number, unknown[]]);
    return { value, gradient: args.map((_, k) => (argnums.includes(k) ? toJson(grads[argnums.indexOf(k)]) : null)) };
  }
  const value = compile(f, backend)(...args) as unknown;
  const outSize = flatten(value).length;
  // Each argument's leaves (its arrays and numbers) and their sizes: columns run over them in order.
  const leafSizes = argnums.map((k) => treeLeaves(args[k]).map((l) => flatten(l).length));
  /** Row r of a block tree whose leaves are blocks with `rows` rows, one per leaf of the argument: concatenated. */
  const rowOf = (block: unknown, sizes: readonly number[], r: number): number[] =>
    treeLeaves(block).flatMap((leaf, j) => flatten(leaf).slice(r * sizes[j]!, (r + 1) * sizes[j]!));
  if (kind === "jacobian") {
    const blocks = jacobian(f, { argnums, mode: mode ?? "auto", ...backend })(...args) as unknown[];
    const rows = Array.from({ length: outSize }, (_, r) => blocks.flatMap((b, a) => rowOf(b, leafSizes[a]!, r)));
    return { value: toJson(value), jacobian: rows };
  }
  // Hessian: entry [a][c] is, per leaf i of argument a, a tree (argument c's structure) of blocks I_i ++ I_j.
  const entries = hessian(f, { argnums, ...backend })(...args) as unknown[][];
  const rows: number[][] = [];
  argnums.forEach((_, a) => {
    const outer = treeFlatten(args[argnums[a]!])[1];
    const perLeaf = argnums.map((__, c) => subtreesAt(outer, entries[a]![c]));
    leafSizes[a]!.forEach((size, i) => {
      for (let p = 0; p < size; p++) rows.push(perLeaf.flatMap((leaves, c) => rowOf(leaves[i], leafSizes[c]!, p)));
    });
  });
  return { value: toJson(value), hessian: rows };
}

/** The subtrees of `value` at the leaves of `def` (a Hessian entry's blocks per leaf of its first argument). */
function subtreesAt(def: TreeDef, value: unknown): unknown[] {
  if (def.kind === "leaf") return [value];
  if (def.kind === "object")
    return def.keys.flatMap((k, i) => subtreesAt(def.children[i]!, (value as Record<string, unknown>)[k]));
  return def.children.flatMap((d, i) => subtreesAt(d, (value as unknown[])[i]));
}
