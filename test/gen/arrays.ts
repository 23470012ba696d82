// Productions for arrays: build, the prelude's constructors, maps (with lambdas, local functions, builtins and
// operator sections), vector and matrix algebra, zips and slices. Every production makes exactly the static length
// the type asks for.

import type { ExprGen, Production } from "./expr.js";
import { indexLiteral } from "./expr.js";
import { annotation, arrayOf, DOUBLE, INDEX, matrixOf, sameType, vectorOf, type GenType } from "./types.js";

type ArrayType = GenType & { k: "array" };

// Builtins passed as function values to vectorMap.
const DOUBLE_FUNCTIONS = ["sin", "cos", "exp", "tanh", "abs", "floor", "sqrt", "log"];

export function arrayProductions(g: ExprGen, t: ArrayType, d: number): Production[] {
  const { rng, scope } = g;
  const { elem, n } = t;
  const E = () => g.expr(elem, d);
  const A = (e: GenType, len = n) => g.expr(arrayOf(e, len), d);
  const I = () => g.expr(INDEX, d);
  const functions = scope.functions().filter((f) => sameType(f.type.result, elem));
  const out: Production[] = [
    [
      3,
      () => {
        const size = g.size(n);
        const [i, body] = g.binding("i", INDEX, E, n);
        return `(build ${size} (fun (${i}: Index) -> ${body}))`;
      },
    ],
    [0.5, () => `(vectorFill ${g.size(n)} ${E()})`],
    [
      1.2,
      () => {
        const s = g.someType(1);
        const source = A(s);
        const [x, body] = g.binding("x", s, E);
        return `(${rng.pick(["vectorMap", "matrixMap"])} ${source} (fun (${x}: ${annotation(s)}) -> ${body}))`;
      },
    ],
    [
      0.7,
      () => {
        const s = g.someType(0);
        const u = g.someType(1);
        const first = A(s);
        const second = A(u);
        const x = scope.fresh("x");
        const y = scope.fresh("y");
        const body = scope.withAll(
          [
            { kind: "value", name: x, type: s },
            { kind: "value", name: y, type: u },
          ],
          E,
        );
        const fn = `(fun (${x}: ${annotation(s)}) (${y}: ${annotation(u)}) -> ${body})`;
        return `(${rng.pick(["vectorMap2", "matrixMap2"])} ${first} ${second} ${fn})`;
      },
    ],
    [
      functions.length > 0 ? 1.2 : 0,
      () => {
        const f = rng.pick(functions);
        return `(vectorMap ${A(f.type.param)} ${f.name})`;
      },
    ],
  ];

  if (elem.k === "double") {
    const V = (len = n) => g.expr(vectorOf(len), d);
    out.push(
      [0.4, () => `(vectorZeros ${g.size(n)})`],
      [0.4, () => `(vectorHot ${g.size(n)} ${I()})`],
      [0.8, () => `(vectorAdd ${V()} ${V()})`],
      [0.5, () => `(vectorEMul ${V()} ${V()})`],
      [0.6, () => `(vectorSMul ${V()} ${g.expr(DOUBLE, d)})`],
      [0.6, () => `(vectorMap ${V()} ${rng.pick(DOUBLE_FUNCTIONS)})`],
      [0.3, () => `(vectorMap ${A(INDEX)} double)`],
      [0.5, () => `(vectorMap2 ${V()} ${V()} (${rng.pick(["+", "-", "*", "/", "**"])}))`],
      [
        0.6,
        () => {
          const extra = rng.int(0, 2);
          const start = rng.int(0, extra);
          return `(vectorSlice ${V(n + extra)} ${start} ${indexLiteral(start + n - 1)})`;
        },
      ],
      [
        0.6,
        () => {
          // A matrix-vector product, row by row.
          const k = g.length();
          const m = g.expr(matrixOf(n, k), d);
          const r = scope.fresh("r");
          const other = scope.with({ kind: "value", name: r, type: vectorOf(k) }, () => V(k));
          return `(matrixMap ${m} (fun (${r}: Vector) -> (vectorDot ${r} ${other})))`;
        },
      ],
    );
  }
  if (elem.k === "index") {
    out.push(
      [0.8, () => `(vectorRange ${g.size(n)})`],
      [0.5, () => `(vectorMap2 ${A(INDEX)} ${A(INDEX)} (${rng.pick(["+", "-", "*"])}))`],
    );
  }
  if (elem.k === "bool") {
    const cmp = () => rng.pick(["<", ">", "<=", ">=", "=", "<>"]);
    out.push(
      [0.8, () => `(vectorMap2 ${A(DOUBLE)} ${A(DOUBLE)} (${cmp()}))`],
      [0.4, () => `(vectorMap2 ${A(INDEX)} ${A(INDEX)} (${cmp()}))`],
      [0.4, () => `(vectorMap2 ${A(elem)} ${A(elem)} (${rng.pick(["&&", "||"])}))`],
    );
  }
  if (elem.k === "pair" && elem.fst.k === "double" && elem.snd.k === "double") {
    out.push([1, () => `(vectorZip ${A(DOUBLE)} ${A(DOUBLE)})`]);
  }
  if (elem.k === "array" && elem.elem.k === "pair" && elem.elem.fst.k === "double" && elem.elem.snd.k === "double") {
    out.push([1, () => `(matrixZip ${g.expr(matrixOf(n, elem.n), d)} ${g.expr(matrixOf(n, elem.n), d)})`]);
  }
  if (elem.k === "array" && elem.elem.k === "double") {
    const c = elem.n;
    const M = (rows: number, cols: number) => g.expr(matrixOf(rows, cols), d);
    const V = (len: number) => g.expr(vectorOf(len), d);
    out.push(
      [0.4, () => `(matrixZeros ${g.size(n)} ${g.size(c)})`],
      [0.4, () => `(matrixOnes ${g.size(n)} ${g.size(c)})`],
      [n === c ? 0.4 : 0, () => `(matrixEye ${g.size(n)})`],
      [0.3, () => `(matrixHot ${g.size(n)} ${g.size(c)} ${I()} ${I()})`],
      [0.6, () => `(matrixAdd ${M(n, c)} ${M(n, c)})`],
      // The transpose reads row 0 of its argument (matrixCols), which must therefore have a row.
      [c >= 1 ? 0.6 : 0, () => `(matrixTranspose ${M(c, n)})`],
      [
        0.6,
        () => {
          const k = g.length(1);
          return `(${rng.pick(["matrixMul", "matrixMult"])} ${M(n, k)} ${M(k, c)})`;
        },
      ],
      [0.4, () => `(vectorOutProd ${V(n)} ${V(c)})`],
      [n === 1 ? 0.5 : 0, () => `(vectorToMatrix ${V(c)})`],
      [0.4, () => `(matrixMap2 ${M(n, c)} ${M(n, c)} ${rng.pick(["vectorAdd", "vectorEMul"])})`],
    );
  }
  return out;
}
