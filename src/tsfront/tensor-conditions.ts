// Before a function over tensors is traced, its source is read for tensors used where JavaScript decides something:
// the condition of an if, a loop or `?:`, an operand of `!`, `&&`, `||`, `===` or `!==`. JavaScript cannot see a
// staged value there (every tensor is truthy, and `===` compares identities), so the trace would silently take one
// branch; this finds them first and names the line. (The tracer also catches a staged Bool no operation used.)

import type * as A from "acorn";
import { StagingError } from "../staging/errors.js";
import { excerpt, formatLocation } from "../syntax/source.js";
import { spanOf, type FunctionSource } from "./source.js";
import { bare, type Expression, type Node } from "./syntax.js";
import { walkTree } from "./walk.js";

/** Tensor operations whose result is a plain JavaScript value where it is known (lengths, shapes). */
const PLAIN_RESULTS = new Set(["length", "shape"]);

/**
 * Throws a StagingError at the first tensor used as a JavaScript condition or compared with `===`. `isTensorCall`
 * tells whether a called name (or `owner.name`) is a tensor operation.
 */
export function checkTensorConditions(
  src: FunctionSource,
  isTensorCall: (callee: Expression) => string | undefined,
): void {
  const node = src.node;
  const tensors = new Set<string>();
  // Parameters of the traced function are tensors (or JavaScript arrays and objects of them: always truthy too).
  for (const p of node.params) if (p.type === "Identifier") tensors.add(p.name);
  const tensorValued = (e0: Expression): boolean => {
    const e = bare(e0);
    if (e.type === "Identifier") return tensors.has(e.name);
    if (e.type === "CallExpression" && e.callee.type !== "Super") {
      const op = isTensorCall(e.callee);
      if (op !== undefined) return !PLAIN_RESULTS.has(op);
      const callee = bare(e.callee);
      return (
        callee.type === "MemberExpression" &&
        !callee.computed &&
        callee.property.type === "Identifier" &&
        callee.property.name === "at" &&
        callee.object.type !== "Super" &&
        tensorValued(callee.object)
      );
    }
    if (e.type === "LogicalExpression") return tensorValued(e.left) || tensorValued(e.right);
    return false;
  };
  // Variables initialised with a tensor are tensors (until a fixpoint: one may be defined from another).
  const declarations: A.VariableDeclarator[] = [];
  walkTree(node, true, (n) => {
    const d = n as A.VariableDeclarator;
    if (n.type === "VariableDeclarator" && d.id.type === "Identifier" && d.init) declarations.push(d);
    return true;
  });
  for (let changed = true; changed;) {
    changed = false;
    for (const d of declarations) {
      const name = (d.id as A.Identifier).name;
      if (!tensors.has(name) && tensorValued(d.init!)) {
        tensors.add(name);
        changed = true;
      }
    }
  }
  const report = (e: Expression, how: string): never => {
    const span = spanOf(src, e);
    throw new StagingError(
      `${formatLocation(span)}: \`${span.file.text.slice(span.start, span.end).replace(/\s+/g, " ")}\` is a staged value ${how}, which JavaScript ` +
        "cannot see (every tensor is true to it, and === compares identities); the trace would take one branch for " +
        "all values\n" +
        `${excerpt(span)}\n` +
        "use cond(c, () => a, () => b) for a staged choice, and/or/not to combine staged Bools, eq/ne to compare",
    );
  };
  const condition = (e: Expression | null | undefined, how: string): void => {
    if (e && tensorValued(e)) report(e, how);
  };
  const IDENTITY = new Set(["===", "!==", "==", "!="]);
  walkTree(node, true, (n: Node) => {
    const x = n as A.AnyNode;
    if (x.type === "IfStatement") condition(x.test, "used as the condition of `if`");
    else if (x.type === "WhileStatement" || x.type === "DoWhileStatement")
      condition(x.test, "used as a loop's condition");
    else if (x.type === "ForStatement") condition(x.test, "used as a loop's condition");
    else if (x.type === "ConditionalExpression") condition(x.test, "used as the condition of `?:`");
    else if (x.type === "UnaryExpression" && x.operator === "!") condition(x.argument, "negated with `!`");
    else if (x.type === "LogicalExpression") {
      condition(x.left, `used as an operand of \`${x.operator}\``);
      condition(x.right, `used as an operand of \`${x.operator}\``);
    } else if (x.type === "BinaryExpression" && IDENTITY.has(x.operator)) {
      condition(x.left as Expression, `compared with \`${x.operator}\``);
      condition(x.right, `compared with \`${x.operator}\``);
    }
    return true;
  });
}
