// Recursion in the language: `let rec` (top level and local, mutual with `and`), its types, its errors, and how deep
// it runs in each back end.

import { describe, expect, it } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { MAX_CALL_DEPTH } from "../../src/eval/calls.js";
import { MAX_CALL_DEPTH_COMPILED } from "../../src/runtime/limits.js";
import { printIr } from "../../src/ir/print.js";
import { parseProgram } from "../../src/syntax/parser.js";
import { printProgram } from "../../src/syntax/printer.js";
import { checkProgram, showDefinitionType } from "../../src/types/infer.js";
import { INT } from "../../src/types/types.js";
import { thrown } from "../helpers.js";

const ENGINES: readonly Engine[] = ["interp", "js"];

function load(text: string) {
  return loadProgram({ name: "rec.smooth", text });
}

/** The result of `fn` on JSON `args` in both engines (which must agree). */
function both(text: string, fn: string, args: readonly unknown[]): unknown {
  const p = load(text);
  const [a, b] = ENGINES.map((e) => p.runJson(fn, args, e));
  expect(b).toEqual(a);
  return a;
}

function typesOf(text: string): Record<string, string> {
  const checked = checkProgram([parseProgram({ name: "t.smooth", text })]);
  return Object.fromEntries(checked.defs.map((d) => [d.name, showDefinitionType(d).slice(d.name.length + 3)]));
}

describe("syntax", () => {
  it("`rec` and `and` are keywords: `let rec f = ...` defines f, not a function named rec", () => {
    const [def] = parseProgram({ name: "t", text: "let rec pow = fun x -> x" }).defs;
    expect(def).toMatchObject({ name: "pow", rec: "rec" });
    expect(thrown(() => parseProgram({ name: "t", text: "let rec = 1" })).headline).toMatch(
      /syntax error: unexpected `=`/,
    );
    expect(thrown(() => parseProgram({ name: "t", text: "let f = fun and -> and" })).kind).toBe("syntax");
  });

  it("a group prints as `let rec ... and ...` and parses back to the same tree", () => {
    const text = "let rec f = fun x -> g x\nand g = fun y -> if y > 0. then f (y - 1.) else y\nlet h = fun x -> f x\n";
    const program = parseProgram({ name: "t", text });
    expect(program.defs.map((d) => d.rec)).toEqual(["rec", "and", undefined]);
    const again = parseProgram({ name: "t", text: printProgram(program) });
    expect(printProgram(again)).toBe(printProgram(program));
  });

  it("the right-hand side of `let rec` must be a function", () => {
    const e = thrown(() => parseProgram({ name: "t", text: "let main = fun y -> let rec x = y + 1. in x" }));
    expect(e.headline).toBe("t:1:33: syntax error: `let rec` defines functions");
    expect(e.details.expected).toMatch(/let rec x/);
  });

  it("a tuple pattern or `_` cannot be a recursive function's name", () => {
    expect(thrown(() => parseProgram({ name: "t", text: "let f = fun y -> let rec (a, b) = y in a" })).kind).toBe(
      "syntax",
    );
    expect(thrown(() => parseProgram({ name: "t", text: "let rec _ = fun x -> x" })).details.expected).toBe(
      "the name of a recursive function",
    );
  });
});

describe("types", () => {
  it("are inferred as for any definition, and generalised afterwards at the top level", () => {
    const t = typesOf(
      "let rec len = fun v i -> if i = length v then 0 else 1 + len v (i + 1)\n" +
        "let rec first = fun v i -> if i = 0 then v[i] else first v (i - 1)\n" +
        "let use = fun (v: Vector) (w: Array<Index>) -> (first v 2, first w 1)",
    );
    expect(t.len).toBe("Num 'b => Array<'a> -> Card -> 'b");
    expect(t.first).toBe("Array<'a> -> Index -> 'a");
    expect(t.use).toBe("Vector -> Array<Index> -> Double * Index");
  });

  it("recursion is monomorphic: a function used at two types inside its own group is a type error", () => {
    const e = thrown(() => typesOf("let rec f = fun x -> if true then x else snd (f (x, x))"));
    expect(e.kind).toBe("type");
    expect(e.span).toBeDefined();
  });

  it("mutual recursion shares types between the functions of a group", () => {
    const t = typesOf("let rec f = fun x n -> if n = 0 then x else g x (n - 1)\nand g = fun y m -> f (y * 2.) m");
    // n is only compared with and decremented by literals: it stays a number of any type.
    expect(t.f).toBe("Num 'a => Double -> 'a -> Double");
    expect(t.g).toBe("Num 'a => Double -> 'a -> Double");
  });
});

describe("both engines", () => {
  const program = `
let rec pow (x: Double) (n: Index) = if n = 0 then 1. else x * pow x (n - 1)
let rec powBy (n: Index) (x: Double) = if n = 0 then 1. else x * powBy (n - 1) x
let rec isEven (n: Index) = if n = 0 then true else isOdd (n - 1)
and isOdd (n: Index) = if n = 0 then false else isEven (n - 1)
let sumRange = fun (v: Vector) ->
  let rec go lo hi = if hi - lo = 1 then v[lo] else (let mid = (lo + hi) / 2 in go lo mid + go mid hi)
  go 0 (length v)
let partial = fun (v: Vector) -> vectorMap v (powBy 3)
let asValue = fun (v: Vector) -> let f = pow in f v[0] 3
let deep = fun (n: Index) -> let rec f k = if k = 0 then 0. else 1. + f (k - 1) in f n
let loop = fun (n: Index) -> let rec f k acc = if k = 0 then acc else f (k - 1) (acc + 0.5) in f n 0.
let vectors = fun (n: Index) ->
  let rec f k = if k = 0 then build 3 (fun i -> double i) else vectorAdd (f (k - 1)) (vectorFill 3 1.)
  f n
let outOfRange = fun (v: Vector) -> let rec f i = if i < 0 then 0. else v[i] + f (i - 1) in f (length v)
let localHelpers = fun (v: Vector) (s: Double) ->
  let scale = fun x -> x * s
  let sq = fun x -> scale x * x
  let rec go i = if i = length v then 0. else sq v[i] + go (i + 1)
  go 0
`;

  it("run recursive, mutually recursive, local and partially applied functions alike", () => {
    expect(both(program, "pow", [1.5, 4])).toBe(1.5 ** 4);
    expect(both(program, "isOdd", [7])).toBe(true);
    expect(both(program, "sumRange", [[1, 2, 3, 4, 5, 6, 7]])).toBe(28);
    expect(both(program, "partial", [[1, 2, 3]])).toEqual([1, 8, 27]);
    expect(both(program, "asValue", [[3]])).toBe(27);
    expect(both(program, "vectors", [40])).toEqual([40, 41, 42]);
    // Local functions a recursive function uses are lowered again inside it (with what they capture).
    expect(both(program, "localHelpers", [[1, 2, 3], 2])).toBe(28);
  });

  it("report an index error inside a recursive function at its place, in both engines", () => {
    const p = load(program);
    for (const engine of ENGINES) {
      const e = thrown(() => p.runJson("outOfRange", [[1, 2]], engine));
      expect(e.headline).toBe("rec.smooth:16:73: index error: index 2 is out of range for an array of length 2");
    }
  });

  it("compiled code runs a non-tail recursion 10⁵ calls deep, and a tail recursion 10⁶ iterations long", () => {
    const p = load(program);
    expect(p.runJson("deep", [100_000], "js")).toBe(100_000);
    expect(p.runJson("vectors", [100_000], "js")).toEqual([100_000, 100_001, 100_002]);
    expect(p.runJson("loop", [1_000_000], "js")).toBe(500_000);
    // A self call in tail position is a loop in the generated code.
    expect(p.specialise("loop", [INT], "js").jsSource).toMatch(/continue \$tail;/);
  });

  it("compiled code stops a recursion that does not end at a documented depth, with a located error", () => {
    // deep (-1) counts down from -1 and never reaches its base case k = 0.
    const e = thrown(() => load(program).runJson("deep", [-1], "js"));
    expect(e.kind).toBe("recursion");
    expect(e.headline).toBe(
      `rec.smooth:11:71: recursion error: recursion deeper than ${MAX_CALL_DEPTH_COMPILED} pending calls`,
    );
    expect(e.message).toMatch(/SMOOTH_MAX_CALL_DEPTH sets the limit/);
  });

  it("compiled code called from deep inside other JavaScript still finishes (its calls move to the heap)", () => {
    const p = load(program);
    const f = p.specialise("deep", [INT], "js");
    const nest = (k: number): unknown => (k === 0 ? f.run([20_000]) : nest(k - 1));
    let depth = 1000;
    // As deep as the stack allows while still able to run the compiled code at all.
    for (;;) {
      try {
        expect(nest(depth)).toBe(20_000);
        depth *= 2;
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        break;
      }
    }
    expect(depth).toBeGreaterThan(1000);
  });

  it("the interpreter runs tail recursion without a limit and other recursion to a documented depth", () => {
    const p = load(program);
    expect(p.runJson("loop", [100_000], "interp")).toBe(50_000);
    expect(p.runJson("deep", [MAX_CALL_DEPTH - 100], "interp")).toBe(MAX_CALL_DEPTH - 100);
    const e = thrown(() => p.runJson("deep", [5000], "interp"));
    expect(e.kind).toBe("recursion");
    expect(e.headline).toMatch(
      /^rec\.smooth:11:71: recursion error: recursion deeper than (1000 calls|the interpreter's stack)/,
    );
    expect(e.message).not.toMatch(/RangeError/);
  });

  it("the optimised program prints its functions as a `let rec` group before the entry", () => {
    const text = printIr(load(program).specialise("sumRange", [{ k: "array", elem: { k: "double" } }]).optimised);
    expect(text).toMatch(/^let rec go \(lo: Index\) \(hi: Index\) \(v: Vector\) : Double =/);
    expect(text).toMatch(/\n\nlet sumRange \(v: Vector\) = go \(0: Index\) \(length v\) v$/);
  });
});

describe("located errors", () => {
  it("a function argument", () => {
    const e = thrown(() =>
      both(
        "let rec mapSum = fun (f: Double -> Double) (v: Vector) (i: Index) ->\n" +
          "  if i = length v then 0. else f v[i] + mapSum f v (i + 1)\n" +
          "let main = fun (v: Vector) -> mapSum (fun x -> x * x) v 0",
        "main",
        [[1, 2]],
      ),
    );
    expect(e.headline).toBe(
      "rec.smooth:1:22: unsupported error: a recursive function cannot take a function as an argument",
    );
  });

  it("a function result", () => {
    const e = thrown(() =>
      both(
        "let rec f = fun (n: Index) -> if n = 0 then (fun x -> x) else f (n - 1)\nlet main = fun x -> f 3 x",
        "main",
        [1],
      ),
    );
    expect(e.headline).toBe("rec.smooth:1:9: unsupported error: a recursive function cannot return a function");
  });

  it("a function parameter of an enclosing function (a local function defined by `let` is fine)", () => {
    const e = thrown(() =>
      both(
        "let apply = fun (f: Double -> Double) (v: Vector) ->\n" +
          "  let rec go i = if i = length v then 0. else f v[i] + go (i + 1)\n  go 0\n" +
          "let main = fun (v: Vector) -> apply (fun x -> x * x) v",
        "main",
        [[1, 2]],
      ),
    );
    expect(e.headline).toBe(
      "rec.smooth:2:47: unsupported error: a recursive function cannot use a function it is not given by name",
    );
  });
});
