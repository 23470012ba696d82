// Checked by tsc (test/ts-types/transforms.test.ts, and `npm run typecheck`): the transforms' types follow the
// function's
// parameters. Each `@ts-expect-error` line must be an error, and every other line must not.

import {
  compile,
  grad,
  hessian,
  jacobian,
  jvp,
  linearize,
  smoothModule,
  valueAndGrad,
  vjp,
  vmap,
  type NDArray,
  type SparseMatrix,
} from "../../src/index.js";
import type { ModelDefinitions } from "./model.smooth.js";

type Params = { w: Float64Array; b: number };
declare const p: Params;
declare const x: Float64Array;
declare const loss: (p: Params, x: Float64Array) => number;

// grad: the gradient has the form of the differentiated argument.
const g: Params = grad(loss)(p, x);
const gw: Float64Array = grad(loss)(p, x).w;
const gb: number = grad(loss)(p, x).b;
// @ts-expect-error -- the gradient with respect to p is an object, not a number
const wrong: number = grad(loss)(p, x);
// @ts-expect-error -- b's gradient is a number
const wrongB: Float64Array = grad(loss)(p, x).b;
// @ts-expect-error -- the arguments are the function's
grad(loss)(x, p);
// @ts-expect-error -- one argument is missing
grad(loss)(p);

// argnums as a literal type: a position, or a list of positions.
const gx: Float64Array = grad(loss, { argnums: 1 })(p, x);
const both: [Params, Float64Array] = grad(loss, { argnums: [0, 1] })(p, x);
// @ts-expect-error -- argument 1 is a Float64Array
const wrongX: Params = grad(loss, { argnums: 1 })(p, x);

// valueAndGrad and hasAux.
const [value, grads]: [number, Params] = valueAndGrad(loss)(p, x);
declare const withAux: (p: Params, x: Float64Array) => [number, { accuracy: number }];
const [ga, aux] = grad(withAux, { hasAux: true })(p, x);
const acc: number = aux.accuracy;
const gaw: Float64Array = ga.w;
// @ts-expect-error -- aux has no field `loss`
void aux.loss;

// Composition: grad of grad, jacobian of grad (the Hessian), vmap of grad (per-example gradients).
declare const cubic: (x: number) => number;
const d3: number = grad(grad(grad(cubic)))(1);
declare const rosen: (v: Float64Array) => number;
const H: Float64Array[] = jacobian(grad(rosen))(x);
const H2: Float64Array[] = hessian(rosen)(x);
// @ts-expect-error -- a Hessian of a vector function of a vector is a matrix, not a vector
const H3: Float64Array = hessian(rosen)(x);
const perExample: { w: Float64Array[]; b: Float64Array } = vmap(grad(loss), { inAxes: [null, 0] })(p, [x, x]);
// @ts-expect-error -- the unmapped argument is not batched
vmap(grad(loss), { inAxes: [null, 0] })([p, p], [x, x]);

// jacobian: the output's dimensions first.
declare const field: (v: Float64Array) => Float64Array;
const J: Float64Array[] = jacobian(field)(x);
declare const scalarToVector: (t: number) => Float64Array;
const dt: Float64Array = jacobian(scalarToVector)(0.5);

// With sparse: true, a matrix in compressed sparse row form.
const Js: SparseMatrix = jacobian(field, { sparse: true })(x);
const Jcols: Int32Array = jacobian(field, { sparse: true, mode: "forward" })(x).columnIndexes;
const Hs: Float64Array = hessian(rosen, { sparse: true })(x).values;
// @ts-expect-error -- a sparse Jacobian is not rows of Float64Arrays
const wrongSparse: Float64Array[] = jacobian(field, { sparse: true })(x);

// Hessian of a function of an object: an object of objects of blocks.
declare const mlp: (p: { W: Float64Array[]; b: Float64Array; c: number }) => number;
declare const q: { W: Float64Array[]; b: Float64Array; c: number };
const Hq = hessian(mlp)(q);
const Hbb: Float64Array[] = Hq.b.b;
const Hcb: Float64Array = Hq.c.b;
const Hcc: number = Hq.c.c;

// compile keeps the function's type; NDArrays stay NDArrays.
declare const nd: (a: NDArray) => number;
const gnd: NDArray = grad(nd)({} as NDArray);
const compiled: number = compile(loss)(p, x);
// @ts-expect-error -- compile(loss) returns a number
const wrongCompiled: string = compile(loss)(p, x);

// A Smooth module typed by the declarations `smooth types model.smooth` wrote.
const model = smoothModule<ModelDefinitions>("(the text of model.smooth)");
const modelLoss: number = model.loss([x, 0.1], x, 1);
const modelPredict: Float64Array = model.predict([x, x], x);
const [total, next]: [number, number] = model.count(x, 3);
// @ts-expect-error -- loss returns a number
const modelWrong: Float64Array = model.loss([x, 0.1], x, 1);
// @ts-expect-error -- x is a Vector
model.predict([x], 1);
const dPredict: Float64Array[] = jacobian(model.predict, { argnums: 1 })([x, x], x);
// @ts-expect-error -- `losses` is not a definition of the module
void model.losses;

// jvp: [value, tangent], typed from the function; tangents have the arguments' structures.
const [jv, jt]: [number, number] = jvp(loss, [p, x], [{ w: x, b: 1 }, x]);
// @ts-expect-error -- the tangent of p is an object {w, b}
jvp(loss, [p, x], [x, x]);
// @ts-expect-error -- the tangent of `b` must be a number (or null)
jvp(loss, [p, x], [{ w: x, b: x }, x]);
// @ts-expect-error -- the tangent of a number is a number, not an object
const wrongTangent: Params = jvp(loss, [p, x], [p, x])[1];
declare const objective: (p: Params) => { value: number; residuals: Float64Array; ok: boolean };
const [ov, ot] = jvp(objective, [p], [{ w: x, b: 0 }]);
const otr: Float64Array = ot.residuals;
const otok: null = ot.ok; // a Bool has no tangent
const ovv: number = ov.value;

// vjp: the pullback takes a cotangent of the result's structure and gives one adjoint per argument.
const [vv, pullback] = vjp(loss, p, x);
const [adjP, adjX]: [Params, Float64Array] = pullback(1);
// @ts-expect-error -- the cotangent of a number is a number
pullback(x);
const [, pullbackObj] = vjp(objective, p);
const [adjObj]: [Params] = pullbackObj({ value: 1, residuals: x, ok: null });
// @ts-expect-error -- a cotangent of the result's structure: `residuals` is missing
pullbackObj({ value: 1, ok: null });

// linearize: the value and the linear map, typed like jvp.
const [lv, fJvp] = linearize(loss, p, x);
const lt: number = fJvp({ w: x, b: 1 }, x);
// @ts-expect-error -- one tangent per argument
fJvp({ w: x, b: 1 });
const [, fJvpObj] = linearize(objective, p);
const ltr: Float64Array = fJvpObj({ w: x, b: 0.5 }).residuals;

// jacobian of a function returning an object: the result's structure of the argument's structure of blocks.
declare const parts: (q: Params) => { a: number; b: Float64Array };
const Jab = jacobian(parts)(p);
const Jaw: Float64Array = Jab.a.w;
const Jab2: number = Jab.a.b;
const Jbw: Float64Array[] = Jab.b.w;
const Jbb: Float64Array = Jab.b.b;
// @ts-expect-error -- ∂b/∂w is a matrix (rows), not a vector
const wrongJbw: Float64Array = Jab.b.w;
declare const pairOut: (v: Float64Array) => [number, Float64Array];
const [Jp0, Jp1]: [Float64Array, Float64Array[]] = jacobian(pairOut)(x);
const Jlist = jacobian(parts, { argnums: [0] })(p);
const JlistA: [Params] = Jlist.a;

export {
  jv,
  jt,
  wrongTangent,
  otr,
  otok,
  ovv,
  vv,
  adjP,
  adjX,
  adjObj,
  lv,
  lt,
  ltr,
  Jaw,
  Jab2,
  Jbw,
  Jbb,
  wrongJbw,
  Jp0,
  Jp1,
  JlistA,
  modelLoss,
  modelPredict,
  total,
  next,
  modelWrong,
  dPredict,
  g,
  gw,
  gb,
  wrong,
  wrongB,
  gx,
  both,
  wrongX,
  value,
  grads,
  acc,
  gaw,
  d3,
  H,
  H2,
  H3,
  perExample,
  J,
  Js,
  Jcols,
  Hs,
  wrongSparse,
  dt,
  Hbb,
  Hcb,
  Hcc,
  gnd,
  compiled,
  wrongCompiled,
};
