// Which of a function's names its closure's read can serve every call (src/tsfront/constant-names.ts): a parameter
// that shadows a variable of the module is never read from the closure, whatever that variable is.
import { describe, expect, it } from "vitest";
import { constantNames } from "../../src/tsfront/constant-names.js";

const SCRIPT = [
  "const X = [2];",
  "let w = [1]; w = [3];",
  "let k = 1; k++;",
  "const f = (w) => w[0] * X[0];",
  "const g = (v) => v[0] * k * X[0];",
  "",
].join("\n");
const source = (): string => SCRIPT;
const namesOf = (id: string, line: number, text: string, names: string[]): string[] =>
  [...constantNames(id, line, SCRIPT.split("\n")[line]!.indexOf(text), text, names, source)].sort();

describe("constant names", () => {
  it("a parameter shadowing an assigned module variable, and a const, never change", () => {
    expect(namesOf("script-a", 3, "(w) => w[0] * X[0]", ["w", "X"])).toEqual(["X", "w"]);
  });

  it("an assigned module variable the function reads changes", () => {
    expect(namesOf("script-b", 4, "(v) => v[0] * k * X[0]", ["v", "k", "X"])).toEqual(["X", "v"]);
  });
});
