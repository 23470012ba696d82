// Ring-structure rules (paper 000, Fig. 7a) on Double and Index arithmetic.
//
// Exactness. On Index (32-bit wrap-around arithmetic) every rule here is exact, and so are, on Double, `e - 0`,
// `e + -0`, `e * 1`, `e / 1`, `e * -1 -> -e`, `--e`, `e + -f -> e - f` and `e - -f -> e + f`. So is `e * 0 -> 0` (and
// `0 / e -> 0`) where the 0 is the tangent operand of forward mode's tangent arithmetic (`Prim.tangent`): a zero
// tangent is a symbolic zero, whatever the partial it multiplies (both back ends evaluate it so). The others hold only
// under the paper's assumption that the sign of a zero and the rounding of a sum do not matter:
//  - `e + 0 -> e` (e = -0 gives +0) and `0 - e -> -e` (e = +0);
//  - `e0*e1 + e0*e2 -> e0*(e1+e2)` (rounds differently).
// They are applied to forward mode's tangent arithmetic (the nodes it marks), in every pipeline, and never to a primal
// value: what decides is which arithmetic computes a tangent, not whether the derivative was asked for by the CLI, the
// library or `deriv`/`grad` inside the program. A program's primal values are bit for bit what the interpreter
// computes. `e + -e -> 0` and `e - e -> 0` are done on Index only: on Double they fail for infinities and NaN.

import { AnfBuilder, mkPrim } from "../../ir/builder.js";
import { lit, symbolicZero, type Atom, type Expr, type Prim } from "../../ir/ir.js";
import type { AnyRule, RuleContext } from "./rule.js";
import { rule } from "./rule.js";

const isNum = (a: Atom, x: number) => a.kind === "lit" && typeof a.value === "number" && a.value === x;
const isNegZero = (a: Atom) => a.kind === "lit" && Object.is(a.value, -0);
const zeroOf = (p: Prim) => lit(0, p.type);
const isArith = (p: Prim) => p.type.k === "double" || p.type.k === "int";

/** The primitive `a` is let-bound to, if it is `op`. */
function defOp(a: Atom, op: string, ctx: RuleContext): Prim | undefined {
  const d = ctx.definition(a);
  return d?.kind === "prim" && d.op === op ? d : undefined;
}

/** Whether `p` is a product or quotient of forward mode's tangent arithmetic whose tangent is a literal 0. */
const zeroTangent = (p: Prim) => symbolicZero(p, (k) => isNum(p.args[k]!, 0));

/** Whether a rule exact only up to signs of zero and rounding may rewrite `p`: Index arithmetic, or a tangent's. */
const assumed = (p: Prim) => p.type.k === "int" || p.tangent !== undefined;

/** The ring rules: exact ones, and on tangent arithmetic those exact only up to signs of zero and rounding. */
export function ringRules(): AnyRule[] {
  const addZero = rule({
    name: "add-zero",
    head: "prim",
    ops: ["add"],
    doc: "e + 0 -> e;  0 + e -> e   (Double: with +0 only on tangent arithmetic)",
    apply(node) {
      if (node.op !== "add" || !isArith(node)) return undefined;
      const [a, b] = node.args as [Atom, Atom];
      if (isNum(b, 0) && (isNegZero(b) || assumed(node))) return a;
      if (isNum(a, 0) && (isNegZero(a) || assumed(node))) return b;
      return undefined;
    },
  });

  const subZero = rule({
    name: "sub-zero",
    head: "prim",
    ops: ["sub"],
    doc: "e - 0 -> e;  0 - e -> -e   (Double: the second only on tangent arithmetic)",
    apply(node) {
      if (node.op !== "sub" || !isArith(node)) return undefined;
      const [a, b] = node.args as [Atom, Atom];
      if (isNum(b, 0) && !isNegZero(b)) return a;
      if (isNum(a, 0) && assumed(node)) return mkPrim("neg", [b]);
      return undefined;
    },
  });

  const mulOne = rule({
    name: "mul-one",
    head: "prim",
    ops: ["mul", "div"],
    doc: "e * 1 -> e;  1 * e -> e;  e * -1 -> -e;  e / 1 -> e",
    apply(node) {
      const [a, b] = node.args as [Atom, Atom];
      if (node.op === "div" && isArith(node) && isNum(b, 1)) return a;
      if (node.op !== "mul" || !isArith(node)) return undefined;
      if (isNum(b, 1)) return a;
      if (isNum(a, 1)) return b;
      if (isNum(b, -1)) return mkPrim("neg", [a]);
      if (isNum(a, -1)) return mkPrim("neg", [b]);
      return undefined;
    },
  });

  const mulZero = rule({
    name: "mul-zero",
    head: "prim",
    ops: ["mul", "div"],
    doc: "e * 0 -> 0;  0 * e -> 0   (Index; on Double only for a zero tangent, a symbolic zero: 0 * ∞ = 0)",
    apply(node) {
      if (!isArith(node)) return undefined;
      if (node.type.k === "double") return zeroTangent(node) ? zeroOf(node) : undefined;
      const [a, b] = node.args as [Atom, Atom];
      return node.op === "mul" && (isNum(a, 0) || isNum(b, 0)) ? zeroOf(node) : undefined;
    },
  });

  const negNeg = rule({
    name: "neg-neg",
    head: "prim",
    ops: ["neg", "add", "sub"],
    doc: "--e -> e;  e + -f -> e - f;  e - -f -> e + f",
    apply(node, ctx) {
      if (node.op === "neg") return defOp(node.args[0]!, "neg", ctx)?.args[0];
      if (node.op !== "add" && node.op !== "sub") return undefined;
      const [a, b] = node.args as [Atom, Atom];
      const nb = defOp(b, "neg", ctx);
      if (nb) return mkPrim(node.op === "add" ? "sub" : "add", [a, nb.args[0]!]);
      const na = node.op === "add" ? defOp(a, "neg", ctx) : undefined;
      if (na) return mkPrim("sub", [b, na.args[0]!]);
      return undefined;
    },
  });

  const cancel = rule({
    name: "cancel",
    head: "prim",
    ops: ["sub", "add"],
    doc: "e - e -> 0;  e + -e -> 0   (Index only: exact there)",
    apply(node, ctx) {
      if (node.type.k !== "int") return undefined;
      const [a, b] = node.args as [Atom, Atom];
      if (node.op === "sub" && ctx.facts.sameValue(a, b)) return zeroOf(node);
      if (node.op !== "add") return undefined;
      const nb = defOp(b, "neg", ctx);
      const na = defOp(a, "neg", ctx);
      if ((nb && ctx.facts.sameValue(nb.args[0]!, a)) || (na && ctx.facts.sameValue(na.args[0]!, b)))
        return zeroOf(node);
      return undefined;
    },
  });

  const factor = rule({
    name: "factor",
    head: "prim",
    ops: ["add"],
    doc: "e0*e1 + e0*e2 -> e0*(e1+e2)   (products used only here; Double: only on tangent arithmetic)",
    apply(node, ctx): Expr | undefined {
      if (node.op !== "add" || !isArith(node) || !assumed(node)) return undefined;
      const [a, b] = node.args as [Atom, Atom];
      const pa = defOp(a, "mul", ctx);
      const pb = defOp(b, "mul", ctx);
      if (!pa || !pb || a.kind !== "var" || b.kind !== "var") return undefined;
      if (node.type.k === "double" && (pa.tangent === undefined || pb.tangent === undefined)) return undefined;
      // A product of two (co)tangents is 0 when either is: a sum of such products has no single factor to share.
      if (pa.tangent === "both" || pb.tangent === "both") return undefined;
      if (ctx.uses(a)?.total !== 1 || ctx.uses(b)?.total !== 1) return undefined;
      for (const i of [0, 1]) {
        for (const j of [0, 1]) {
          if (!ctx.facts.sameValue(pa.args[i]!, pb.args[j]!)) continue;
          // On tangent arithmetic: the shared operand is the tangent of both products, or a factor of both.
          if (node.type.k === "double" && (pa.tangent === i) !== (pb.tangent === j)) continue;
          const bld = new AnfBuilder();
          const sumNode = mkPrim("add", [pa.args[1 - i]!, pb.args[1 - j]!]);
          const sharedTangent = node.type.k === "double" && pa.tangent === i;
          const sum = bld.bind("s", node.type.k === "double" && !sharedTangent ? { ...sumNode, tangent: 0 } : sumNode);
          const product = mkPrim("mul", [pa.args[i]!, sum]);
          return bld.finish(node.type.k === "double" ? { ...product, tangent: sharedTangent ? 0 : 1 } : product);
        }
      }
      return undefined;
    },
  });

  return [addZero, subZero, mulOne, mulZero, negNeg, cancel, factor];
}
