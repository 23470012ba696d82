// Every scalar primitive through forward mode, at seeded random points: the first derivative against central finite
// differences of the function and against the derivative written by hand; the second derivative, as jvp of jvp and
// as diff of diff, against finite differences of the first and against the second derivative written by hand.
// Each program runs in the interpreter (after forward-ad) and compiled (after the standard pipeline), which agree.

import { describe, expect, test } from "vitest";
import { PRIM_NAMES } from "../../src/prims/names.js";
import { PRIMS } from "../../src/prims/table.js";
import { centralDifference, expectClose, load, runBoth, seededRandom, uniform, type Json } from "./harness.js";

const POINTS = 12;
const TOL = 1e-6;
/** Step of the central differences, relative to the point. */
const step = (x: number) => 1e-6 * Math.max(1, Math.abs(x));

interface Unary {
  readonly name: string;
  readonly body: string; // in terms of x
  readonly domain: readonly [number, number];
  /** Points to avoid (kinks and jumps), with a margin. */
  readonly avoid?: (x: number) => boolean;
  readonly d1: (x: number) => number;
  readonly d2: (x: number) => number;
}

const UNARY: readonly Unary[] = [
  { name: "sin", body: "sin x", domain: [-3, 3], d1: Math.cos, d2: (x) => -Math.sin(x) },
  { name: "cos", body: "cos x", domain: [-3, 3], d1: (x) => -Math.sin(x), d2: (x) => -Math.cos(x) },
  {
    name: "tan",
    body: "tan x",
    domain: [-1.2, 1.2],
    d1: (x) => 1 + Math.tan(x) ** 2,
    d2: (x) => 2 * Math.tan(x) * (1 + Math.tan(x) ** 2),
  },
  { name: "log", body: "log x", domain: [0.2, 5], d1: (x) => 1 / x, d2: (x) => -1 / (x * x) },
  { name: "exp", body: "exp x", domain: [-3, 3], d1: Math.exp, d2: Math.exp },
  { name: "sqrt", body: "sqrt x", domain: [0.2, 5], d1: (x) => 0.5 / Math.sqrt(x), d2: (x) => -0.25 * x ** -1.5 },
  {
    name: "tanh",
    body: "tanh x",
    domain: [-3, 3],
    d1: (x) => 1 - Math.tanh(x) ** 2,
    d2: (x) => -2 * Math.tanh(x) * (1 - Math.tanh(x) ** 2),
  },
  {
    name: "atan",
    body: "atan x",
    domain: [-3, 3],
    d1: (x) => 1 / (1 + x * x),
    d2: (x) => (-2 * x) / (1 + x * x) ** 2,
  },
  {
    name: "asin",
    body: "asin x",
    domain: [-0.9, 0.9],
    d1: (x) => 1 / Math.sqrt(1 - x * x),
    d2: (x) => x / (1 - x * x) ** 1.5,
  },
  {
    name: "acos",
    body: "acos x",
    domain: [-0.9, 0.9],
    d1: (x) => -1 / Math.sqrt(1 - x * x),
    d2: (x) => -x / (1 - x * x) ** 1.5,
  },
  { name: "abs", body: "abs x", domain: [-3, 3], avoid: (x) => Math.abs(x) < 0.05, d1: Math.sign, d2: () => 0 },
  {
    name: "floor",
    body: "floor x",
    domain: [-3, 3],
    avoid: (x) => Math.abs(x - Math.round(x)) < 0.05,
    d1: () => 0,
    d2: () => 0,
  },
  { name: "neg", body: "-x", domain: [-3, 3], d1: () => -1, d2: () => 0 },
];

/** Random points of a domain, away from the points to avoid. */
function points(
  seed: number,
  [lo, hi]: readonly [number, number],
  avoid: (x: number) => boolean = () => false,
): number[] {
  const rnd = seededRandom(seed);
  const out: number[] = [];
  while (out.length < POINTS) {
    const x = uniform(rnd, lo, hi);
    if (!avoid(x)) out.push(x);
  }
  return out;
}

describe.each(UNARY)("$name", (u) => {
  const p = load(`
let f = fun (x: Double) -> ${u.body}
let d1 = fun (x: Double) -> snd (diff f x)
let d2 = fun (x: Double) -> snd (diff (fun z -> snd (diff f z)) x)
let jj = fun (x: Double) -> jvp (jvp f) ((x, 1.), (1., 0.))
`);
  const f = (x: Json) => p.runJson("f", [x]);
  const d1 = (x: Json) => runBoth(p, "d1", [x], { reread: false });
  const xs = points(u.name.length * 7919, u.domain, u.avoid);

  test("first order: finite differences and the hand-written derivative", () => {
    for (const x of xs) {
      const ad = runBoth(p, "d1", [x]);
      expectClose(ad, centralDifference(f, x, 1, step(x)), TOL, `${u.name}' at ${x} vs FD`);
      expectClose(ad, u.d1(x), 1e-12, `${u.name}' at ${x}`);
    }
  });

  test("second order: diff of diff and jvp of jvp", () => {
    for (const x of xs) {
      const dd = runBoth(p, "d2", [x]);
      expectClose(dd, centralDifference(d1, x, 1, step(x)), TOL, `${u.name}'' at ${x} vs FD of the first derivative`);
      expectClose(dd, u.d2(x), 1e-10, `${u.name}'' at ${x}`);
      const [[y, dy], [dy2, ddy]] = runBoth(p, "jj", [x]) as [number[], number[]];
      expectClose(
        [y, dy, dy2, ddy],
        [p.runJson("f", [x]), u.d1(x), u.d1(x), u.d2(x)],
        1e-10,
        `jvp (jvp ${u.name}) at ${x}`,
      );
    }
  });
});

interface Binary {
  readonly name: string;
  readonly body: string; // in terms of x and y
  readonly x: readonly [number, number];
  readonly y: readonly [number, number];
  readonly avoid?: (x: number, y: number) => boolean;
  /** Directional derivative along (u, v). */
  readonly d1: (x: number, y: number, u: number, v: number) => number;
  /** Second directional derivative along (u, v): [u v] H [u v]ᵀ. */
  readonly d2: (x: number, y: number, u: number, v: number) => number;
}

const BINARY: readonly Binary[] = [
  { name: "add", body: "x + y", x: [-3, 3], y: [-3, 3], d1: (_x, _y, u, v) => u + v, d2: () => 0 },
  { name: "sub", body: "x - y", x: [-3, 3], y: [-3, 3], d1: (_x, _y, u, v) => u - v, d2: () => 0 },
  {
    name: "mul",
    body: "x * y",
    x: [-3, 3],
    y: [-3, 3],
    d1: (x, y, u, v) => y * u + x * v,
    d2: (_x, _y, u, v) => 2 * u * v,
  },
  {
    name: "div",
    body: "x / y",
    x: [-3, 3],
    y: [0.5, 3],
    d1: (x, y, u, v) => u / y - (x * v) / (y * y),
    d2: (x, y, u, v) => (-2 * u * v) / (y * y) + (2 * x * v * v) / y ** 3,
  },
  {
    name: "pow",
    body: "x ** y",
    x: [0.2, 3],
    y: [-2, 2],
    d1: (x, y, u, v) => y * x ** (y - 1) * u + Math.log(x) * x ** y * v,
    d2: (x, y, u, v) =>
      y * (y - 1) * x ** (y - 2) * u * u +
      2 * x ** (y - 1) * (1 + y * Math.log(x)) * u * v +
      x ** y * Math.log(x) ** 2 * v * v,
  },
  {
    name: "max",
    body: "max x y",
    x: [-3, 3],
    y: [-3, 3],
    avoid: (x, y) => Math.abs(x - y) < 0.05,
    d1: (x, y, u, v) => (x >= y ? u : v),
    d2: () => 0,
  },
  {
    name: "min",
    body: "min x y",
    x: [-3, 3],
    y: [-3, 3],
    avoid: (x, y) => Math.abs(x - y) < 0.05,
    d1: (x, y, u, v) => (x <= y ? u : v),
    d2: () => 0,
  },
];

describe.each(BINARY)("$name", (op) => {
  const p = load(`
let f = fun (x: Double) (y: Double) -> ${op.body}
let d1 = fun (x: Double) (y: Double) (u: Double) (v: Double) -> snd (jvp f (x, u) (y, v))
let jj = fun (x: Double) (y: Double) (u: Double) (v: Double) -> jvp (jvp f) ((x, u), (u, 0.)) ((y, v), (v, 0.))
`);
  const rnd = seededRandom(op.name.length * 104729);
  const cases: [number, number, number, number][] = [];
  while (cases.length < POINTS) {
    const x = uniform(rnd, ...op.x);
    const y = uniform(rnd, ...op.y);
    if (!op.avoid?.(x, y)) cases.push([x, y, uniform(rnd, -1, 1), uniform(rnd, -1, 1)]);
  }
  const f = (xy: Json) => p.runJson("f", xy as number[]);
  const d1 = (xy: Json, u: number, v: number) => runBoth(p, "d1", [...(xy as number[]), u, v], { reread: false });

  test("first order along a random direction", () => {
    for (const [x, y, u, v] of cases) {
      const ad = runBoth(p, "d1", [x, y, u, v]);
      expectClose(
        ad,
        centralDifference(f, [x, y], [u, v], step(Math.max(Math.abs(x), Math.abs(y)))),
        TOL,
        `${op.name} at ${[x, y]}`,
      );
      expectClose(ad, op.d1(x, y, u, v), 1e-12, `${op.name} at ${[x, y]} by hand`);
    }
  });

  test("second order along a random direction (jvp of jvp)", () => {
    for (const [x, y, u, v] of cases) {
      const [[value, t1], [t2, tt]] = runBoth(p, "jj", [x, y, u, v]) as [number[], number[]];
      const fd = centralDifference((xy) => d1(xy, u, v), [x, y], [u, v], step(Math.max(Math.abs(x), Math.abs(y))));
      expectClose(tt, fd, TOL, `${op.name} second order at ${[x, y]} vs FD`);
      expectClose(
        [value, t1, t2, tt],
        [f([x, y]), op.d1(x, y, u, v), op.d1(x, y, u, v), op.d2(x, y, u, v)],
        1e-10,
        `${op.name} second order`,
      );
    }
  });
});

describe("Index inside a derivative", () => {
  const p = load(`
let f = fun (x: Double) (n: Index) -> x ** double (n * n + 1) + sin (double n) * x
let d1 = fun (x: Double) (n: Index) -> snd (diff (fun z -> f z n) x)
let d2 = fun (x: Double) (n: Index) -> snd (diff (fun z -> snd (diff (fun w -> f w n) z)) x)
`);
  test("toDouble and Index arithmetic carry no tangent", () => {
    for (const [x, n] of [
      [0.7, 1],
      [-1.3, 2],
      [1.1, 0],
    ] as const) {
      const k = n * n + 1;
      expectClose(runBoth(p, "d1", [x, n]), k * x ** (k - 1) + Math.sin(n), 1e-12, `at ${[x, n]}`);
      expectClose(runBoth(p, "d2", [x, n]), k * (k - 1) * x ** (k - 2), 1e-12, `second, at ${[x, n]}`);
    }
  });
});

describe("pow with a constant exponent", () => {
  const p = load(`
let square = fun (x: Double) -> snd (diff (fun y -> y ** 2.) x)
let byExponent = fun (x: Double) (e: Double) -> snd (diff (fun y -> y ** e) x)
let zeroTangent = fun (x: Double) (e: Double) -> jvp (fun a b -> a ** b) (x, 1.) (e, 0.)
let inExponent = fun (x: Double) (e: Double) -> snd (diff (fun b -> x ** b) e)
`);
  test("a negative base gives a finite derivative whenever the exponent's tangent is zero", () => {
    expect(runBoth(p, "square", [-1.5])).toBe(-3);
    expectClose(runBoth(p, "byExponent", [-1.5, 3]), 3 * 2.25, 1e-12, "y ** e");
    expectClose(runBoth(p, "zeroTangent", [-1.5, 2]), [2.25, -3], 1e-12, "a runtime zero tangent");
  });
  test("the exponent's derivative is log x * x ** e", () => {
    expectClose(runBoth(p, "inExponent", [2, 3]), Math.log(2) * 8, 1e-12, "d/de");
    expect(runBoth(p, "inExponent", [-2, 3])).toBe("NaN");
  });
});

describe("the derivative rules in the primitive table", () => {
  test("each rule fits its primitive", () => {
    for (const name of PRIM_NAMES) {
      const rule = PRIMS[name].derivative;
      if (rule.kind === "partials") expect(rule.partials.length, name).toBe(PRIMS[name].arity);
      if (rule.kind === "select") expect(PRIMS[name].arity, name).toBe(2);
    }
    const kinds = Object.fromEntries(PRIM_NAMES.map((n) => [n, PRIMS[n].derivative.kind]));
    expect(kinds).toMatchObject({
      lt: "no-tangent",
      and: "no-tangent",
      get: "structural",
      length: "structural",
      floor: "zero-tangent",
      toDouble: "zero-tangent",
      max: "select",
    });
  });
});
