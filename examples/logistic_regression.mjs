// Logistic regression trained by gradient descent. The model is Smooth source; the parameters are an object
// {w, b}, and the gradient comes back as an object {w, b} of the same shapes.
//   npm run build && node examples/logistic_regression.mjs
import { smooth, valueAndGrad, ndarray, compilations } from "smooth-ad";

const m = smooth`
let logit = fun (p: Vector * Double) (x: Vector) -> vectorDot (fst p) x + snd p

// Mean binary cross-entropy: log (1 + e^z) - y z for each sample.
let loss = fun (p: Vector * Double) (X: Matrix) (y: Vector) ->
  let n = length X
  let total = ifold (fun acc i ->
    let z = logit p X[i]
    acc + log (1 + exp z) - y[i] * z) 0 n
  total / double n
`;

// Synthetic data: 500 samples of 3 features, labels from a known linear rule (deterministic pseudo-random numbers).
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const n = 500,
  d = 3;
const trueW = [2, -3, 1],
  trueB = 0.5;
const X = new Float64Array(n * d).map(random);
const y = new Float64Array(n).map((_, i) =>
  X[i * d] * trueW[0] + X[i * d + 1] * trueW[1] + X[i * d + 2] * trueW[2] + trueB > 0 ? 1 : 0,
);
const Xm = ndarray(X, [n, d]); // a 500 × 3 matrix, passed without copying

const step = valueAndGrad(m.loss); // compiled on the first call, reused afterwards
let p = { w: new Float64Array(d), b: 0 };
for (let it = 0; it <= 300; it++) {
  const [value, g] = step(p, Xm, y);
  if (it % 100 === 0) console.log(`step ${it}: loss ${value.toFixed(4)}`);
  p = { w: p.w.map((wi, j) => wi - 2 * g.w[j]), b: p.b - 2 * g.b };
}

let correct = 0;
for (let i = 0; i < n; i++) if ((m.logit(p, X.subarray(i * d, i * d + d)) > 0 ? 1 : 0) === y[i]) correct++;
console.log(`accuracy ${((100 * correct) / n).toFixed(1)}%`);
console.log(
  `direction of w: [${Array.from(p.w, (x) => (x / p.w[0]).toFixed(2)).join(", ")}] (true: [1.00, -1.50, 0.50])`,
);
console.log(`compilations of the gradient: ${compilations(step)}`);
