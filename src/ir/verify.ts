// The IR verifier: checks the invariants stated at the top of ir.ts and throws a plain Error (a compiler bug, never a
// user error) describing the first violation, with the offending node printed. Tests run it after every pass.

import { dualType } from "../ad/dual-types.js";
import { BOOL, containsFun, funOf, showType, tupleOf, typeEq, type Type, arrayOf } from "../types/types.js";
import { PRIMS } from "../prims/table.js";
import { customRuleTypes, isAtom, typeOf, vjpType, type Atom, type Expr, type IrFunction, type Var } from "./ir.js";
import { printIr } from "./print.js";

/**
 * Throws if `x` breaks an IR invariant. For a bare expression, `scope` lists the variables it may use freely
 * (a closed expression by default).
 */
export function verify(x: IrFunction | Expr, scope: readonly Var[] = []): void {
  if ("params" in x) {
    // The program's functions: unique names, each a first-order function checked like the entry, calls matching them.
    const functions = new Map<string, IrFunction>();
    for (const f of x.functions ?? []) {
      if (functions.has(f.name) || f.name === x.name) throw new Error(`IR invariant violated: two functions ${f.name}`);
      if (f.functions !== undefined && f.functions.length > 0)
        throw new Error(`IR invariant violated: function ${f.name} has functions of its own`);
      functions.set(f.name, f);
    }
    for (const f of [x, ...functions.values()]) {
      const v = new Verifier(functions);
      for (const p of f.params) v.declare(p, undefined);
      try {
        v.expr(f.body);
      } catch (e) {
        if (f === x) throw e;
        throw new Error(`in function ${f.name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
    }
  } else {
    const v = new Verifier(new Map());
    for (const p of scope) v.declare(p, undefined);
    v.expr(x);
  }
}

const MAX_SHOWN = 500;

function show(node: Expr): string {
  let text: string;
  try {
    text = printIr(node, { sugar: false });
  } catch {
    text = `<${node.kind} node>`;
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)} ...` : text;
}

class Verifier {
  private readonly inScope = new Map<number, Var>();
  private readonly everBound = new Set<number>();

  constructor(private readonly functions: ReadonlyMap<string, IrFunction>) {}

  private fail(node: Expr, message: string): never {
    throw new Error(`IR invariant violated: ${message}\n  in: ${show(node).replace(/\n/g, "\n      ")}`);
  }

  private expect(node: Expr, what: string, expected: Type, found: Type): void {
    if (!typeEq(expected, found))
      this.fail(node, `${what}: expected type ${showType(expected)}, found ${showType(found)}`);
  }

  declare(v: Var, node: Expr | undefined): void {
    if (this.everBound.has(v.id)) {
      const msg = `variable ${v.name}#${v.id} is bound more than once`;
      if (node) this.fail(node, msg);
      throw new Error(`IR invariant violated: ${msg}`);
    }
    this.everBound.add(v.id);
    this.inScope.set(v.id, v);
  }

  private leave(v: Var): void {
    this.inScope.delete(v.id);
  }

  private atom(node: Expr, a: Atom, what: string): void {
    if (!isAtom(a)) this.fail(node, `${what} must be an atom, found a ${(a as Expr).kind}`);
    if (a.kind === "lit") {
      const ok =
        (a.type.k === "double" && typeof a.value === "number") ||
        (a.type.k === "int" && typeof a.value === "number" && Number.isInteger(a.value) && (a.value | 0) === a.value) ||
        (a.type.k === "bool" && typeof a.value === "boolean");
      if (!ok) this.fail(node, `literal ${String(a.value)} does not fit its type ${showType(a.type)}`);
      return;
    }
    const b = this.inScope.get(a.id);
    if (b === undefined) {
      this.fail(
        node,
        this.everBound.has(a.id) ? `${a.name}#${a.id} is used out of its scope` : `${a.name}#${a.id} is unbound`,
      );
    }
    this.expect(node, `use of ${a.name}#${a.id}`, b.type, a.type);
  }

  expr(e: Expr): void {
    switch (e.kind) {
      case "var":
      case "lit":
        this.atom(e, e, "an atom");
        return;
      case "let": {
        const chain: Var[] = [];
        let cur: Expr = e;
        while (cur.kind === "let") {
          if (cur.rhs.kind === "let")
            this.fail(cur, `the right-hand side of let ${cur.v.name} is a let (lets must be flat)`);
          this.expr(cur.rhs);
          this.expect(cur, `let ${cur.v.name}`, cur.v.type, typeOf(cur.rhs));
          this.declare(cur.v, cur);
          chain.push(cur.v);
          cur = cur.body;
        }
        this.expr(cur);
        for (const v of chain) this.leave(v);
        return;
      }
      case "prim": {
        const rule = PRIMS[e.op];
        if (rule === undefined) this.fail(e, `unknown primitive ${String(e.op)}`);
        if (e.args.length !== rule.arity) this.fail(e, `${e.op} takes ${rule.arity} arguments, has ${e.args.length}`);
        e.args.forEach((a, i) => this.atom(e, a, `argument ${i + 1} of ${e.op}`));
        if (rule.resultFromNode !== undefined) {
          if (
            !rule.resultFromNode(
              e.args.map((a) => a.type),
              e.type,
            )
          )
            this.fail(e, `${e.op} of ${e.args.map((a) => showType(a.type)).join(", ")} cannot be ${showType(e.type)}`);
          return;
        }
        const t = rule.type(
          e.args.map((a) => a.type),
          e.args.map((a) => (a.kind === "lit" ? a.value : undefined)),
        );
        if (!("k" in t))
          this.fail(e, `${e.op} applied to ${e.args.map((a) => showType(a.type)).join(", ")}; expected ${t.expected}`);
        this.expect(e, `result of ${e.op}`, t, e.type);
        return;
      }
      case "call": {
        const f = this.functions.get(e.fn);
        if (f === undefined) this.fail(e, `call of an unknown function ${e.fn}`);
        if (e.args.length !== f.params.length)
          this.fail(e, `${e.fn} takes ${f.params.length} arguments, has ${e.args.length}`);
        e.args.forEach((a, i) => {
          this.atom(e, a, `argument ${i + 1} of ${e.fn}`);
          this.expect(e, `argument ${i + 1} of ${e.fn}`, f.params[i]!.type, a.type);
        });
        this.expect(e, `result of ${e.fn}`, typeOf(f.body), e.type);
        return;
      }
      case "tuple":
        // The surface language has no 0- or 1-tuples, and neither can the printer write them.
        if (e.elems.length < 2) this.fail(e, `a tuple needs at least 2 elements, has ${e.elems.length}`);
        e.elems.forEach((a, i) => this.atom(e, a, `tuple element ${i}`));
        this.expect(e, "tuple", tupleOf(e.elems.map((a) => a.type)), e.type);
        return;
      case "proj": {
        this.atom(e, e.arg, "the argument of a projection");
        const t = e.arg.type;
        if (t.k !== "tuple") this.fail(e, `projection from a non-tuple of type ${showType(t)}`);
        if (!Number.isInteger(e.index) || e.index < 0 || e.index >= t.elems.length) {
          this.fail(e, `projection ${e.index} out of range for ${showType(t)}`);
        }
        this.expect(e, `projection ${e.index}`, t.elems[e.index]!, e.type);
        return;
      }
      case "lam":
        this.declare(e.param, e);
        this.expr(e.body);
        this.leave(e.param);
        this.expect(e, "lambda", funOf(e.param.type, typeOf(e.body)), e.type);
        return;
      case "app": {
        this.atom(e, e.fn, "the function of an application");
        this.atom(e, e.arg, "the argument of an application");
        const f = e.fn.type;
        if (f.k !== "fun") this.fail(e, `application of a non-function of type ${showType(f)}`);
        this.expect(e, "argument", f.param, e.arg.type);
        this.expect(e, "application result", f.result, e.type);
        return;
      }
      case "jvp":
        this.atom(e, e.fn, "the function of jvp");
        if (e.fn.type.k !== "fun") this.fail(e, `jvp of a non-function of type ${showType(e.fn.type)}`);
        this.expect(e, e.reverse ? "vjp" : "jvp", e.reverse ? vjpType(e.fn.type) : dualType(e.fn.type), e.type);
        return;
      case "if":
        this.atom(e, e.cond, "the condition of if");
        if (e.cond.type.k !== "bool") this.fail(e, `if condition of type ${showType(e.cond.type)}`);
        this.expr(e.then);
        this.expr(e.else);
        this.expect(e, "then branch", e.type, typeOf(e.then));
        this.expect(e, "else branch", e.type, typeOf(e.else));
        return;
      case "build": {
        this.atom(e, e.size, "the size of build");
        if (e.size.type.k !== "int") this.fail(e, `build size of type ${showType(e.size.type)}`);
        if (e.index.type.k !== "int") this.fail(e, `build index of type ${showType(e.index.type)}`);
        this.declare(e.index, e);
        this.expr(e.body);
        this.leave(e.index);
        const elem = typeOf(e.body);
        if (containsFun(elem)) this.fail(e, `build elements of function type ${showType(elem)}`);
        this.expect(e, "build", arrayOf(elem), e.type);
        return;
      }
      case "ifold": {
        this.atom(e, e.init, "the initial state of ifold");
        this.atom(e, e.count, "the count of ifold");
        if (e.count.type.k !== "int") this.fail(e, `ifold count of type ${showType(e.count.type)}`);
        if (e.index.type.k !== "int") this.fail(e, `ifold index of type ${showType(e.index.type)}`);
        if (containsFun(e.acc.type)) this.fail(e, `ifold state of function type ${showType(e.acc.type)}`);
        this.expect(e, "ifold accumulator", e.init.type, e.acc.type);
        this.declare(e.acc, e);
        this.declare(e.index, e);
        this.expr(e.body);
        this.leave(e.acc);
        this.leave(e.index);
        this.expect(e, "ifold body", e.acc.type, typeOf(e.body));
        this.expect(e, "ifold", e.acc.type, e.type);
        return;
      }
      case "while": {
        this.atom(e, e.init, "the initial state of while");
        if (containsFun(e.acc.type)) this.fail(e, `while state of function type ${showType(e.acc.type)}`);
        this.expect(e, "while state", e.init.type, e.acc.type);
        this.declare(e.acc, e);
        this.expr(e.cond);
        this.expr(e.body);
        this.leave(e.acc);
        this.expect(e, "while condition", BOOL, typeOf(e.cond));
        this.expect(e, "while body", e.acc.type, typeOf(e.body));
        this.expect(e, "while", e.acc.type, e.type);
        return;
      }
      case "custom": {
        this.atom(e, e.fn, "the function of a custom rule");
        e.rules.forEach((r, k) => this.atom(e, r, `rule ${k + 1} of a custom rule`));
        const f = e.fn.type;
        if (f.k !== "fun") this.fail(e, `custom rule for a non-function of type ${showType(f)}`);
        this.expect(e, "custom", f, e.type);
        const wanted = customRuleTypes(e.mode, f, e.rules[0]?.type);
        if (wanted === undefined || wanted.length !== e.rules.length)
          this.fail(e, `custom ${e.mode} with ${e.rules.length} rules of the wrong shape`);
        wanted.forEach((t, k) => this.expect(e, `rule ${k + 1} of custom ${e.mode}`, t, e.rules[k]!.type));
        return;
      }
      default:
        this.fail(e, `unknown node kind ${(e as { kind: string }).kind}`);
    }
  }
}
