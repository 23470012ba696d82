// The program's first-order functions (recursion, src/ir/lower-rec.ts) in compiled code. Each function becomes two
// JavaScript functions over its parameters' slots (leaves.ts):
//
//  - `$fK`, called directly, as long as the calls nested so far are fewer than `$limit`;
//  - `$fKg`, a generator with the same body whose calls are `yield $fMg(...)`: past `$limit` nested calls, `$fK`
//    hands its call to `$rt.drive`, which runs generators on a stack of its own, on the heap. Deep recursion (10⁵
//    nested calls and more) therefore never overflows the JavaScript stack; it only runs slower past the limit
//    (a generator per call: ~50 ns, against a few for a direct call).
//
// Results come back in registers, not in an allocated array: numbers and Bools in `$rf` (a Float64Array; a Bool as
// 0 or 1), typed arrays and tapes in `$ro`; the caller copies them into its own locals right after the call.
// A call of the function itself in tail position (the end of the body, of a branch of an `if`, or `let r = f ... in r`)
// assigns the parameters and jumps back to the start (`continue $tail`): tail recursion is a loop.
//
// `$limit` starts from the size of the functions' frames, so that `$limit` direct frames should fit in Node's default
// stack. If the stack overflows anyway (bigger frames than estimated, or a caller already deep in its own recursion),
// the whole call runs again with a lower limit, three quarters of the depth reached, which later calls keep: the limit
// learns the stack there is. Compiled code is a function of its arguments, so there is nothing to undo.

import type { Call, Expr, IrFunction } from "../ir/ir.js";
import { typeOf } from "../ir/ir.js";
import { forEachNode } from "../ir/free.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { Emitter, type Slots } from "./emit.js";
import { leavesOf, slotCount } from "../lowering/leaves.js";
import { slotNames } from "./writer.js";
import { ownership } from "../lowering/ownership.js";
import { varName } from "./writer.js";

/** The closure constants every emitter of one compiled program shares. */
export interface Shared {
  readonly spans: Span[];
  readonly types: Type[];
}

/** Where a result slot travels: `$rf` (a number, or a Bool as 0/1) or `$ro` (an array's data, a tape). */
type RegisterKind = "number" | "bool" | "object";

function registerKinds(t: Type): RegisterKind[] {
  return leavesOf(t).flatMap((l): RegisterKind[] => {
    if (l.rank > 0) return ["object", "number", ...new Array<RegisterKind>(l.rank).fill("number")];
    return [l.kind === "bool" ? "bool" : l.kind === "tape" ? "object" : "number"];
  });
}

/** Bytes of stack direct calls' frames may take at first (Node's default stack is about 984 KB). */
const STACK_BUDGET = 600_000;

export class FunctionsCode {
  private readonly index = new Map<string, number>();
  /** The program's functions by name (for ownership: callees' owned parameters and results). */
  readonly byName: ReadonlyMap<string, IrFunction>;
  /** The owned result components of the function being written that it must copy before returning them. */
  private resultCopies: readonly boolean[] = [];
  private readonly functions: readonly IrFunction[];
  private numberRegisters = 1;
  private objectRegisters = 1;
  private largestFrame = 0;
  readonly declarations: string;
  /** How many calls nest directly before the rest run on the heap. */
  readonly limit: number;

  constructor(
    program: IrFunction,
    private readonly shared: Shared,
  ) {
    this.functions = program.functions ?? [];
    this.functions.forEach((f, k) => this.index.set(f.name, k));
    this.byName = new Map(this.functions.map((f) => [f.name, f]));
    const parts = this.functions.flatMap((f, k) => [this.emit(f, k, false), this.emit(f, k, true)]);
    this.limit = Math.max(64, Math.min(20_000, Math.floor(STACK_BUDGET / this.largestFrame)));
    this.declarations =
      `let $depth = 0, $limit = ${this.limit};\n` +
      `const $rf = new Float64Array(${this.numberRegisters}), $ro = new Array(${this.objectRegisters}).fill(null);\n` +
      parts.join("");
  }

  /**
   * The compiled function: `$run` (the entry's code), run again with a lower `$limit` after a stack overflow, until
   * every call is on the heap.
   */
  retrying(): string {
    return (
      "return function compiled(args, borrowed) {\n  for (;;) {\n    try {\n      return $run(args, borrowed);\n" +
      "    } catch (e) {\n      if ($limit === 0 || !$rt.isStackOverflow(e)) throw e;\n" +
      "      $limit = Math.floor(Math.min($limit, $depth) * 0.75);\n    }\n  }\n};\n"
    );
  }

  /** The call of a function from code written in `em`: direct, or (in a generator) through the driver. */
  callSite(generator: boolean): (em: Emitter, e: Call, base: string) => Slots {
    return (em, e, base) => {
      const k = this.index.get(e.fn);
      if (k === undefined) throw new Error(`codegen: call of an unknown function ${e.fn}`);
      const args = argumentSlots(em, e);
      em.out.line(generator ? `yield $f${k}g(${args.join(", ")});` : `$f${k}(${args.join(", ")});`);
      return this.readResult(em, e.type, base);
    };
  }

  private readResult(em: Emitter, t: Type, base: string): Slots {
    const names = slotNames(base, t);
    let [nf, no] = [0, 0];
    registerKinds(t).forEach((kind, q) => {
      const from = kind === "object" ? `$ro[${no++}]` : `$rf[${nf++}]`;
      em.out.line(`const ${names[q]} = ${kind === "bool" ? `${from} !== 0` : from};`);
    });
    em.markDimensions(names, t);
    return names;
  }

  private writeResult(em: Emitter, t: Type, given: Slots, generator: boolean, copies: readonly boolean[]): void {
    let slots = given;
    if (copies.some((c) => c)) {
      // Owned result components not provably fresh are copied: the caller may update them in place.
      const parts = copies.length === 1 || t.k !== "tuple" ? [t] : t.elems;
      let at = 0;
      const out: string[] = [];
      parts.forEach((pt, k) => {
        const n = slotCount(pt);
        const own = slots.slice(at, at + n);
        out.push(...(copies[k] === true ? em.copyValue(own, pt) : own));
        at += n;
      });
      slots = out;
    }
    let [nf, no] = [0, 0];
    const parts = registerKinds(t).map((kind, q) => {
      const s = slots[q]!;
      if (kind === "object") return `$ro[${no++}] = ${s};`;
      return `$rf[${nf++}] = ${kind === "bool" ? `${s} ? 1 : 0` : s};`;
    });
    this.numberRegisters = Math.max(this.numberRegisters, nf);
    this.objectRegisters = Math.max(this.objectRegisters, no);
    em.out.line([...parts, generator ? "return;" : "$depth--; return;"].join(" "));
  }

  /** The JavaScript of function `f`: the direct one, or the generator. */
  private emit(f: IrFunction, k: number, generator: boolean): string {
    const em = new Emitter(2, this.shared);
    const owned = ownership(f, this.byName);
    em.inPlace = owned.inPlace;
    em.copyOnEntry = owned.copyOnEntry;
    em.copyArgs = owned.copyArgs;
    this.resultCopies = owned.resultCopies;
    em.callSite = this.callSite(generator);
    const params = f.params.flatMap((p) => {
      const names = slotNames(varName(p.id), p.type);
      em.bind(p, names);
      em.markDimensions(names, p.type);
      return names;
    });
    const loops = hasSelfTailCall(f.body, f.name);
    if (loops) em.out.open("$tail: for (;;) {");
    this.tail(em, f, f.body, params, generator);
    if (loops) em.out.close();
    const saved = Array.from({ length: em.savedCount }, (_, q) => `, $e${q} = 0`).join("");
    const dispatch = em
      .errorDispatch()
      .map((line) => `    ${line}\n`)
      .join("");
    const body = em.out.text();
    // A frame holds about one word per local (those the body declares, and the parameters' slots).
    const locals = (body.match(/\b(const|let) /g) ?? []).length + params.length;
    this.largestFrame = Math.max(this.largestFrame, 100 + 8 * locals);
    const head = generator
      ? `function* $f${k}g(${params.join(", ")}) {\n`
      : `function $f${k}(${params.join(", ")}) {\n` +
        `  if ($depth >= $limit) { $rt.drive($f${k}g(${params.join(", ")}), $depth, ${em.spanRef(this.callSpan(f))}); return; }\n` +
        "  $depth++;\n";
    return (
      `${head}  let $ek = 0${saved};\n  $main: {\n${body}\n  }\n` +
      `  switch ($ek) {\n${dispatch}  }\n  return $rt.noError();\n}\n`
    );
  }

  /** Where `f` is called: a call in its own body (the recursion) if there is one, else any call of it. */
  private callSpan(f: IrFunction): Span | undefined {
    let found: Span | undefined;
    for (const g of [f, ...this.functions]) {
      forEachNode(g.body, (node) => {
        if (found === undefined && node.kind === "call" && node.fn === f.name) found = node.span;
      });
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Emits `e` in tail position of `f`'s body: its value is the result (or a call of `f`, the next iteration). */
  private tail(em: Emitter, f: IrFunction, e: Expr, params: Slots, generator: boolean): void {
    while (e.kind === "let") {
      if (e.body.kind === "var" && e.body.id === e.v.id) {
        e = e.rhs; // `let r = x in r`: x is in tail position
        break;
      }
      em.letBinding(e);
      e = e.body;
    }
    if (e.kind === "if") {
      em.out.open(`if (${em.atom(e.cond)[0]!}) {`);
      this.tail(em, f, e.then, params, generator);
      em.out.close("} else {");
      em.out.indentIn();
      this.tail(em, f, e.else, params, generator);
      em.out.indentOut();
      em.out.line("}");
      return;
    }
    if (e.kind === "call" && e.fn === f.name) {
      em.assign(params, argumentSlots(em, e));
      em.out.line("continue $tail;");
      return;
    }
    this.writeResult(em, typeOf(f.body), em.expr(e, em.fresh()), generator, this.resultCopies);
  }
}

/**
 * The slots a call passes: an owned parameter (an accumulator, a tape: the callee changes it in place) given a value
 * something else holds gets a copy.
 */
function argumentSlots(em: Emitter, e: Call): Slots {
  const copies = em.copyArgs.get(e);
  return e.args.flatMap((a, i) => (copies?.has(i) ? em.copyValue(em.atom(a), a.type) : em.atom(a)));
}

/** Whether `e` (a function body) calls function `name` in tail position. */
function hasSelfTailCall(e: Expr, name: string): boolean {
  while (e.kind === "let") {
    if (e.body.kind === "var" && e.body.id === e.v.id) return hasSelfTailCall(e.rhs, name);
    e = e.body;
  }
  if (e.kind === "if") return hasSelfTailCall(e.then, name) || hasSelfTailCall(e.else, name);
  return e.kind === "call" && e.fn === name;
}
