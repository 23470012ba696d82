// Which function a function value is (./function-values.ts): a function written inside the function being
// translated (inlined where it is called, with what it captured), a function of the module or closure (a definition
// per argument types), one of Math's, a transform of another function value (grad(f), vjp's pullback, ...: the
// language's derivative builtins, ./transforms.ts, which also makes functions with custom derivative rules). A class's
// method is not a value (./classes.ts). Each is one object, so a type's `ref` tells functions apart.

import type { FunctionSource } from "./source.js";
import type { FunctionNode } from "./syntax.js";

export type FnRef =
  | { readonly kind: "local"; readonly node: FunctionNode; readonly src: FunctionSource; readonly label: string }
  | { readonly kind: "global"; readonly src: FunctionSource; readonly label: string }
  | { readonly kind: "math"; readonly name: string; readonly label: string }
  | TransformRef;

/**
 * A transform applied to the function value held as the first part (and, for the functions a transform returns, the
 * values it closed over as the others): `op` says which, `options` its static options (argnums, hasAux, axes).
 */
export interface TransformRef {
  readonly kind: "transform";
  readonly op: string;
  readonly options: TransformOptions;
  readonly label: string;
}

export interface TransformOptions {
  /** The arguments differentiated; `single`: the result is one gradient, not a list. */
  readonly argnums?: { readonly list: readonly number[]; readonly single: boolean };
  readonly hasAux?: boolean;
  /** vmap's axes: per argument, 0 (mapped) or null (shared); undefined: every argument mapped. */
  readonly inAxes?: readonly (0 | null)[];
  /** How many primals the function returned by vjp or linearize was made at. */
  readonly arity?: number;
}

const LOCAL = new WeakMap<FunctionNode, FnRef>();
const GLOBAL = new WeakMap<FunctionSource, FnRef>();
const BY_KEY = new Map<string, FnRef>();

/** The reference of a function written at `node` (one per node). */
export function localRef(node: FunctionNode, src: FunctionSource, label: string): FnRef {
  let r = LOCAL.get(node);
  if (!r) LOCAL.set(node, (r = { kind: "local", node, src, label }));
  return r;
}

/** The reference of a function of the module or closure (one per source). */
export function globalRef(src: FunctionSource): FnRef {
  let r = GLOBAL.get(src);
  if (!r) GLOBAL.set(src, (r = { kind: "global", src, label: `the function \`${src.name}\`` }));
  return r;
}

export function mathRef(name: string): FnRef {
  const key = `math:${name}`;
  let r = BY_KEY.get(key);
  if (!r) BY_KEY.set(key, (r = { kind: "math", name, label: `Math.${name}` }));
  return r;
}

/** The reference of a transform with these options (one per transform and options). */
export function transformRef(op: string, options: TransformOptions): FnRef {
  const key = `transform:${op}:${JSON.stringify(options)}`;
  let r = BY_KEY.get(key);
  if (!r) BY_KEY.set(key, (r = { kind: "transform", op, options, label: `a function made by ${op}` }));
  return r;
}
