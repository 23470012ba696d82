// Common-subexpression elimination: a let whose right-hand side equals (up to bound names, src/ir/equal.ts) the
// right-hand side of a let in scope is replaced by that let's variable.
//
// Every right-hand side is pure, and a let in scope has already been evaluated (lets are strict), so reusing its value
// is exact, errors included: had the earlier evaluation failed, execution would not have got here. Commutative
// primitives are compared with their operands in either order, and forward mode's tangent arithmetic (Prim.tangent)
// only with its own kind: a primal product is NaN where the same product of a zero tangent is a symbolic zero. A scope
// or node in which nothing is replaced is returned as it was (the same objects), not rebuilt.

import { AnfBuilder } from "../ir/builder.js";
import { alphaEqual, alphaKey } from "../ir/equal.js";
import { exprSize, mapNode } from "../ir/free.js";
import { isAtom, tangentMarkKey, type Atom, type Expr, type IrFunction, type Var } from "../ir/ir.js";
import { PRIMS } from "../prims/table.js";
import type { Pass } from "./pass.js";

function atomKey(a: Atom): string {
  if (a.kind === "var") return `v${a.id}`;
  return `${a.type.k}:${Object.is(a.value, -0) ? "-0" : String(a.value)}`;
}

function atomsKey(as: readonly Atom[]): string {
  let key = "";
  for (let i = 0; i < as.length; i++) key += (i === 0 ? "" : ",") + atomKey(as[i]!);
  return key;
}

/** A key equal for equal right-hand sides: exact for simple nodes, a bucket (then compared in full) for the others. */
function key(e: Expr): string | undefined {
  switch (e.kind) {
    case "prim": {
      // Most primitives take two operands: their key is made without an array (this runs on every let, every round).
      const commutative = PRIMS[e.op].commutative === true;
      const head = `p:${e.op}:${e.type.k}:${tangentMarkKey(e)}`;
      if (e.args.length !== 2) {
        const args = e.args.map(atomKey);
        if (commutative) args.sort();
        return `${head}:${args.join(",")}`;
      }
      const x = atomKey(e.args[0]!);
      const y = atomKey(e.args[1]!);
      if (!(commutative && y < x)) return `${head}:${x},${y}`;
      // Operands swapped: so is the position of a tangent operand.
      return `p:${e.op}:${e.type.k}:${tangentMarkKey(e, true)}:${y},${x}`;
    }
    case "call": // a function of its arguments, like a primitive
      return `c:${e.fn}:${atomsKey(e.args)}`;
    case "tuple":
      return `t:${atomsKey(e.elems)}`;
    case "proj":
      return `j:${e.index}:${atomKey(e.arg)}`;
    // Conditionals and loops by their size and the alpha-invariant key of their first nodes: a program of many loops
    // of one shape over different values (a loop per step of a chain) has them in different buckets, not compared
    // each with all the earlier ones.
    case "if":
    case "build":
    case "ifold":
    case "while":
      return `${e.kind}:${exprSize(e)}:${alphaKey(e, 24)}`;
    default:
      return undefined; // lambdas, applications and jvp are left to the inliner and AD
  }
}

const needsFullCompare = (e: Expr) => e.kind === "if" || e.kind === "build" || e.kind === "ifold" || e.kind === "while";

export function eliminateCommonSubexpressions(fn: IrFunction): { fn: IrFunction; replaced: number } {
  const c = new Cse();
  return { fn: { ...fn, body: c.scope(fn.body) }, replaced: c.replaced };
}

export const csePass: Pass = {
  name: "cse",
  run: (fn) => eliminateCommonSubexpressions(fn).fn,
};

class Cse {
  private readonly subst = new Map<number, Atom>();
  /** Key -> the variables in scope bound to a right-hand side with that key (innermost last), and their rhs. */
  private readonly available = new Map<string, { v: Var; rhs: Expr }[]>();
  private readonly added: string[] = [];
  replaced = 0;
  /** Lets removed and operands replaced so far: unchanged across a scope or node, it is returned as it was. */
  private changes = 0;

  private atom(a: Atom): Atom {
    const to = a.kind === "var" ? (this.subst.get(a.id) ?? a) : a;
    if (to !== a) this.changes++;
    return to;
  }

  scope(e: Expr): Expr {
    const original = e;
    const before = this.changes;
    const mark = this.added.length;
    const b = new AnfBuilder();
    while (e.kind === "let") {
      const rhs = this.node(e.rhs);
      const k = key(rhs);
      const hit =
        k === undefined
          ? undefined
          : this.available.get(k)?.find((x) => !needsFullCompare(rhs) || alphaEqual(x.rhs, rhs));
      if (hit) {
        this.subst.set(e.v.id, hit.v);
        this.replaced++;
        this.changes++;
      } else if (isAtom(rhs)) {
        b.bindVar(e.v, rhs);
      } else {
        b.bindVar(e.v, rhs);
        if (k !== undefined) {
          const list = this.available.get(k) ?? [];
          list.push({ v: e.v, rhs });
          this.available.set(k, list);
          this.added.push(k);
        }
      }
      e = e.body;
    }
    const out = b.finish(this.node(e));
    // Leaving the scope: its lets are no longer available.
    while (this.added.length > mark) this.available.get(this.added.pop()!)!.pop();
    return this.changes === before ? original : out;
  }

  private node(e: Expr): Expr {
    if (e.kind === "let") return this.scope(e);
    const before = this.changes;
    const out = mapNode(
      e,
      (a) => this.atom(a),
      (body) => this.scope(body),
    );
    return this.changes === before ? e : out;
  }
}
