// Type inference: programs in, types (or located errors) out.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseProgram } from "../../src/syntax/parser.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { thrown } from "../helpers.js";
import { checkProgram, showDefinitionType } from "../../src/types/infer.js";

const preludeText = readFileSync(new URL("../../prelude/prelude.smooth", import.meta.url), "utf8");

/** The printed type of every definition of `text` (checked after the prelude unless told otherwise). */
function types(text: string, withPrelude = true): Record<string, string> {
  const programs = [parseProgram({ name: "test.smooth", text })];
  if (withPrelude) programs.unshift(parseProgram({ name: "<prelude>", text: preludeText }));
  const checked = checkProgram(programs);
  const out: Record<string, string> = {};
  for (const d of checked.defs.slice(checked.defs.length - programs.at(-1)!.defs.length))
    out[d.name] = showDefinitionType(d).slice(d.name.length + 3);
  return out;
}

const typeError = (text: string): SmoothError => thrown(() => types(text));

describe("the M̃ prelude (paper 000 Fig. 4) type-checks as the paper writes it", () => {
  const prelude = types(preludeText, false);
  it.each([
    ["vectorRange", "Card -> Array<Index>"],
    ["vectorFill", "Card -> 'a -> Array<'a>"],
    ["vectorZeros", "Card -> Vector"],
    ["vectorHot", "Card -> Index -> Vector"],
    ["vectorMap", "Array<'a> -> ('a -> 'b) -> Array<'b>"],
    ["vectorMap2", "Array<'a> -> Array<'b> -> ('a -> 'b -> 'c) -> Array<'c>"],
    ["vectorZip", "Array<'a> -> Array<'b> -> Array<'a * 'b>"],
    ["vectorAdd", "Num 'a => Array<'a> -> Array<'a> -> Array<'a>"],
    ["vectorEMul", "Num 'a => Array<'a> -> Array<'a> -> Array<'a>"],
    ["vectorSMul", "Num 'a => Array<'a> -> 'a -> Array<'a>"],
    ["vectorSum", "Num 'a => Array<'a> -> 'a"],
    ["vectorDot", "Num 'a => Array<'a> -> Array<'a> -> 'a"],
    ["vectorNorm", "Vector -> Double"],
    ["vectorSlice", "Array<'a> -> Index -> Index -> Array<'a>"],
    ["vectorMax", "Num 'a => Array<'a> -> 'a"],
    ["logsumexp", "Vector -> Double"],
    ["vectorToMatrix", "'a -> Array<'a>"],
    ["vectorOutProd", "Num 'a => Array<'a> -> Array<'a> -> Array<Array<'a>>"],
    ["matrixRows", "Array<'a> -> Card"],
    ["matrixCols", "Array<Array<'a>> -> Card"],
    ["matrixZeros", "Card -> Card -> Matrix"],
    ["matrixOnes", "Card -> Card -> Matrix"],
    ["matrixEye", "Card -> Matrix"],
    ["matrixHot", "Card -> Card -> Index -> Index -> Matrix"],
    ["matrixMap", "Array<'a> -> ('a -> 'b) -> Array<'b>"],
    ["matrixMap2", "Array<'a> -> Array<'b> -> ('a -> 'b -> 'c) -> Array<'c>"],
    ["matrixAdd", "Num 'a => Array<Array<'a>> -> Array<Array<'a>> -> Array<Array<'a>>"],
    ["matrixZip", "Array<Array<'a>> -> Array<Array<'b>> -> Array<Array<'a * 'b>>"],
    ["matrixTranspose", "Array<Array<'a>> -> Array<Array<'a>>"],
    ["matrixMul", "Num 'a => Array<Array<'a>> -> Array<Array<'a>> -> Array<Array<'a>>"],
    ["matrixMult", "Num 'a => Array<Array<'a>> -> Array<Array<'a>> -> Array<Array<'a>>"],
    ["matrixTrace", "Num 'a => Array<Array<'a>> -> 'a"],
    // Bulk operations and combinators (paper 003 Fig. 7, paper 001 §1).
    ["replicate", "Card -> 'a -> Array<'a>"],
    ["map2", "('a -> 'b -> 'c) -> Array<'a> -> Array<'b> -> Array<'c>"],
    ["reduce", "('a -> 'b -> 'a) -> 'a -> Array<'b> -> 'a"],
    ["sum", "Vector -> Double"],
    ["prod", "Vector -> Double"],
    ["gather", "Array<'a> -> Array<Index> -> Array<'a>"],
    ["transpose", "Array<Array<'a>> -> Array<Array<'a>>"],
    ["reshape", "Card -> Card -> Array<'a> -> Array<Array<'a>>"],
    ["scatter", "Card -> Array<Index> -> Vector -> Vector"],
    ["scanl", "('a -> 'b -> 'a) -> 'a -> Array<'b> -> Array<'a>"],
    ["scanr", "('a -> 'b -> 'b) -> 'b -> Array<'a> -> Array<'b>"],
  ])("%s : %s", (name, type) => {
    expect(prelude[name]).toBe(type);
  });
});

describe("numeric literals and Index/Double mixing need no ceremony", () => {
  it("literals adapt to Double or Index and default to Double", () => {
    expect(
      types(`
let half = fun x -> x * 0.5
let next = fun (i: Index) -> i + 1
let hot = fun n i -> build n (fun j -> if i = j then 1 else 0)
let two = 2
let poly = fun x -> x + 1`),
    ).toEqual({
      half: "Double -> Double",
      next: "Index -> Index",
      hot: "Card -> Index -> Vector",
      two: "Double",
      poly: "Num 'a => 'a -> 'a",
    });
  });

  it("an Index meeting a Double is promoted, wherever the Double comes from", () => {
    expect(
      types(`
let scale = fun v -> build (length v) (fun i -> v[i] * i)
let ramp = fun n -> build n (fun i -> i / n + 0.5)
let cmp = fun (x: Double) (i: Index) -> x < i
let branch = fun (c: Bool) (i: Index) -> if c then i else 2.5
let arg = fun (i: Index) -> sin i`),
    ).toEqual({
      scale: "Vector -> Vector",
      ramp: "Card -> Vector",
      cmp: "Double -> Index -> Bool",
      branch: "Bool -> Index -> Double",
      arg: "Index -> Double",
    });
  });

  it("index arithmetic stays Index", () => {
    expect(types(`let shift = fun v s -> build (length v - s) (fun i -> v[i + s])`)).toEqual({
      shift: "Array<'a> -> Index -> Array<'a>",
    });
  });

  it("the paper's Example 1 (layout form, upper-case parameter)", () => {
    expect(
      types(`
let f = fun u M v ->
  let um = vectorToMatrix u
  let vt = matrixTranspose (vectorToMatrix v)
  let m = matrixMult um (matrixMult M vt)
  m[0][0]`),
    ).toEqual({ f: "Num 'a => Array<'a> -> Array<Array<'a>> -> Array<'a> -> 'a" });
  });

  it("annotations, tuples and patterns", () => {
    expect(
      types(`
let swap = fun (p: Double * Index) -> (snd p, fst p)
let stats = fun (v: Vector) ->
  let (s, m) = ifold (fun acc i -> (fst acc + v[i], max (snd acc) v[i])) (0, v[0]) (length v)
  s / length v - m`),
    ).toEqual({ swap: "Double * Index -> Index * Double", stats: "Vector -> Double" });
  });
});

describe("type errors are located and say what was expected and found", () => {
  it("unknown name, with a suggestion", () => {
    const e = typeError("let f = fun v -> vectorSun v");
    expect(e.kind).toBe("name");
    expect(e.headline).toBe("test.smooth:1:18: name error: unknown name `vectorSun`");
    expect(e.message).toContain("did you mean `vectorSum`?");
    expect(e.message).toContain("                 ^^^^^^^^^");
  });

  it("an argument of the wrong type", () => {
    const e = typeError("let f = fun (v: Vector) -> sin v");
    expect(e.headline).toBe("test.smooth:1:32: type error: wrong argument type for `sin`");
    expect(e.message).toContain("expected: Double");
    expect(e.message).toContain("found:    Vector");
  });

  it("a Double used as an index", () => {
    const e = typeError("let f = fun (v: Vector) -> v[1.5]");
    expect(e.headline).toBe("test.smooth:1:30: type error: an array index must be an Index");
    expect(e.message).toContain("expected: Index");
    expect(e.message).toContain("found:    Double");
  });

  it("branches of different types", () => {
    const e = typeError("let f = fun (c: Bool) (v: Vector) -> if c then v else 1.");
    expect(e.headline).toBe("test.smooth:1:55: type error: the two branches of `if` have different types");
    expect(e.message).toContain("expected: Vector");
  });

  it("applying a non-function", () => {
    const e = typeError("let f = fun (x: Double) -> x 2.");
    expect(e.kind).toBe("type");
    expect(e.message).toContain("not a function");
  });

  it("arithmetic on a Bool", () => {
    const e = typeError("let f = fun (b: Bool) -> b + 1.");
    expect(e.headline).toBe("test.smooth:1:26: type error: `+` needs numbers");
    expect(e.message).toContain("found:    Bool");
  });

  it("a Double result where an Index is needed", () => {
    const e = typeError("let f = fun (v: Vector) (x: Double) -> v[2 * x]");
    expect(e.kind).toBe("type");
    expect(e.message).toContain("found:    Double");
  });

  it("an unknown type in an annotation", () => {
    const e = typeError("let f = fun (x: Real) -> x");
    expect(e.headline).toBe("test.smooth:1:17: name error: unknown type `Real`");
  });

  it("an infinite type", () => {
    const e = typeError("let f = fun x -> x x");
    expect(e.message).toContain("infinite type");
  });

  it("errors in a later definition point into the user's file, not the prelude", () => {
    const e = typeError("let ok = 1.\nlet bad = vectorSum 3.");
    expect(e.headline).toMatch(/^test\.smooth:2:/);
  });
});
