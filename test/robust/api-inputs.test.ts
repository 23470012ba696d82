// Wrong values at the library's boundary (src/index.ts, src/node.ts): each row is a call with one wrong input and the
// one SmoothError it must give — its kind and its message — never a TypeError from inside, and never a silent
// success (a misspelt option ignored, a string read as NaN).

import { describe, expect, test } from "vitest";
import {
  compilations,
  compile,
  customJvp,
  emitModule,
  grad,
  hessian,
  inspect,
  jacobian,
  jvp,
  linearize,
  NDArray,
  ndarray,
  sin,
  smooth,
  smoothModule,
  sum,
  treeMap,
  treeUnflatten,
  typescriptModule,
  valueAndGrad,
  vjp,
  vmap,
  type ErrorKind,
  type Tensor,
} from "../../src/index.js";
import { loadModule } from "../../src/node.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";

const m = smooth`
let total = fun (v: Vector) -> vectorSum v
let square = fun (x: Double) -> x * x
let twice = fun (v: Vector) -> build (length v) (fun i -> v[i] * 2.)
let toDouble = fun (n: Index) -> double n
`;
const total = m.total!;
const square = m.square!;
const twice = m.twice!;
const toDouble = m.toDouble!;

/** A typed array whose buffer was transferred away (as to a worker). */
function detached<T extends ArrayBufferView>(a: T): T {
  structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
  return a;
}

// Calls that TypeScript would reject: the table gives them as a JavaScript caller would.
const any = (x: unknown): any => x;

type Row = readonly [what: string, call: () => unknown, kind: ErrorKind, message: RegExp];

const ROWS: readonly Row[] = [
  // Source text and modules.
  [
    "smooth called, not as a tag",
    () => any(smooth)("let f = 1."),
    "argument",
    /^argument error: `smooth` is a template tag/,
  ],
  ["smooth(null)", () => any(smooth)(null), "argument", /`smooth` is a template tag/],
  [
    "smoothModule(42)",
    () => smoothModule(any(42)),
    "argument",
    /^argument error: smoothModule: the source must be a string of Smooth source, not 42$/,
  ],
  [
    "smoothModule options not an object",
    () => smoothModule("let f = 1.", any(5)),
    "argument",
    /smoothModule: the options must be an object, not 5/,
  ],
  [
    "smoothModule unknown option",
    () => smoothModule("let f = 1.", any({ filename: "f" })),
    "argument",
    /smoothModule: unknown option `filename`/,
  ],
  [
    "smoothModule fileName not a string",
    () => smoothModule("let f = 1.", any({ fileName: 3 })),
    "argument",
    /smoothModule: fileName must be a string/,
  ],
  [
    "typescriptModule(3)",
    () => typescriptModule(any(3)),
    "argument",
    /typescriptModule: the source must be a string of TypeScript or JavaScript, not 3/,
  ],
  [
    "typescriptModule fileName",
    () => typescriptModule("export const f = (x: number) => x;", any({ fileName: 1 })),
    "argument",
    /typescriptModule: fileName must be a string/,
  ],
  ["loadModule(42)", () => loadModule(any(42)), "argument", /loadModule: the path must be a string/],
  [
    "loadModule of a missing file",
    () => loadModule("/nonexistent/model.smooth"),
    "argument",
    /^argument error: loadModule: cannot read \/nonexistent\/model.smooth: no such file$/,
  ],
  ["loadModule of a folder", () => loadModule("/tmp"), "argument", /loadModule: cannot read \/tmp: EISDIR/],
  // Options.
  [
    "compile options not an object",
    () => compile(square, any(5)),
    "argument",
    /^argument error: compile: the options must be an object, not 5\n/,
  ],
  [
    "compile misspelt option",
    () => compile(square, any({ borowResult: true })),
    "argument",
    /compile: unknown option `borowResult`[^]*expected: one of: backend, dtype, borrowResult, threads/,
  ],
  [
    "compile borrowResult not a flag",
    () => compile(square, any({ borrowResult: "yes" })),
    "argument",
    /compile: borrowResult must be true or false, not "yes"/,
  ],
  ["compile unknown backend", () => compile(square, any({ backend: "gpu" })), "argument", /unknown backend `gpu`/],
  ["grad options null", () => grad(square, any(null)), "argument", /grad: the options must be an object, not null/],
  ["grad misspelt argnums", () => grad(square, any({ argnum: 1 })), "argument", /grad: unknown option `argnum`/],
  [
    "grad hasAux not a flag",
    () => grad(square, any({ hasAux: "no" })),
    "argument",
    /grad: hasAux must be true or false, not "no"/,
  ],
  [
    "grad argnums a string",
    () => grad(square, any({ argnums: "0" })),
    "argument",
    /grad: argnums must be a number or an array of numbers/,
  ],
  [
    "valueAndGrad options a number",
    () => valueAndGrad(square, any(1)),
    "argument",
    /valueAndGrad: the options must be an object, not 1/,
  ],
  [
    "jacobian unknown mode",
    () => jacobian(twice, any({ mode: "sideways" })),
    "argument",
    /jacobian: unknown mode `sideways`/,
  ],
  [
    "jacobian unknown option",
    () => jacobian(twice, any({ hasAux: true })),
    "argument",
    /jacobian: unknown option `hasAux`/,
  ],
  [
    "hessian options a string",
    () => hessian(square, any("x")),
    "argument",
    /hessian: the options must be an object, not "x"/,
  ],
  ["vmap options a number", () => vmap(square, any(3)), "argument", /vmap: the options must be an object, not 3/],
  [
    "vmap inAxes a string",
    () => vmap(square, any({ inAxes: "0" })),
    "argument",
    /vmap: inAxes entry the string "0" is not an axis/,
  ],
  [
    "vmap outAxes a fraction",
    () => vmap(square, { outAxes: 0.5 }),
    "argument",
    /vmap: outAxes entry 0.5 is not an axis/,
  ],
  // Functions where functions are expected.
  ["grad(42)", () => grad(any(42)), "argument", /grad expects a function/],
  ["inspect(3)", () => inspect(any(3)), "argument", /^argument error: inspect expects a function/],
  ["emitModule(3)", () => emitModule(any(3)), "argument", /emitModule expects a function/],
  [
    "compilations(3)",
    () => compilations(any(3)),
    "argument",
    /compilations expects a function returned by the Smooth library/,
  ],
  [
    "treeMap(3, tree)",
    () => treeMap(any(3), { a: 1 }),
    "argument",
    /treeMap: the first argument must be a function, not 3/,
  ],
  [
    "customJvp(3, rule)",
    () => customJvp(any(3), (x: Tensor) => x),
    "staging",
    /`customJvp`: the function must be a function/,
  ],
  ["linearize(3)", () => linearize(any(3), 1), "argument", /linearize expects a function/],
  [
    "a detached tangent to linearize's map",
    () => linearize(twice, new Float64Array(2))[1](detached(new Float64Array(2))),
    "argument",
    /the tangent of parameter `v` of `twice` cannot be passed to Smooth: it is a Float64Array whose buffer was transferred/,
  ],
  // Trees and arrays.
  [
    "treeUnflatten of a number",
    () => treeUnflatten(any(3), [1]),
    "argument",
    /treeUnflatten: the structure is a number/,
  ],
  [
    "treeUnflatten of a structure without children",
    () => treeUnflatten(any({ kind: "object", keys: ["a"] }), [1]),
    "argument",
    /treeUnflatten: the structure has no list of children/,
  ],
  [
    "treeUnflatten, a child without a key",
    () => treeUnflatten(any({ kind: "object", keys: [], children: [{ kind: "leaf" }] }), [1]),
    "argument",
    /has no key \(a string\) for each child/,
  ],
  [
    "treeUnflatten, leaves not an array",
    () => treeUnflatten({ kind: "leaf" }, any("a")),
    "argument",
    /treeUnflatten: the leaves must be an array, not a string/,
  ],
  [
    "NDArray shape a number",
    () => new NDArray(new Float64Array(3), any(3)),
    "argument",
    /an NDArray's shape must be a non-empty list of sizes, got number/,
  ],
  ["NDArray shape of a fraction", () => ndarray(new Float64Array(3), [1.5, 2]), "argument", /got \[1.5, 2\]/],
  [
    "ndarray of a string element",
    () => ndarray(any([1, "a"]), [2]),
    "argument",
    /ndarray: element 1 of the data is not a number/,
  ],
  [
    "NDArray.at out of range",
    () => ndarray([1, 2], [2]).at(1.5),
    "index",
    /NDArray.at: index 1.5 is out of range for dimension 0 of size 2/,
  ],
  [
    "NDArray.at with too many indexes",
    () => ndarray([1, 2], [2]).at(0, 0),
    "index",
    /NDArray.at needs 1 indexes, got 2/,
  ],
  [
    "NDArray over a detached buffer",
    () => ndarray(detached(new Float64Array(2)), [2]),
    "argument",
    /an NDArray's data must not be a transferred \(detached\) buffer/,
  ],
  // Arguments of compiled functions.
  [
    "a detached Float64Array",
    () => total(detached(new Float64Array([1, 2]))),
    "argument",
    /parameter `v` of `total` cannot be passed to Smooth: it is a Float64Array whose buffer was transferred \(detached\)/,
  ],
  [
    "a detached Float32Array",
    () => total(detached(new Float32Array([1, 2]))),
    "argument",
    /it is a Float32Array whose buffer was transferred/,
  ],
  [
    "a detached Int32Array",
    () => toDouble(detached(new Int32Array(1))),
    "argument",
    /it is an Int32Array whose buffer was transferred/,
  ],
  [
    "a detached array to grad",
    () => grad(total)(detached(new Float64Array([1, 2]))),
    "argument",
    /parameter `v` of `total` cannot be passed[^]*detached/,
  ],
  [
    "a detached array to a staged function",
    () => compile((v: Tensor) => sum(v))(detached(new Float64Array(2))),
    "argument",
    /argument 0 of a TypeScript function cannot be passed to Smooth: it is a Float64Array whose buffer was transferred/,
  ],
  [
    "a detached row",
    () => compile((v: Tensor) => sum(v))([new Float64Array(2), detached(new Float64Array(2))]),
    "argument",
    /at \[1\] cannot be passed to Smooth: it is a Float64Array whose buffer was transferred/,
  ],
  [
    "rows all detached",
    () => compile((v: Tensor) => sum(v))([detached(new Float64Array(2)), detached(new Float64Array(2))]),
    "argument",
    /at \[0\] cannot be passed[^]*detached/,
  ],
  [
    "a detached NDArray",
    () => {
      const a = ndarray(new Float64Array(2), [2]);
      detached(a.data);
      return total(a);
    },
    "argument",
    /at .data cannot be passed to Smooth: it is a Float64Array whose buffer was transferred/,
  ],
  [
    "a detached tangent",
    () => jvp(square, [1], [detached(new Float64Array(1))]),
    "argument",
    /the tangent of parameter `x` of `square`[^]*detached/,
  ],
  [
    "a detached cotangent",
    () => vjp(twice, new Float64Array(2))[1](detached(new Float64Array(2))),
    "argument",
    /the cotangent given to the pullback of `twice`[^]*detached/,
  ],
  ["a bigint", () => square(any(1n)), "argument", /it is a bigint/],
  ["a string number", () => square(any("3")), "argument", /it is the string "3"/],
  ["a Uint8Array", () => total(any(new Uint8Array(2))), "argument", /it is a Uint8Array/],
  ["a fraction for an Index", () => toDouble(1.5), "argument", /must be an integer \(an Index\), got 1.5/],
  ["Infinity for an Index", () => toDouble(Infinity), "argument", /must be an integer \(an Index\), got Infinity/],
  ["one argument too many", () => square(any(1), any(2)), "argument", /`square` takes 1 argument, but 2 were given/],
  // Staged operations outside a trace.
  ["sin of a string", () => sin(any("a")), "staging", /^`sin`: its argument is the string "a", which cannot be staged/],
];

describe("the library's functions refuse wrong inputs with one SmoothError", () => {
  test.each(ROWS)("%s", (_what, call, kind, message) => {
    let error: unknown;
    try {
      call();
    } catch (e) {
      error = e;
    }
    expect(error, "no error was raised").toBeDefined();
    expect(error, String(error)).toBeInstanceOf(SmoothError);
    expect((error as SmoothError).kind).toBe(kind);
    expect((error as SmoothError).message).toMatch(message);
  });
});
