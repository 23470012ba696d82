// Free variables, use counts and size of IR expressions. All walks use an explicit stack, so long let chains and deep
// nesting cannot overflow the JS stack.

import type { Atom, Expr, IrFunction, Var } from "./ir.js";
import { compileWork } from "./work.js";

/** The atoms a node uses directly (its operands), not those of nested expressions. */
export function operands(e: Expr): readonly Atom[] {
  switch (e.kind) {
    case "var":
    case "lit":
      return [e];
    case "prim":
    case "call":
      return e.args;
    case "tuple":
      return e.elems;
    case "proj":
      return [e.arg];
    case "app":
      return [e.fn, e.arg];
    case "jvp":
      return [e.fn];
    case "if":
      return [e.cond];
    case "build":
      return [e.size];
    case "ifold":
      return [e.init, e.count];
    case "while":
      return [e.init];
    case "custom":
      return [e.fn, ...e.rules];
    case "let":
    case "lam":
      return [];
  }
}

/** The expressions nested directly in a node (let rhs and body, branches, loop and lambda bodies). */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case "let":
      return [e.rhs, e.body];
    case "if":
      return [e.then, e.else];
    case "lam":
    case "build":
    case "ifold":
      return [e.body];
    case "while":
      return [e.cond, e.body];
    default:
      return [];
  }
}

/** The variables a node binds for its nested expressions. */
export function binders(e: Expr): readonly Var[] {
  switch (e.kind) {
    case "let":
      return [e.v];
    case "lam":
      return [e.param];
    case "build":
      return [e.index];
    case "ifold":
      return [e.acc, e.index];
    case "while":
      return [e.acc];
    default:
      return [];
  }
}

/**
 * Pushes the children of `e` on `stack`, last first (so they are popped in order): `children` without an array per
 * node, for the walks below, which run over whole functions many times per compile.
 */
function pushChildren(e: Expr, stack: Expr[]): void {
  switch (e.kind) {
    case "let":
      stack.push(e.body, e.rhs);
      return;
    case "if":
      stack.push(e.else, e.then);
      return;
    case "lam":
    case "build":
    case "ifold":
      stack.push(e.body);
      return;
    case "while":
      stack.push(e.body, e.cond);
      return;
    default:
      return;
  }
}

/** Calls `visit` on every node of `e` (pre-order). */
export function forEachNode(e: Expr, visit: (node: Expr) => void): void {
  const stack: Expr[] = [e];
  // Counted in a local, added once: a global counter written per node slowed these hot loops down.
  let n = 0;
  while (stack.length > 0) {
    n++;
    const node = stack.pop()!;
    visit(node);
    pushChildren(node, stack);
  }
  compileWork.nodes += n;
}

/** How many times each variable (by id) is used as an operand anywhere in `e`. Binders are not uses. */
export function useCounts(e: Expr): Map<number, number> {
  const counts = new Map<number, number>();
  forEachNode(e, (node) => {
    for (const a of operands(node)) if (a.kind === "var") counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
  });
  return counts;
}

/**
 * The variables used in `e` but not bound in it, by id. Binder ids are unique (an invariant of the IR), so a variable
 * is free exactly when it is used and not bound anywhere inside `e`.
 */
export function freeVars(e: Expr): Map<number, Var> {
  const used = new Map<number, Var>();
  const bound = new Set<number>();
  const use = (a: Atom) => {
    if (a.kind === "var") used.set(a.id, a);
  };
  // forEachNode over binders and operands, without their arrays (this runs on whole loop bodies, many times).
  const stack: Expr[] = [e];
  let n = 0;
  while (stack.length > 0) {
    n++;
    const node = stack.pop()!;
    switch (node.kind) {
      case "var":
        use(node);
        break;
      case "lit":
        break;
      case "prim":
      case "call":
        for (const a of node.args) use(a);
        break;
      case "tuple":
        for (const a of node.elems) use(a);
        break;
      case "proj":
        use(node.arg);
        break;
      case "app":
        use(node.fn);
        use(node.arg);
        break;
      case "jvp":
        use(node.fn);
        break;
      case "if":
        use(node.cond);
        break;
      case "build":
        bound.add(node.index.id);
        use(node.size);
        break;
      case "ifold":
        bound.add(node.acc.id);
        bound.add(node.index.id);
        use(node.init);
        use(node.count);
        break;
      case "while":
        bound.add(node.acc.id);
        use(node.init);
        break;
      case "custom":
        use(node.fn);
        for (const a of node.rules) use(a);
        break;
      case "let":
        bound.add(node.v.id);
        break;
      case "lam":
        bound.add(node.param.id);
        break;
    }
    pushChildren(node, stack);
  }
  compileWork.nodes += n;
  for (const id of bound) used.delete(id);
  return used;
}

export function isFreeIn(v: Var, e: Expr): boolean {
  return freeVars(e).has(v.id);
}

/** Number of nodes (atoms in operand position are not counted separately). The size limit of the optimiser uses it. */
export function exprSize(e: Expr): number {
  let n = 0;
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    n++;
    pushChildren(stack.pop()!, stack);
  }
  compileWork.nodes += n;
  return n;
}

export const functionSize = (fn: IrFunction): number => exprSize(fn.body);

/** `exprSize(e) > limit`, walking at most limit + 1 nodes: a rule's size bound costs no more than the bound. */
export function exprSizeAbove(e: Expr, limit: number): boolean {
  let n = 0;
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    if (++n > limit) break;
    pushChildren(stack.pop()!, stack);
  }
  compileWork.nodes += n;
  return n > limit;
}

/** True when some node of `e` satisfies `pred`. */
export function someNode(e: Expr, pred: (node: Expr) => boolean): boolean {
  const stack: Expr[] = [e];
  let n = 0;
  while (stack.length > 0) {
    n++;
    const node = stack.pop()!;
    if (pred(node)) {
      compileWork.nodes += n;
      return true;
    }
    // In order, so popped last first: the order this walk has always had (a predicate may record what it saw).
    const from = stack.length;
    pushChildren(node, stack);
    if (stack.length - from === 2) [stack[from], stack[from + 1]] = [stack[from + 1]!, stack[from]!];
  }
  compileWork.nodes += n;
  return false;
}

/**
 * `e` (not a let) with every operand mapped by `atom` and every nested scope (lambda and loop bodies, branches) by
 * `scope`; binders are kept. Passes that substitute and recurse override the cases they treat specially. A node
 * whose operands and scopes all map to themselves is `e` itself, not a copy (the IR is immutable; most nodes a pass
 * walks it leaves as they are).
 */
export function mapNode(e: Exclude<Expr, { kind: "let" }>, atom: (a: Atom) => Atom, scope: (body: Expr) => Expr): Expr {
  compileWork.nodes++;
  switch (e.kind) {
    case "var":
    case "lit":
      return atom(e);
    case "prim":
    case "call": {
      const args = mapAtoms(e.args, atom);
      return args === e.args ? e : { ...e, args };
    }
    case "tuple": {
      const elems = mapAtoms(e.elems, atom);
      return elems === e.elems ? e : { ...e, elems };
    }
    case "proj": {
      const arg = atom(e.arg);
      return arg === e.arg ? e : { ...e, arg };
    }
    case "app": {
      const [fn, arg] = [atom(e.fn), atom(e.arg)];
      return fn === e.fn && arg === e.arg ? e : { ...e, fn, arg };
    }
    case "jvp": {
      const fn = atom(e.fn);
      return fn === e.fn ? e : { ...e, fn };
    }
    case "lam": {
      const body = scope(e.body);
      return body === e.body ? e : { ...e, body };
    }
    case "if": {
      const [cond, then, els] = [atom(e.cond), scope(e.then), scope(e.else)];
      return cond === e.cond && then === e.then && els === e.else ? e : { ...e, cond, then, else: els };
    }
    case "build": {
      const [size, body] = [atom(e.size), scope(e.body)];
      return size === e.size && body === e.body ? e : { ...e, size, body };
    }
    case "ifold": {
      const [init, count, body] = [atom(e.init), atom(e.count), scope(e.body)];
      return init === e.init && count === e.count && body === e.body ? e : { ...e, init, count, body };
    }
    case "while": {
      const [init, cond, body] = [atom(e.init), scope(e.cond), scope(e.body)];
      return init === e.init && cond === e.cond && body === e.body ? e : { ...e, init, cond, body };
    }
    case "custom": {
      const [fn, rules] = [atom(e.fn), mapAtoms(e.rules, atom)];
      return fn === e.fn && rules === e.rules ? e : { ...e, fn, rules };
    }
  }
}

/** `as` mapped by `atom`, in order: `as` itself when every atom maps to itself. */
function mapAtoms<A extends readonly Atom[]>(as: A, atom: (a: Atom) => Atom): A | Atom[] {
  for (let i = 0; i < as.length; i++) {
    const a = atom(as[i]!);
    if (a === as[i]) continue;
    const out = as.slice(0, i);
    out.push(a);
    for (let j = i + 1; j < as.length; j++) out.push(atom(as[j]!));
    return out;
  }
  return as;
}
