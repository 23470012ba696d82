// Derivatives written inside a program (issue 32, item 3): `deriv`/`grad` of the dot product at n = 8,000 against the
// primal (target: within 3x), and forward-mode NNMF's gradient with respect to H at several sizes, in-language and
// requested from outside, against the hand-written update rule (paper 000 §5, Fig. 9: the cost grows as n·m, 4x per
// doubling of n = m). All compiled to JavaScript, timed in alternation (rounds over every case, the best round of
// each kept: other processes' load shows up as slow rounds, not as a bias between cases). Run with
// `npm run bench:inlang` (builds first). Timings never gate `npm test`; test/opt/in-language.test.ts asserts the
// structure (no one-hot loop, loop nest depth). Writes bench/results/in-language.md.
//
// `run` copies an array result out of the compiled function's arena (the caller may keep it); `runBorrowed` lends it
// (read before the next call): the dot product's derivative returns 2n Doubles where the primal returns one, so the
// copy is most of the difference. A hand-written (value, tangent) pair of arrays is timed for comparison.
import { writeFileSync } from "node:fs";
import { MAT, VEC, dense, random } from "./lib.mjs";
import { loadProgram } from "../dist/api/program.js";

const prog = loadProgram({
  name: "in-language.smooth",
  text: [
    "let dot = fun (a: Vector) (b: Vector) -> vectorDot a b",
    "let dotDeriv = fun (a: Vector) (b: Vector) -> deriv (dot a b) a",
    "let dotGrad = fun (a: Vector) (b: Vector) -> grad (fun x -> dot x b) a",
    "let nnmf = fun (u: Vector) (v: Vector) (A: Matrix) ->",
    "  let wh = vectorOutProd u v",
    "  vectorSum (build (length A) (fun i -> vectorSum (build (length v) (fun j -> log wh[i][j] + A[i][j] / wh[i][j]))))",
    "let nnmfDeriv = fun (u: Vector) (v: Vector) (A: Matrix) ->",
    "  let d = deriv (nnmf u v A) v",
    "  build (length v) (fun j -> snd d[j])",
  ].join("\n"),
});

/** The hand-written NNMF gradient with respect to H = vᵀ: Wᵀ(1/(WH) - A/(WH)²), W = u. */
function nnmfHand(u, v, A) {
  const n = u.length,
    m = v.length,
    g = new Float64Array(m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const x = u[i] * v[j];
      g[j] += u[i] * (1 / x - A[i * m + j] / (x * x));
    }
  return g;
}

const tangentsOf = (r) => (r.tag === "tuparr" ? r.fields[1].data : r.data);
function sameNumbers(name, got, want) {
  for (let i = 0; i < want.length; i++)
    if (Math.abs(got[i] - want[i]) > 1e-9 * Math.max(1, Math.abs(want[i])))
      throw new Error(`${name}[${i}]: ${got[i]} != ${want[i]}`);
}

/** Named cases, each a function timed with the calls per round it is given. */
const cases = new Map();
const add = (name, f, calls) => cases.set(name, { f, calls });
const rows = [];

// ---- the dot product at n = 8,000 ----
{
  const n = 8000,
    a = random(n, 1),
    b = random(n, 2),
    args = [dense(a, [n]), dense(b, [n])];
  const primal = prog.specialise("dot", [VEC, VEC], "js");
  const programs = {
    "in-language deriv": prog.specialise("dotDeriv", [VEC, VEC], "js"),
    "in-language grad": prog.specialise("dotGrad", [VEC, VEC], "js"),
    requested: prog.derivative("dot", [VEC, VEC], [0], "js"),
  };
  const handPairs = () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += a[i] * b[i];
    return [new Float64Array(n).fill(s), b.slice()];
  };
  for (const [name, p] of Object.entries(programs)) sameNumbers(`dot ${name}`, tangentsOf(p.run(args)), b);
  const at = (what) => `dot (n=8000) | ${what}`;
  add(at("primal"), () => primal.run(args), 200);
  for (const [name, p] of Object.entries(programs)) {
    add(at(name), () => p.run(args), 200);
    add(at(`${name}, borrowed result`), () => p.runBorrowed(args), 200);
  }
  add(at("hand-written (value, tangent) pairs"), handPairs, 200);
  const names = [
    ...Object.keys(programs).flatMap((k) => [k, `${k}, borrowed result`]),
    "hand-written (value, tangent) pairs",
  ];
  rows.push({ base: at("primal"), of: names.map(at) });
}

// ---- forward-mode NNMF at n = m = 100, 200, 400, 800 ----
const SIZES = [100, 200, 400, 800];
for (const n of SIZES) {
  const u = random(n, 3, 0.5, 1.5),
    v = random(n, 4, 0.5, 1.5),
    A = random(n * n, 5, 0.5, 1.5),
    args = [dense(u, [n]), dense(v, [n]), dense(A, [n, n])];
  const primal = prog.specialise("nnmf", [VEC, VEC, MAT], "js");
  const inside = prog.specialise("nnmfDeriv", [VEC, VEC, MAT], "js");
  const outside = prog.derivative("nnmf", [VEC, VEC, MAT], [1], "js");
  const want = nnmfHand(u, v, A);
  sameNumbers(`nnmf in-language (n=${n})`, tangentsOf(inside.run(args)), want);
  sameNumbers(`nnmf requested (n=${n})`, tangentsOf(outside.run(args)), want);
  const at = (what) => `NNMF grad wrt H (n=${n}) | ${what}`;
  const calls = Math.max(1, Math.round(2e6 / (n * n)));
  add(at("primal"), () => primal.run(args), calls);
  add(at("in-language deriv"), () => inside.run(args), calls);
  add(at("requested"), () => outside.run(args), calls);
  add(at("hand-written"), () => nnmfHand(u, v, A), calls);
  rows.push({ base: at("primal"), of: [at("in-language deriv"), at("requested"), at("hand-written")] });
}

/** The best round's milliseconds per call of every case, rounds alternating between the cases. */
const best = new Map();
for (let round = 0; round < 25; round++)
  for (const [name, { f, calls }] of cases) {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < calls; k++) f();
    const t = Number(process.hrtime.bigint() - t0) / 1e6 / calls;
    if (round > 0) best.set(name, Math.min(best.get(name) ?? Infinity, t)); // round 0 warms up
  }
const ms = (name) => best.get(name);
const table = [];
for (const { base, of } of rows) {
  table.push({ case: base, "best (ms)": ms(base).toFixed(4), "x primal": "1.00" });
  for (const name of of)
    table.push({ case: name, "best (ms)": ms(name).toFixed(4), "x primal": (ms(name) / ms(base)).toFixed(2) });
}
console.table(table);

// Growth per doubling of n = m (paper 000 Fig. 9: the gradient costs as the primal, n·m; an uncollapsed one-hot
// tangent would be n·m² and grow 8x).
const growth = [];
for (let k = 1; k < SIZES.length; k++) {
  const at = (n, what) => ms(`NNMF grad wrt H (n=${n}) | ${what}`);
  const [p, q] = [SIZES[k - 1], SIZES[k]];
  growth.push({
    "n -> 2n": `${p} -> ${q}`,
    primal: (at(q, "primal") / at(p, "primal")).toFixed(2),
    "in-language deriv": (at(q, "in-language deriv") / at(p, "in-language deriv")).toFixed(2),
    requested: (at(q, "requested") / at(p, "requested")).toFixed(2),
    "hand-written": (at(q, "hand-written") / at(p, "hand-written")).toFixed(2),
  });
}
console.table(growth);

const md = [
  "# Derivatives written in the program (backend js)",
  "",
  "Best round of 24, all cases in alternation; milliseconds per call.",
  "",
  "| case | ms | / primal |",
  "| --- | ---: | ---: |",
  ...table.map((r) => `| ${r.case.replace(" | ", ": ")} | ${r["best (ms)"]} | ${r["x primal"]} |`),
  "",
  "| NNMF, n -> 2n (n = m) | primal | in-language deriv | requested | hand-written |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...growth.map(
    (g) => `| ${g["n -> 2n"]} | ${g.primal} | ${g["in-language deriv"]} | ${g.requested} | ${g["hand-written"]} |`,
  ),
  "",
];
writeFileSync(new URL("./results/in-language.md", import.meta.url), md.join("\n"));
