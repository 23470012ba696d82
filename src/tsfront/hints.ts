// Which number parameters of a TypeScript function are integers: those it uses as an index (`a[n]`) or a length
// (`new Float64Array(n)`, `{ length: n }`), where JavaScript needs an integer too. The library reads such an argument
// as an Index (checking that it is an integer), so the program computes with it in Index arithmetic. (A loop bound may
// be any number: `for (let i = 0; i < t; i++)` runs ceil(t) times.)

import type * as TS from "typescript";
import type { TypeScript } from "./compiler.js";
import type { FunctionNode } from "./source.js";
import { walkTree } from "./walk.js";

export function integerParams(ts: TypeScript, node: FunctionNode): boolean[] {
  const names = node.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : undefined));
  const found = new Set<string>();
  const bare = (e: TS.Expression): TS.Expression => {
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return e;
  };
  /** The parameter an integer position holds: `n`, or `n - 1`, `n + 2` (an integer plus a constant). */
  const mark = (e: TS.Expression | undefined): void => {
    for (let b = e && bare(e); b !== undefined;) {
      if (ts.isIdentifier(b)) found.add(b.text);
      const plusConstant =
        ts.isBinaryExpression(b) &&
        (b.operatorToken.kind === ts.SyntaxKind.PlusToken || b.operatorToken.kind === ts.SyntaxKind.MinusToken) &&
        ts.isNumericLiteral(bare(b.right));
      b = plusConstant ? bare((b as TS.BinaryExpression).left) : undefined;
    }
  };
  if (node.body)
    walkTree(ts, node.body, true, (n) => {
      if (ts.isElementAccessExpression(n)) mark(n.argumentExpression);
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && /Array$/.test(n.expression.text))
        mark(n.arguments?.[0]);
      if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name) && n.name.text === "length") mark(n.initializer);
      return true;
    });
  return names.map((n) => n !== undefined && found.has(n));
}
