// A plain JavaScript function — loops, Math.*, an object of parameters — differentiated as it is written: a small
// neural network fitted to a sine curve by gradient descent, with treeMap for the update and vmap(grad(...)) for
// per-example gradient norms. No Smooth in sight except the imports.
//   npm run build && node examples/plain_typescript.mjs
import { compilations, grad, treeMap, valueAndGrad, vmap } from "smooth-ad";

const H = 8;

/** The network's squared error on one sample: tanh hidden layer of H units, a linear output. */
function sampleLoss(p, x, y) {
  let out = p.c;
  for (let i = 0; i < H; i++) out += p.v[i] * Math.tanh(p.w[i] * x + p.b[i]);
  return (out - y) ** 2;
}

/** The mean loss over a data set. */
function loss(p, xs, ys) {
  let total = 0;
  for (let k = 0; k < xs.length; k++) {
    let out = p.c;
    for (let i = 0; i < H; i++) out += p.v[i] * Math.tanh(p.w[i] * xs[k] + p.b[i]);
    total += (out - ys[k]) ** 2;
  }
  return total / xs.length;
}

let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const xs = Float64Array.from({ length: 64 }, (_, k) => -3 + (6 * k) / 63);
const ys = xs.map(Math.sin);
let params = {
  w: Float64Array.from({ length: H }, random),
  b: Float64Array.from({ length: H }, random),
  v: Float64Array.from({ length: H }, () => 0.5 * random()),
  c: 0,
};

const step = valueAndGrad(loss);
const first = step(params, xs, ys)[0];
let last = first;
for (let it = 0; it < 2000; it++) {
  const [value, g] = step(params, xs, ys);
  params = treeMap((p, d) => (typeof p === "number" ? p - 0.05 * d : p.map((x, i) => x - 0.05 * d[i])), params, g);
  last = value;
}
console.log(
  `loss ${first.toFixed(4)} -> ${last.toFixed(4)} after 2000 steps (the gradient compiled ${compilations(step)} time)`,
);

// Per-example gradients of the sample loss: one compiled loop over the 64 samples.
const perExample = vmap(grad(sampleLoss), { inAxes: [null, 0, 0] })(params, xs, ys);
const norms = perExample.c.map((dc, k) =>
  Math.hypot(dc, ...[perExample.w, perExample.b, perExample.v].flatMap((g) => Array.from(g[k]))),
);
console.log(
  `largest per-example gradient norm ${Math.max(...norms).toFixed(4)} (sample ${norms.indexOf(Math.max(...norms))})`,
);
