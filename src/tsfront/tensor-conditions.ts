// Before a function over tensors is traced, its source is read for tensors used where JavaScript decides something:
// the condition of an if, a loop or `?:`, an operand of `!`, `&&`, `||`, `===` or `!==`. JavaScript cannot see a
// staged value there (every tensor is truthy, and `===` compares identities), so the trace would silently take one
// branch; this finds them first and names the line. (The tracer also catches a staged Bool no operation used.)

import type * as TS from "typescript";
import { StagingError } from "../staging/errors.js";
import { excerpt, formatLocation } from "../syntax/source.js";
import type { TypeScript } from "./compiler.js";
import { spanOf, type FunctionSource } from "./source.js";
import { walkTree } from "./walk.js";

/** Tensor operations whose result is a plain JavaScript value where it is known (lengths, shapes). */
const PLAIN_RESULTS = new Set(["length", "shape"]);

/**
 * Throws a StagingError at the first tensor used as a JavaScript condition or compared with `===`. `isTensorCall`
 * tells whether a called name (or `owner.name`) is a tensor operation.
 */
export function checkTensorConditions(
  ts: TypeScript,
  src: FunctionSource,
  isTensorCall: (callee: TS.Expression) => string | undefined,
): void {
  const node = src.node;
  const tensors = new Set<string>();
  // Parameters of the traced function are tensors (or JavaScript arrays and objects of them: always truthy too).
  for (const p of node.parameters) if (ts.isIdentifier(p.name)) tensors.add(p.name.text);
  const bare = (e: TS.Expression): TS.Expression => {
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return e;
  };
  const tensorValued = (e0: TS.Expression): boolean => {
    const e = bare(e0);
    if (ts.isIdentifier(e)) return tensors.has(e.text);
    if (ts.isCallExpression(e)) {
      const op = isTensorCall(e.expression);
      if (op !== undefined) return !PLAIN_RESULTS.has(op);
      const callee = bare(e.expression);
      return ts.isPropertyAccessExpression(callee) && callee.name.text === "at" && tensorValued(callee.expression);
    }
    if (ts.isBinaryExpression(e)) {
      const k = e.operatorToken.kind;
      if (k === ts.SyntaxKind.AmpersandAmpersandToken || k === ts.SyntaxKind.BarBarToken)
        return tensorValued(e.left) || tensorValued(e.right);
    }
    return false;
  };
  // Variables initialised with a tensor are tensors (until a fixpoint: one may be defined from another).
  const declarations: TS.VariableDeclaration[] = [];
  walkTree(ts, node, true, (n) => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) declarations.push(n);
    return true;
  });
  for (let changed = true; changed;) {
    changed = false;
    for (const d of declarations) {
      const name = (d.name as TS.Identifier).text;
      if (!tensors.has(name) && tensorValued(d.initializer!)) {
        tensors.add(name);
        changed = true;
      }
    }
  }
  const report = (e: TS.Expression, how: string): never => {
    const span = spanOf(src, e);
    throw new StagingError(
      `${formatLocation(span)}: \`${e.getText().replace(/\s+/g, " ")}\` is a staged value ${how}, which JavaScript ` +
        "cannot see (every tensor is true to it, and === compares identities); the trace would take one branch for " +
        "all values\n" +
        `${excerpt(span)}\n` +
        "use cond(c, () => a, () => b) for a staged choice, and/or/not to combine staged Bools, eq/ne to compare",
    );
  };
  const condition = (e: TS.Expression | undefined, how: string): void => {
    if (e && tensorValued(e)) report(e, how);
  };
  walkTree(ts, node, true, (n) => {
    if (ts.isIfStatement(n)) condition(n.expression, "used as the condition of `if`");
    else if (ts.isWhileStatement(n) || ts.isDoStatement(n)) condition(n.expression, "used as a loop's condition");
    else if (ts.isForStatement(n)) condition(n.condition, "used as a loop's condition");
    else if (ts.isConditionalExpression(n)) condition(n.condition, "used as the condition of `?:`");
    else if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.ExclamationToken)
      condition(n.operand, "negated with `!`");
    else if (ts.isBinaryExpression(n)) {
      const k = n.operatorToken.kind;
      const logical = k === ts.SyntaxKind.AmpersandAmpersandToken || k === ts.SyntaxKind.BarBarToken;
      const identity =
        k === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
        k === ts.SyntaxKind.EqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsToken;
      if (logical) {
        condition(n.left, `used as an operand of \`${n.operatorToken.getText()}\``);
        condition(n.right, `used as an operand of \`${n.operatorToken.getText()}\``);
      } else if (identity) {
        condition(n.left, `compared with \`${n.operatorToken.getText()}\``);
        condition(n.right, `compared with \`${n.operatorToken.getText()}\``);
      }
    }
    return true;
  });
}
