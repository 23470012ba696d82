// Shapes checked where the user calls (issue 15 item 4): the prelude's operations with shape preconditions check
// them, and an error inside a prelude function is reported at the user's call (the prelude line after), the same in
// both engines, for a run and for a derivative.

import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";

const ENGINES: readonly Engine[] = ["interp", "js"];
const p = loadProgram({
  name: "user.smooth",
  text: [
    "let dot = fun (u: Vector) (v: Vector) -> vectorDot u v",
    "let add = fun (u: Vector) (v: Vector) -> vectorAdd u v",
    "let mm = fun (a: Matrix) (b: Matrix) -> matrixMult a b",
    "let madd = fun (a: Matrix) (b: Matrix) -> matrixAdd a b",
    "let zip = fun (u: Vector) (v: Vector) -> vectorZip u v",
    "let fill = fun (n: Index) -> vectorSum (vectorFill n 1.)",
  ].join("\n"),
});

function error(f: () => unknown): SmoothError {
  try {
    f();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
  throw new Error("no error");
}

describe("shape preconditions of the prelude, reported at the user's call", () => {
  test.each<[string, unknown[], string]>([
    [
      "dot",
      [
        [1, 2],
        [1, 2, 3],
      ],
      "user.smooth:1:42",
    ],
    [
      "add",
      [
        [1, 2],
        [1, 2, 3],
      ],
      "user.smooth:2:42",
    ],
    [
      "mm",
      [
        [
          [1, 2],
          [3, 4],
        ],
        [[1], [2], [3]],
      ],
      "user.smooth:3:41",
    ],
    [
      "madd",
      [
        [[1, 2]],
        [
          [1, 2],
          [3, 4],
        ],
      ],
      "user.smooth:4:43",
    ],
    ["zip", [[1], [1, 2]], "user.smooth:5:42"],
  ])("%s %j", (name, args, at) => {
    const messages = ENGINES.map((engine) => {
      const e = error(() => p.runJson(name, args, engine));
      expect(e.kind).toBe("shape");
      expect(e.headline).toMatch(new RegExp(`^${at}: shape error: the sizes \\d and \\d differ`));
      expect(e.message).toContain("inside the prelude, at <prelude>:");
      return e.message;
    });
    expect(messages[1]).toBe(messages[0]);
  });

  test("a gradient of a mismatched call fails the same way (it used to go along)", () => {
    for (const engine of ENGINES) {
      const argTypes = p.argTypesFromJson("dot", [
        [1, 2],
        [1, 2, 3],
      ]);
      const grad = p.derivative("dot", argTypes, [0, 1], engine, undefined, "value-gradient");
      const e = error(() => grad.run([vec([1, 2]), vec([1, 2, 3])]));
      expect(e.headline).toMatch(/^user\.smooth:1:42: shape error: the sizes 2 and 3 differ/);
    }
  });

  test("a negative size inside the prelude is reported at the user's call in both engines", () => {
    for (const engine of ENGINES) {
      const e = error(() => p.runJson("fill", [-2], engine));
      expect(e.headline).toMatch(/^user\.smooth:6:\d+: shape error: (build size|ifold count) must not be negative/);
    }
  });
});

function vec(xs: number[]) {
  return { tag: "dense" as const, elemKind: "double" as const, shape: [xs.length], data: Float64Array.from(xs) };
}
