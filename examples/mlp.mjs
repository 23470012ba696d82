// A two-layer perceptron (2 → 16 tanh → 1) trained by gradient descent on the "two moons" data in data/moons.csv,
// written as a JavaScript function over Smooth's tensor operations: it is traced once into a Smooth program, then
// differentiated and compiled like source. The parameters are an object; the gradient has the same structure.
//   npm run build && node examples/mlp.mjs
import { readFileSync } from "node:fs";
import { add, build, dot, exp, get, ifold, log, mul, ndarray, sub, tanh, valueAndGrad, vmap } from "smooth-ad";

/** The network's output (a logit) for one point x. */
function forward(p, x) {
  const hidden = build(p.W1.length, (j) => tanh(add(dot(get(p.W1, j), x), get(p.b1, j))));
  return add(dot(p.W2, hidden), p.b2);
}

/** Mean binary cross-entropy over the rows of X: log(1 + e^z) - y z. */
function loss(p, X, y) {
  const n = X.length; // a plain number: shapes are known while tracing
  const total = ifold(
    (acc, i) => {
      const z = forward(p, get(X, i));
      return add(acc, sub(log(add(1, exp(z))), mul(get(y, i), z)));
    },
    0,
    n,
  );
  return mul(total, 1 / n);
}

const lines = readFileSync(new URL("./data/moons.csv", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .slice(1);
const n = lines.length;
const X = new Float64Array(2 * n);
const y = new Float64Array(n);
lines.forEach((line, i) => {
  const [a, b, label] = line.split(",").map(Number);
  X[2 * i] = a;
  X[2 * i + 1] = b;
  y[i] = label;
});
const Xm = ndarray(X, [n, 2]);

let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const hidden = 16;
let p = {
  W1: ndarray(new Float64Array(hidden * 2).map(random), [hidden, 2]),
  b1: new Float64Array(hidden).map(() => random() * 0.5),
  W2: new Float64Array(hidden).map(() => random() * 0.5),
  b2: 0,
};

const step = valueAndGrad(loss); // traced and compiled on the first call
const rate = 0.5;
const descend = (x, g) => x.map((xi, j) => xi - rate * g[j]);
for (let it = 0; it <= 2000; it++) {
  const [value, g] = step(p, Xm, y);
  if (it % 500 === 0) console.log(`step ${it}: loss ${value.toFixed(4)}`);
  p = {
    W1: ndarray(descend(p.W1.data, g.W1.data), [hidden, 2]),
    b1: descend(p.b1, g.b1),
    W2: descend(p.W2, g.W2),
    b2: p.b2 - rate * g.b2,
  };
}

const logits = vmap(forward, { inAxes: [null, 0] })(p, Xm); // one compiled loop over the rows
const correct = Array.from(logits).filter((z, i) => (z > 0 ? 1 : 0) === y[i]).length;
console.log(`training accuracy ${((100 * correct) / n).toFixed(1)}% on ${n} points`);
