// A smoke test of reverse mode's asymptotics, without timing: in the compiled gradient of a loop that reads v[i],
// the adjoint of v is accumulated in place — the generated JavaScript copies no array (`$a.sliceF64(`, the arena's
// slice, or `.slice(`) inside a loop — so
// one sweep is O(n). Each program is checked at a small size in both engines (reverse = forward = finite
// differences), then its compiled gradient runs at n = 10^5 and is compared with the gradient computed here by hand.

import { describe, expect, test } from "vitest";
import { valueFromJson, valueToJson } from "../../src/runtime/json.js";
import { withMemoryBudget } from "../../src/runtime/memory-budget.js";
import { expectClose, load, Point, seededRandom } from "./harness.js";

/** The lines of generated JavaScript that copy an array (a slice) inside a `for`/`while` loop (tracked by braces). */
function slicesInLoops(js: string): string[] {
  const loops: boolean[] = [];
  const found: string[] = [];
  for (const line of js.split("\n")) {
    if (loops.some((x) => x) && /\.slice(F64|I32|U8)?\(/.test(line)) found.push(line.trim());
    for (let k = 0; k < line.length; k++) {
      if (line[k] === "{") loops.push(/^\s*(for|while|do)\b/.test(line.slice(0, k)));
      else if (line[k] === "}") loops.pop();
    }
  }
  return found;
}

const N = 100_000;
const near1 = (i: number) => 1 + 0.25 * Math.sin(i);

interface Case {
  readonly name: string;
  readonly source: string;
  /** The argument at size n. */
  readonly arg: (n: number) => unknown;
  /** The gradient, computed by hand. */
  readonly gradient: (arg: never) => unknown;
}

const CASES: readonly Case[] = [
  {
    // One branch passes the reverse loop's state on whole, the other updates a component: the update is still in
    // place (a whole use in one branch and a projection in the other are one use on each path).
    name: "a branch inside a reversed build",
    source:
      "let f = fun (v: Vector) -> vectorSum (build (length v) (fun i -> if v[0] > 100. then 0. else v[i] * v[i]))",
    arg: (n) => Array.from({ length: n }, (_, i) => Math.sin(i)),
    gradient: (v: number[]) => v.map((x) => 2 * x),
  },
  {
    name: "a loop reading v[i]",
    source: "let f = fun (v: Vector) -> ifold (fun s i -> s + sin v[i] * v[i]) 0. (length v)",
    arg: (n) => Array.from({ length: n }, (_, i) => Math.cos(i)),
    gradient: (v: number[]) => v.map((x) => Math.cos(x) * x + Math.sin(x)),
  },
  {
    // The state feeds back non-linearly, so the reverse loop reads the states from a tape (written in place).
    name: "a loop whose state is taped",
    source: "let f = fun (v: Vector) -> ifold (fun s i -> sin s + s * v[i]) 0.5 (length v)",
    arg: (n) => Array.from({ length: n }, (_, i) => 0.5 * Math.cos(i)),
    gradient: (v: number[]) => {
      const s = [0.5];
      v.forEach((x, i) => s.push(Math.sin(s[i]!) + s[i]! * x));
      const dv = new Array<number>(v.length);
      let ds = 1;
      for (let i = v.length - 1; i >= 0; i--) {
        dv[i] = s[i]! * ds;
        ds *= Math.cos(s[i]!) + v[i]!;
      }
      return dv;
    },
  },
  {
    name: "a loop reading elements of rows m[i][j]",
    source: "let f = fun (m: Matrix) -> ifold (fun s i -> s + m[i][0] * m[i][1]) 0. (length m)",
    arg: (n) => Array.from({ length: n }, (_, i) => [Math.sin(i), Math.cos(i)]),
    gradient: (m: number[][]) => m.map(([a, b]) => [b, a]),
  },
  {
    name: "prod",
    source: "let f = fun (v: Vector) -> prod v",
    arg: (n) => Array.from({ length: n }, (_, i) => near1(i) ** (1 / 64)),
    gradient: (v: number[]) => {
      // The product of the others, from prefix and suffix products (no division).
      const suffix = new Array<number>(v.length + 1).fill(1);
      for (let i = v.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! * v[i]!;
      let prefix = 1;
      return v.map((x, i) => {
        const g = prefix * suffix[i + 1]!;
        prefix *= x;
        return g;
      });
    },
  },
  {
    name: "the sum of scanl",
    source: "let f = fun (v: Vector) -> sum (scanl (fun s x -> s * x + sin s) 0.25 v)",
    arg: (n) => Array.from({ length: n }, (_, i) => 0.5 * Math.cos(i)),
    gradient: (v: number[]) => {
      // f = Σ s_k for s_0 = 0.25, s_{k+1} = s_k v_k + sin s_k.
      const s = [0.25];
      v.forEach((x, k) => s.push(s[k]! * x + Math.sin(s[k]!)));
      const dv = new Array<number>(v.length);
      let ds = 1; // the adjoint of s_n
      for (let k = v.length - 1; k >= 0; k--) {
        dv[k] = s[k]! * ds;
        ds = 1 + ds * (v[k]! + Math.cos(s[k]!));
      }
      return dv;
    },
  },
  {
    // The array state is updated in place; the reverse reads none of its values (a linear recurrence): nothing taped.
    name: "an in-place prefix recurrence a[i] <- a[i] + a[i-1] / 2",
    source: `let f = fun (v: Vector) ->
  let a = ifold (fun (a: Vector) (i: Index) -> if i = 0 then a else setAt a i (a[i] + a[i - 1] * 0.5)) v (length v)
  ifold (fun s i -> s + a[i] * a[i]) 0. (length a)`,
    arg: (n) => Array.from({ length: n }, (_, i) => Math.sin(i)),
    gradient: (v: number[]) => {
      const a = [...v];
      for (let i = 1; i < a.length; i++) a[i] = a[i]! + a[i - 1]! * 0.5;
      const da = a.map((x) => 2 * x);
      for (let i = a.length - 1; i >= 1; i--) da[i - 1] = da[i - 1]! + 0.5 * da[i]!;
      return da;
    },
  },
  {
    // The reverse reads the array (the comparison): the primal logs the two elements each swap overwrites, and the
    // reverse puts them back (./src/ad/reverse-undo.ts) instead of taping the whole array every iteration.
    name: "a bubble-sort pass (swaps, undone from logs)",
    source: `let f = fun (v: Vector) ->
  let a = ifold (fun (a: Vector) (i: Index) ->
    let x = a[i]
    let y = a[i + 1]
    if x > y then setAt (setAt a i y) (i + 1) x else a) v (length v - 1)
  ifold (fun s i -> s + a[i] * double (i + 1)) 0. (length a)`,
    arg: (n) => Array.from({ length: n }, (_, i) => Math.sin(i * 1.3)),
    gradient: (v: number[]) => {
      // The pass moves elements; the element that ends at position k has derivative k + 1.
      const from = v.map((_, i) => i);
      const a = [...v];
      for (let i = 0; i + 1 < a.length; i++)
        if (a[i]! > a[i + 1]!) {
          [a[i], a[i + 1]] = [a[i + 1]!, a[i]!];
          [from[i], from[i + 1]] = [from[i + 1]!, from[i]!];
        }
      const dv = new Array<number>(v.length);
      from.forEach((j, k) => (dv[j] = k + 1));
      return dv;
    },
  },
];

describe("the slice detector", () => {
  test("finds a copy inside a loop and ignores one outside", () => {
    const js = [
      "const a = b.slice(0, n);",
      "for (let i = 0; i < n; i++) {",
      "  if (x) {",
      "    const c = a.slice(0, n);",
      "    const d = $a.sliceF64(a, 0, n);",
      "  }",
      "}",
    ].join("\n");
    expect(slicesInLoops(js)).toEqual(["const c = a.slice(0, n);", "const d = $a.sliceF64(a, 0, n);"]);
  });
});

describe.each(CASES)("$name", (c) => {
  const p = load(c.source);

  test("small: reverse = forward = finite differences, in both engines", () => {
    new Point(p, "f", [c.arg(5)]).checkAll(seededRandom(c.name.length));
  });

  test(`the compiled gradient accumulates in place, and runs at n = ${N}`, () => {
    const arg = c.arg(N);
    const at = new Point(p, "f", [arg]);
    // The taped gradient, without the code a loop runs instead when its tapes pass the memory budget (which copies
    // a snapshot of the state per step by design: src/ad/reverse-checkpoint.ts).
    const compiled = withMemoryBudget(Infinity, () => at.specs("gradient").js);
    expect(slicesInLoops(compiled.jsSource ?? "")).toEqual([]);
    const values = [valueFromJson(arg, at.argTypes[0]!, "v")];
    const gradient = valueToJson(compiled.run(values), compiled.resultType);
    expectClose(gradient, c.gradient(arg as never), 1e-9, `${c.name} at n = ${N}`);
  });
});
