// Which number parameters of a TypeScript function are integers: those it uses as an index (`a[n]`) or a length
// (`new Float64Array(n)`, `{ length: n }`), where JavaScript needs an integer too. The library reads such an argument
// as an Index (checking that it is an integer), so the program computes with it in Index arithmetic. (A loop bound may
// be any number: `for (let i = 0; i < t; i++)` runs ceil(t) times.)

import type * as A from "acorn";
import { bare, keyName, numberLiteral, type Expression, type FunctionNode } from "./syntax.js";
import { walkTree } from "./walk.js";

export function integerParams(node: FunctionNode): boolean[] {
  const names = node.params.map((p) => {
    const target = p.type === "AssignmentPattern" ? p.left : p;
    return target.type === "Identifier" ? target.name : undefined;
  });
  const found = new Set<string>();
  /** The parameter an integer position holds: `n`, or `n - 1`, `n + 2` (an integer plus a constant). */
  const mark = (e: Expression | A.SpreadElement | undefined): void => {
    if (e?.type === "SpreadElement") return;
    for (let b = e && bare(e); b !== undefined;) {
      if (b.type === "Identifier") found.add(b.name);
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
  return names.map((n) => n !== undefined && found.has(n));
}
