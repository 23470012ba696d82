// Productions for Double, Index and Bool expressions: arithmetic, scalar functions, Index/Double mixing, reductions
// from the prelude, comparisons and lazy && / ||.

import type { ExprGen, Production } from "./expr.js";
import { arrayOf, BOOL, DOUBLE, INDEX, matrixOf, vectorOf } from "./types.js";

const DOUBLE_FUNCTIONS = ["sin", "cos", "tan", "log", "exp", "sqrt", "tanh", "abs", "floor"];
const COMPARISONS = ["<", ">", "<=", ">=", "=", "<>"];

export function doubleProductions(g: ExprGen, d: number): Production[] {
  const { rng, scope } = g;
  const D = () => g.expr(DOUBLE, d);
  const I = () => g.expr(INDEX, d);
  const op = () => rng.pick(["+", "-", "*", "/"]);
  const doubleVars = scope.pathsOf(DOUBLE);
  return [
    [3, () => `(${D()} ${op()} ${D()})`],
    [
      // An integer literal next to a Double variable adapts to Double.
      doubleVars.length > 0 ? 1 : 0,
      () => {
        const x = rng.pick(doubleVars).text;
        const k = String(rng.int(0, 5));
        return rng.chance(0.5) ? `(${x} ${op()} ${k})` : `(${k} ${op()} ${x})`;
      },
    ],
    [0.6, () => `(${D()} ** ${rng.chance(0.5) ? rng.pick(["2.", "0.5", "3.", "(-1.)"]) : D()})`],
    [0.6, () => `(-${D()})`],
    [1.5, () => `(${rng.pick(DOUBLE_FUNCTIONS)} ${D()})`],
    [0.6, () => `(${rng.pick(["max", "min"])} ${D()} ${D()})`],
    // Index meets Double: promoted in arithmetic, in an if, as an argument; or converted with `double`.
    [1.2, () => (rng.chance(0.5) ? `(${I()} ${op()} ${D()})` : `(${D()} ${op()} ${I()})`)],
    [0.6, () => `(double ${I()})`],
    [
      0.4,
      () =>
        rng.chance(0.5)
          ? `(if ${g.expr(BOOL, d)} then ${I()} else ${D()})`
          : `(if ${g.expr(BOOL, d)} then ${D()} else ${I()})`,
    ],
    [
      0.4,
      () => {
        const [x, body] = g.binding("x", DOUBLE, () => g.expr(DOUBLE, d));
        return `((fun (${x}: Double) -> ${body}) ${I()})`;
      },
    ],
    // Reductions of the prelude.
    [0.8, () => `(vectorSum ${g.expr(vectorOf(g.length()), d)})`],
    [
      0.5,
      () => {
        const n = g.length();
        return `(vectorDot ${g.expr(vectorOf(n), d)} ${g.expr(vectorOf(n), d)})`;
      },
    ],
    [0.4, () => `(vectorNorm ${g.expr(vectorOf(g.length()), d)})`],
    [0.4, () => `(vectorMax ${g.expr(vectorOf(g.length(1)), d)})`],
    [0.4, () => `(logsumexp ${g.expr(vectorOf(g.length(1)), d)})`],
    [
      0.3,
      () => {
        const n = g.length();
        return `(matrixTrace ${g.expr(matrixOf(n, n), d)})`;
      },
    ],
  ];
}

export function indexProductions(g: ExprGen, d: number): Production[] {
  const { rng } = g;
  const I = () => g.expr(INDEX, d);
  return [
    [3, () => `(${I()} ${rng.pick(["+", "-", "*"])} ${I()})`],
    // Division truncates toward zero; the divisor is kept away from 0 except now and then.
    [0.8, () => (rng.chance(0.85) ? `(${I()} / (max 1 ${I()}))` : `(${I()} / ${I()})`)],
    [0.4, () => `(${I()} ** ${rng.chance(0.7) ? String(rng.int(0, 3)) : I()})`],
    [0.5, () => `(-${I()})`],
    [0.4, () => `(abs ${I()})`],
    [0.5, () => `(${rng.pick(["max", "min"])} ${I()} ${I()})`],
    [
      1,
      () => {
        const s = g.someType(1);
        return `(length ${g.expr(s.k === "array" ? s : vectorOf(g.length()), d)})`;
      },
    ],
    [0.3, () => `(matrixRows ${g.expr(matrixOf(g.length(), g.length()), d)})`],
    [0.3, () => `(matrixCols ${g.expr(matrixOf(g.length(1), g.length()), d)})`],
    [0.4, () => `(vectorSum ${g.expr(arrayOf(INDEX, g.length()), d)})`],
  ];
}

export function boolProductions(g: ExprGen, d: number): Production[] {
  const { rng } = g;
  const B = () => g.expr(BOOL, d);
  const D = () => g.expr(DOUBLE, d);
  const I = () => g.expr(INDEX, d);
  const cmp = () => rng.pick(COMPARISONS);
  return [
    [2, () => `(${D()} ${cmp()} ${D()})`],
    [1.2, () => `(${I()} ${cmp()} ${I()})`],
    [0.8, () => (rng.chance(0.5) ? `(${I()} ${cmp()} ${D()})` : `(${D()} ${cmp()} ${I()})`)],
    [0.5, () => `(${B()} ${rng.pick(["=", "<>"])} ${B()})`],
    [1.2, () => `(${B()} ${rng.pick(["&&", "||"])} ${B()})`],
    [0.6, () => `(not ${B()})`],
    [
      // && guards a read that would be out of range: the right side must not run when the left is false.
      0.7,
      () => {
        const n = g.length();
        const array = g.expr(vectorOf(n), d);
        const j = I();
        const a = g.scope.fresh("a");
        const k = g.scope.fresh("j");
        const read = `((${a}[${k}]) ${cmp()} ${D()})`;
        const guarded = rng.chance(0.5)
          ? `(((${k} >= 0) && (${k} < (length ${a}))) && ${read})`
          : `(((${k} < 0) || (${k} >= (length ${a}))) || ${read})`;
        return `(let ${a}: Vector = ${array} in (let ${k}: Index = ${j} in ${guarded}))`;
      },
    ],
  ];
}
