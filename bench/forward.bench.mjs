// Forward-mode benchmarks (issue 3, paper 000 §5): optimised forward-mode derivative programs compiled by Smooth,
// against the same derivative hand-written in JavaScript and against Smooth with the optimiser switched off, all in one
// run. Ratios: smooth / hand-written (1.0 = as fast), and no-opt / smooth (how much the optimiser buys).
// Run with `npm run bench:forward` (builds first). Timings never gate `npm test`.

import { readFileSync } from "node:fs";
import { Bench } from "tinybench";
import { DBL, MAT, VEC, dense, random } from "./lib.mjs";
import { loadProgram } from "../dist/api/program.js";
import { PASSES } from "../dist/opt/pipeline.js";
import { projectHand, projectJacobianHand } from "./hand/ba.mjs";

const read = (p) => readFileSync(new URL(p, import.meta.url), "utf8");
const prog = loadProgram({
  name: "forward.smooth",
  text: read("../examples/ba_project.smooth") + "\n" + read("programs/forward.smooth"),
});
const NO_OPT = [PASSES["forward-ad"], PASSES.inline];

/** The compiled derivative program (optimised, and with the optimiser off). */
function derivative(name, types, wrt) {
  return {
    opt: prog.derivative(name, types, wrt, "js"),
    noopt: prog.derivative(name, types, wrt, "js", NO_OPT),
  };
}

// n = 1000 for the Jacobian of vectorAdd (its output is n²); the O(n) gradients use n = 100000, so that the table
// measures the derivative and not the call overhead of a compiled function.
const N = 1000,
  NL = 100000;
const a = random(N, 1),
  b = random(N, 2),
  s = 1.7;
const aL = random(NL, 6),
  bL = random(NL, 7);
const u = random(100, 3, 0.5, 1.5),
  v = random(100, 4, 0.5, 1.5),
  A = random(100 * 100, 5, 0.5, 1.5);

// ---- hand-written derivatives ----
const hand = {
  dot: (a, b) => b.slice(),
  vmax(v) {
    let k = 0;
    for (let i = 1; i < v.length; i++) if (!(v[k] >= v[i])) k = i;
    const g = new Float64Array(v.length);
    g[k] = 1;
    return g;
  },
  vadd(n) {
    const J = new Float64Array(n * n);
    for (let i = 0; i < n; i++) J[i * n + i] = 1;
    return J;
  },
  vsmul: (v) => v.slice(),
  lse(v) {
    let m = -Infinity;
    for (let i = 0; i < v.length; i++) m = Math.max(m, v[i]);
    let z = 0;
    const g = new Float64Array(v.length);
    for (let i = 0; i < v.length; i++) z += g[i] = Math.exp(v[i] - m);
    for (let i = 0; i < v.length; i++) g[i] /= z;
    return g;
  },
  nnmf(u, v, A) {
    const n = u.length,
      m = v.length,
      g = new Float64Array(m);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < m; j++) {
        const x = u[i] * v[j];
        g[j] += u[i] * (1 / x - A[i * m + j] / (x * x));
      }
    return g;
  },
};

const cases = [];
/** `noopt: false` skips the unoptimised program (O(n²) at n = 100000: minutes per call). */
function add(name, d, args, handFn, check, { noopt = true } = {}) {
  cases.push({ name, d, args, handFn, check, noopt });
}
add(
  "grad dot (n=100000)",
  derivative("dot", [VEC, VEC], [0]),
  [dense(aL, [NL]), dense(bL, [NL])],
  () => hand.dot(aL, bL),
  (r) => r.data,
  { noopt: false },
);
add(
  "grad vectorMax (n=100000)",
  derivative("vmax", [VEC], [0]),
  [dense(aL, [NL])],
  () => hand.vmax(aL),
  (r) => r.data,
  { noopt: false },
);
add(
  "jacobian vectorAdd (n=1000)",
  derivative("vadd", [VEC, VEC], [0]),
  [dense(a, [N]), dense(b, [N])],
  () => hand.vadd(N),
  (r) => r.data,
);
add(
  "jacobian vectorSMul wrt s (n=100000)",
  derivative("vsmul", [VEC, DBL], [1]),
  [dense(aL, [NL]), s],
  () => hand.vsmul(aL),
  (r) => r.data,
);
add(
  "grad logsumexp (n=100000)",
  derivative("lse", [VEC], [0]),
  [dense(aL, [NL])],
  () => hand.lse(aL),
  (r) => r.data,
  { noopt: false },
);
add(
  "NNMF grad wrt H (100x100)",
  derivative("nnmf", [VEC, VEC, MAT], [1]),
  [dense(u, [100]), dense(v, [100]), dense(A, [100, 100])],
  () => hand.nnmf(u, v, A),
  (r) => r.data,
);

// BA project Jacobian, all 11 + 3N columns at once, against the hand-written Jacobian and N separate passes.
const cam = new Float64Array([0.1, -0.2, 0.3, 0.5, -0.4, -8, 500, 320, 240, 1e-3, 1e-6]);
for (const n of [10, 100, 800]) {
  const X = random(3 * n, 10 + n, -1, 1);
  const d = derivative("project", [VEC, MAT], [0, 1]);
  add(
    `BA project Jacobian (N=${n})`,
    d,
    [dense(cam, [11]), dense(X, [n, 3])],
    () => projectJacobianHand(cam, X, n),
    null,
  );
}

// Same numbers before timing anything: each optimised derivative against the hand-written one.
for (const c of cases) {
  if (!c.check) continue;
  const got = c.check(c.d.opt.run(c.args));
  const want = c.handFn();
  for (let i = 0; i < want.length; i++)
    if (Math.abs(got[i] - want[i]) > 1e-9 * Math.max(1, Math.abs(want[i])))
      throw new Error(`${c.name}[${i}]: smooth ${got[i]} != hand ${want[i]}`);
}
{
  const n = 10,
    X = random(3 * n, 20, -1, 1);
  const res = prog.derivative("project", [VEC, MAT], [0, 1], "js").run([dense(cam, [11]), dense(X, [n, 3])]);
  const J = projectJacobianHand(cam, X, n),
    cols = 11 + 3 * n;
  const [dcam, dX] = res.elems;
  for (let j = 0; j < cols; j++)
    for (let r = 0; r < 2 * n; r++) {
      const col =
        j < 11 ? dcam.data.subarray(j * 2 * n, (j + 1) * 2 * n) : dX.data.subarray((j - 11) * 2 * n, (j - 10) * 2 * n);
      const want = J[r * cols + j];
      if (Math.abs(col[r] - want) > 1e-7 * Math.max(1, Math.abs(want)))
        throw new Error(`BA J[${r}][${j}]: smooth ${col[r]} != hand ${want}`);
    }
  void projectHand;
}

const bench = new Bench({ time: 800, warmupTime: 200, iterations: 3 });
for (const c of cases) {
  bench.add(`${c.name} | smooth`, () => c.d.opt.run(c.args));
  bench.add(`${c.name} | hand-written`, c.handFn);
  if (c.noopt) bench.add(`${c.name} | optimiser off`, () => c.d.noopt.run(c.args));
}
// N separate forward passes for the BA Jacobian at N = 100 (one per column), for the vectorised comparison.
{
  const n = 100,
    X = random(3 * n, 110, -1, 1);
  const col = prog.specialise("projectTangent", [VEC, MAT, VEC, MAT], "js");
  const dcam = new Float64Array(11),
    dX = new Float64Array(3 * n);
  bench.add(`BA project Jacobian (N=${n}) | column by column`, () => {
    for (let j = 0; j < 11 + 3 * n; j++) {
      dcam.fill(0);
      dX.fill(0);
      if (j < 11) dcam[j] = 1;
      else dX[j - 11] = 1;
      col.run([dense(cam, [11]), dense(X, [n, 3]), dense(dcam, [11]), dense(dX, [n, 3])]);
    }
  });
}
await bench.run();

const ms = (name) => bench.getTask(name)?.result?.latency?.mean;
const rows = cases.map((c) => {
  const sm = ms(`${c.name} | smooth`),
    hw = ms(`${c.name} | hand-written`),
    off = ms(`${c.name} | optimiser off`);
  return {
    benchmark: c.name,
    "smooth ms": sm.toFixed(3),
    "hand ms": hw.toFixed(3),
    "smooth/hand": (sm / hw).toFixed(2),
    "no-opt ms": off === undefined ? "(skipped)" : off.toFixed(3),
    "no-opt/smooth": off === undefined ? "-" : (off / sm).toFixed(1),
  };
});
console.table(rows);
const colByCol = ms("BA project Jacobian (N=100) | column by column");
const vec100 = ms("BA project Jacobian (N=100) | smooth");
console.log(
  `BA N=100: vectorised ${vec100.toFixed(3)} ms vs ${11 + 300} separate forward passes ${colByCol.toFixed(3)} ms (${(colByCol / vec100).toFixed(1)}x)`,
);
