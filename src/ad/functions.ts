// The first-order functions of a program (src/ir/ir.ts `functions`: recursion) while derivatives are expanded, and
// the derivatives made of them, generated on demand and memoised per function:
//
//  - forward mode: D[f], the function of the duals of f's parameters returning the dual of f's result (paper 000
//    Fig. 6 on f's body); where f calls g, D[f] calls D[g], so the derivative of a recursive function is recursive;
//  - reverse mode: see ./reverse-functions.ts (f_fwd, f_bwd, f_vjp per set of active parameters).
//
// A function's own `jvp` nodes (a derivative taken inside a recursive function) are expanded before anything
// differentiates the function; one that would need its own derivative for that is reported.

import { freshVar, type IrFunction, type Var } from "../ir/ir.js";
import { fail } from "../syntax/diagnostics.js";
import { dualType, hasTangent } from "./dual-types.js";
import { forwardTransform } from "./forward.js";

type Status = "pending" | "expanding" | "done";

export class ProgramFunctions {
  private readonly byName = new Map<string, IrFunction>();
  private readonly status = new Map<string, Status>();
  private readonly forwards = new Map<string, string>();
  /** Derivatives of any kind, memoised by a key of the caller's choosing (./reverse-functions.ts). */
  readonly memo = new Map<string, unknown>();

  /**
   * `expand` removes the `jvp` nodes of one function (the forward-ad pass, ./expand.ts), given this table for the
   * derivatives of the functions its derivatives call.
   */
  constructor(
    functions: readonly IrFunction[],
    private readonly expand: (fn: IrFunction, table: ProgramFunctions) => IrFunction = (fn) => fn,
    /** Names no function may take (the entry's). */
    private readonly reserved: ReadonlySet<string> = new Set(),
  ) {
    for (const f of functions) {
      this.byName.set(f.name, f);
      this.status.set(f.name, "pending");
    }
  }

  /** Every function, derivatives included, in the order they were added. */
  all(): IrFunction[] {
    return [...this.byName.keys()].map((n) => this.get(n));
  }

  /** Function `name`, its own derivatives expanded. */
  get(name: string): IrFunction {
    const f = this.byName.get(name);
    if (f === undefined) throw new Error(`functions: no function ${name}`);
    const s = this.status.get(name);
    if (s === "done") return f;
    if (s === "expanding")
      fail("unsupported", `\`${name}\` takes a derivative of a function that calls \`${name}\` itself`, f.span, {
        hint: "a recursive function cannot differentiate itself; take the derivative outside it",
      });
    this.status.set(name, "expanding");
    const expanded = this.expand(f, this);
    this.byName.set(name, expanded);
    this.status.set(name, "done");
    return expanded;
  }

  /** Adds a function whose body needs no expansion (a derivative); returns its name, made unique from `base`. */
  add(base: string, make: (name: string) => IrFunction): string {
    // Named before it is made, so that a recursive derivative can call itself.
    const name = this.reserve(base);
    this.define(make(name));
    return name;
  }

  /** A name for a function to be defined later (`define`), unique in the program. */
  reserve(base: string): string {
    let name = base;
    for (let k = 2; this.byName.has(name) || this.reserved.has(name); k++) name = `${base}_${k}`;
    this.status.set(name, "expanding");
    this.byName.set(name, { name, params: [], body: { kind: "lit", value: 0, type: { k: "double" } } });
    return name;
  }

  /** Defines a function whose name was reserved. */
  define(fn: IrFunction): void {
    if (this.status.get(fn.name) !== "expanding") throw new Error(`functions: ${fn.name} was not reserved`);
    this.byName.set(fn.name, fn);
    this.status.set(fn.name, "done");
  }

  /** The name of D[f] (made on first use): parameters and result are the duals of f's. */
  forward(name: string): string {
    const have = this.forwards.get(name);
    if (have !== undefined) return have;
    const f = this.get(name);
    let made: string | undefined;
    const dname = this.add(`${name}'`, (n) => {
      made = n;
      this.forwards.set(name, n);
      const params = f.params.map((p): Var => freshVar(hasTangent(p.type) ? `${p.name}'` : p.name, dualType(p.type)));
      const env = new Map(f.params.map((p, i) => [p.id, params[i]!] as const));
      const body = forwardTransform(f.body, env, this);
      // D[f]'s parameters and result parts are the duals of f's, position for position: f's owned accumulators
      // (reverse mode's f_bwd) stay owned, so that D[f_bwd] too updates them in place (src/lowering/ownership.ts).
      const ownership = {
        ...(f.owned ? { owned: f.owned } : {}),
        ...(f.ownedResults ? { ownedResults: f.ownedResults } : {}),
      };
      return { name: n, params, body, ...ownership, ...(f.span ? { span: f.span } : {}) };
    });
    if (made !== dname) throw new Error("functions: derivative named twice");
    return dname;
  }
}
