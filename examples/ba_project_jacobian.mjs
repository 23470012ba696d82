// The Jacobian of bundle adjustment's `project` (examples/ba_project.smooth): N points seen by one camera of 11
// parameters. The output is N × 2, so the Jacobian block for the camera is N × 2 × 11 and for the points N × 2 × N × 3.
//   npm run build && node examples/ba_project_jacobian.mjs
import { fileURLToPath } from "node:url";
import { loadModule, jacobian, ndarray } from "smooth-ad/node";

const ba = loadModule(fileURLToPath(new URL("./ba_project.smooth", import.meta.url)));

// r (rotation), C (centre), f, x0 (principal point), kappa (distortion)
const cam = new Float64Array([0.1, -0.2, 0.05, 0.3, -0.1, -5, 500, 320, 240, 1e-3, 1e-6]);
const N = 4;
const X = ndarray(
  Float64Array.from({ length: N * 3 }, (_, i) => Math.sin(i + 1)),
  [N, 3],
);

console.log(
  "projections:",
  ba.project(cam, X).map((row) => Array.from(row, (v) => +v.toFixed(3))),
);
const J = jacobian(ba.project, { argnums: [0, 1] });
const [Jcam, JX] = J(cam, X);
console.log(
  `camera block: ${Jcam.length} × ${Jcam[0].length} × ${Jcam[0][0].length}; point block shape [${JX.shape.join(", ")}]`,
);
console.log("∂(u, v) of point 0 / ∂camera:");
for (const row of Jcam[0]) console.log("  ", Array.from(row, (v) => v.toPrecision(4)).join("  "));

// Check one column, ∂project/∂f (camera parameter 6), by central differences.
const h = 1e-4;
const shifted = (delta) =>
  ba.project(
    cam.map((c, i) => (i === 6 ? c + delta : c)),
    X,
  );
const [up, down] = [shifted(h), shifted(-h)];
let worst = 0;
for (let p = 0; p < N; p++)
  for (let k = 0; k < 2; k++) worst = Math.max(worst, Math.abs((up[p][k] - down[p][k]) / (2 * h) - Jcam[p][k][6]));
console.log(`largest difference from central differences in column f: ${worst.toExponential(2)}`);
