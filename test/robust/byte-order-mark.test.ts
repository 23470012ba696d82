// A UTF-8 byte-order mark at the start of a file (some editors write one) is not part of the program: it is skipped
// wherever source text comes in — Smooth source, TypeScript, the command line's files and JSON arguments — and
// messages locate errors as if it were not there. (It used to be a syntax error.)

import { describe, expect, test } from "vitest";
import { grad, smoothModule, typescriptModule } from "../../src/index.js";
import { loadModule } from "../../src/node.js";
import { thrown } from "../helpers.js";
import { file, smooth as smoothCli } from "../cli/run.js";

const BOM = "\uFEFF";

describe("a byte-order mark at the start", () => {
  test("of Smooth source is skipped; errors keep their columns", () => {
    const m = smoothModule(`${BOM}let f = fun (x: Double) -> x * x`);
    expect(m.f!(3)).toBe(9);
    expect(grad(m.f!)(3)).toBe(6);
    expect(thrown(() => smoothModule(`${BOM}let f = fun x -> x * y`)).message).toMatch(/^<smooth>:1:22: name error/);
  });

  test("of a file loaded with loadModule is skipped", () => {
    const path = file("bom-module.smooth", `${BOM}let g = fun (x: Double) -> 2. * x`);
    expect(loadModule(path).g!(4)).toBe(8);
  });

  test("of TypeScript source is skipped; errors keep their columns", () => {
    expect(typescriptModule(`${BOM}export function f(x: number) { return x * 2; }`).f!(3)).toBe(6);
    const e = thrown(() => typescriptModule(`${BOM}export function f(x: number) { return x * y; }`).f!(3));
    expect(e.message).toMatch(/^<typescript>:1:43: /);
    expect(e.message).not.toContain(BOM);
  });

  test("of the command line's files and JSON arguments is skipped", () => {
    const source = file("bom.smooth", `${BOM}let f = fun (x: Double) -> x * 2.`);
    const args = file("bom.json", `${BOM}[4]`);
    expect(smoothCli("run", source, "--fn", "f", "--args-file", args)).toMatchObject({ code: 0, stdout: "8\n" });
    const ts = file("bom.ts", `${BOM}export function f(x: number) { return x * x; }`);
    expect(smoothCli("grad", ts, "--fn", "f", "--args-file", args)).toMatchObject({
      code: 0,
      stdout: '{"value":16,"gradient":[8]}\n',
    });
  });

  test("in the middle of a file is still an error, located", () => {
    const e = thrown(() => smoothModule(`let f = 1.\n${BOM}let g = 2.`));
    expect(e.message).toMatch(/^<smooth>:2:1: /);
  });
});
