// The Hessian of the Rosenbrock function (forward over reverse mode), checked against the formula, then used by
// Newton's method.
//   npm run build && node examples/rosenbrock_hessian.mjs
import { smooth, grad, hessian, inspect } from "smooth-ad";

const m = smooth`
let rosenbrock = fun (x: Vector) ->
  vectorSum (build (length x - 1) (fun i ->
    let a = x[i + 1] - x[i] * x[i]
    let b = 1 - x[i]
    100 * a * a + b * b))
`;

const H = hessian(m.rosenbrock);
const g = grad(m.rosenbrock);

// By hand for two variables: [[1200 x² - 400 y + 2, -400 x], [-400 x, 200]].
const x0 = new Float64Array([-1.2, 1]);
const h = H(x0);
console.log(
  "Hessian at (-1.2, 1):",
  h.map((row) => Array.from(row)),
);
console.log("by hand:             ", [
  [1200 * 1.44 - 400 + 2, 480],
  [480, 200],
]);

// Newton's method: x ← x - H⁻¹ ∇f (2 × 2 solve by Cramer's rule).
let x = x0;
for (let it = 1; it <= 6; it++) {
  const [[a, b], [c, d]] = H(x).map((row) => Array.from(row));
  const [g0, g1] = g(x);
  const det = a * d - b * c;
  x = new Float64Array([x[0] - (d * g0 - b * g1) / det, x[1] - (a * g1 - c * g0) / det]);
  console.log(
    `Newton step ${it}: x = (${x[0].toFixed(6)}, ${x[1].toFixed(6)}), f = ${m.rosenbrock(x).toExponential(3)}`,
  );
}

// The Hessian program itself, as Smooth text:
console.log(inspect(H, x0).smooth);
