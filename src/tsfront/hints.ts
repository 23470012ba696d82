// Which number parameters of a TypeScript function are integers: those it uses as an index (`a[n]`) or a length
// (`new Float64Array(n)`, `{ length: n }`), where JavaScript needs an integer too. The library reads such an argument
// as an Index (checking that it is an integer), so the program computes with it in Index arithmetic. (A loop bound may
// be any number: `for (let i = 0; i < t; i++)` runs ceil(t) times.) The same holds for a number the function reads
// from its closure (`n`, or a property of an object it holds, `cfg.n`).

import type * as A from "acorn";
import { bare, keyName, numberLiteral, type Expression, type FunctionNode } from "./syntax.js";
import { walkTree } from "./walk.js";

/** A name, or a name and properties (`cfg.n`), as the text the integer positions are found by. */
export function pathOf(e: Expression): string | undefined {
  const b = bare(e);
  if (b.type === "Identifier") return b.name;
  if (b.type === "MemberExpression" && !b.computed && b.object.type !== "Super") {
    const owner = pathOf(b.object);
    const name = keyName(b.property, false);
    return owner !== undefined && name !== undefined ? `${owner}.${name}` : undefined;
  }
  return undefined;
}

export function integerParams(node: FunctionNode): boolean[] {
  const names = node.params.map((p) => {
    const target = p.type === "AssignmentPattern" ? p.left : p;
    return target.type === "Identifier" ? target.name : undefined;
  });
  const found = integerNames(node);
  return names.map((n) => n !== undefined && found.has(n));
}

const INTEGER_NAMES = new WeakMap<FunctionNode, ReadonlySet<string>>();

/** The names (and paths: `cfg.n`) the function uses as an index or a length. */
export function integerNames(node: FunctionNode): ReadonlySet<string> {
  const known = INTEGER_NAMES.get(node);
  if (known) return known;
  const found = new Set<string>();
  /** The parameter an integer position holds: `n`, or `n - 1`, `n + 2` (an integer plus a constant). */
  const mark = (e: Expression | A.SpreadElement | undefined): void => {
    if (e?.type === "SpreadElement") return;
    for (let b = e && bare(e); b !== undefined;) {
      const path = pathOf(b);
      if (path !== undefined) found.add(path);
      const plusConstant =
        b.type === "BinaryExpression" &&
        (b.operator === "+" || b.operator === "-") &&
        numberLiteral(bare(b.right)) !== undefined;
      b = plusConstant ? bare((b as A.BinaryExpression).left as Expression) : undefined;
    }
  };
  walkTree(node.body, true, (n) => {
    if (n.type === "MemberExpression" && (n as A.MemberExpression).computed)
      mark((n as A.MemberExpression).property as Expression);
    if (n.type === "NewExpression") {
      const e = n as A.NewExpression;
      if (e.callee.type === "Identifier" && /Array$/.test(e.callee.name)) mark(e.arguments[0]);
    }
    if (n.type === "Property") {
      const p = n as A.Property;
      if (keyName(p.key, p.computed) === "length") mark(p.value);
    }
    return true;
  });
  INTEGER_NAMES.set(node, found);
  return found;
}
