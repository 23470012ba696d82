// Checkpointing (issue 32): the gradient of long loops in bounded memory. Each figure comes from a process of its own
// (peak resident memory as the operating system counts it, process.resourceUsage().maxRSS; time: the better of two
// calls after compiling):
//  - a simulation, a chain of 500 masses (a 1,000-element state: positions and momenta) stepped 100,000 times by
//    symplectic Euler: the primal, and the gradient under the default budget, 256 MB and 128 MB (checkpointed in
//    each case: taped, its states alone would be 10^8 elements, over the array limit), each against the primal;
//    and at 20,000 steps the taped gradient (no budget) against the checkpointed ones;
//  - a while loop of 10^6 steps on a 100-element state (the count is found by running it), under the default budget
//    and 64 MB (taped: over the array limit again).
// Prints a markdown table and writes bench/results/checkpoint.md and .json. Run with `npm run bench:checkpoint`
// (builds first); the back end is wasm (the default) unless --engine js is given.

import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ENGINE = process.argv.includes("--engine") ? process.argv[process.argv.indexOf("--engine") + 1] : "wasm";
const PROGRAM_URL = new URL("../dist/api/program.js", import.meta.url).href;

const PROGRAM = `
// 500 masses: positions x[0..499], momenta x[500..999]; springs and a cubic term; symplectic Euler.
let simulate = fun (x0: Vector) (steps: Index) ->
  let n = length x0
  let m = n / 2
  let dt = 0.05
  let xT = ifold (fun (x: Vector) (i: Index) ->
      build n (fun j ->
        let k = if j < m then j else j - m
        let q = x[k]
        let l = if k = 0 then 0. else x[k - 1]
        let r = if k = m - 1 then 0. else x[k + 1]
        let d1 = q - l
        let d2 = r - q
        let force = d2 - d1 + 0.1 * (d2 * d2 * d2 - d1 * d1 * d1)
        let p = x[k + m] + dt * force
        if j < m then q + dt * p else p)) x0 steps
  ifold (fun s j -> s + xT[j] * xT[j]) 0. m
// The same kind of step, as a while loop whose count is found by running it.
let relax = fun (x0: Vector) (steps: Index) ->
  let (x, _) = while (fun (s: Vector * Index) -> snd s < steps)
    (fun s ->
      let (x, k) = s
      let n = length x
      (build n (fun j -> let c = x[j] in c + 0.05 * ((if j = 0 then c else x[j - 1]) - 2. * c + (if j = n - 1 then c else x[j + 1])) + 0.01 * sin c), k + 1))
    (x0, 0)
  vectorDot x x
`;

/** One measurement in a fresh process: the primal or the gradient of `fn` at n elements and `steps` steps. */
function measure(what, fn, n, steps, budget) {
  const script = `
    const { loadProgram } = await import(${JSON.stringify(PROGRAM_URL)});
    const prog = loadProgram({ name: "checkpoint.smooth", text: ${JSON.stringify(PROGRAM)} });
    const types = [{ k: "array", elem: { k: "double" } }, { k: "int" }];
    const f = ${JSON.stringify(what)} === "primal"
      ? prog.specialise(${JSON.stringify(fn)}, types, ${JSON.stringify(ENGINE)})
      : prog.derivative(${JSON.stringify(fn)}, types, [0], ${JSON.stringify(ENGINE)}, undefined, "gradient");
    const x0 = new Float64Array(${n}).map((_, i) => (i < ${n} / 2 ? 0.5 * Math.sin(i * 0.05) : 0));
    const args = [{ tag: "dense", elemKind: "double", shape: [${n}], data: x0 }, ${steps}];
    let best = Infinity, out;
    for (let k = 0; k < 2; k++) {
      const t0 = performance.now();
      out = f.run(args);
      best = Math.min(best, performance.now() - t0);
    }
    const first = typeof out === "number" ? out : out.data[0];
    console.log(JSON.stringify({ ms: best, mib: process.resourceUsage().maxRSS / 1024, first }));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, SMOOTH_MEMORY_BUDGET: budget },
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`${what} ${fn} (budget ${budget}) failed:\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

const rows = [];
const add = (name, budget, m, primal) => {
  rows.push({
    name,
    budget,
    ms: m.ms,
    mib: m.mib,
    ratio: primal === undefined ? undefined : m.ms / primal.ms,
    first: m.first,
  });
  const r = rows.at(-1);
  console.error(
    `${name} (${budget}): ${r.ms.toFixed(0)} ms, ${r.mib.toFixed(0)} MiB${r.ratio ? `, ${r.ratio.toFixed(2)}x the primal` : ""}`,
  );
};

for (const steps of [20_000, 100_000]) {
  const name = `simulation 1,000 x ${steps.toLocaleString("en")}`;
  const primal = measure("primal", "simulate", 1000, steps, "");
  add(`${name}: primal`, "-", primal);
  for (const budget of steps === 20_000 ? ["off", "128M", "16M"] : ["", "256M", "128M"])
    add(`${name}: gradient`, budget, measure("gradient", "simulate", 1000, steps, budget), primal);
}
const whilePrimal = measure("primal", "relax", 100, 1_000_000, "");
add("while 100 x 10^6: primal", "-", whilePrimal);
for (const budget of ["", "64M"])
  add("while 100 x 10^6: gradient", budget, measure("gradient", "relax", 100, 1_000_000, budget), whilePrimal);

// Every budget gives the same gradient (its first entry, bit for bit).
for (const r of rows.filter((x) => x.name.endsWith("gradient"))) {
  const first = rows.find((x) => x.name === r.name);
  if (!Object.is(r.first, first.first)) throw new Error(`${r.name} (${r.budget}): ${r.first}, not ${first.first}`);
}

const table = [
  `Checkpointing (${ENGINE} back end; peak resident memory of the whole process; time: the better of two calls)`,
  "",
  "| what | memory budget | time ms | peak MiB | time / primal |",
  "| --- | --- | ---: | ---: | ---: |",
  ...rows.map(
    (r) =>
      `| ${r.name} | ${{ off: "none (taped)", "": "default" }[r.budget] ?? r.budget} | ${r.ms.toFixed(0)} | ${r.mib.toFixed(0)} | ${r.ratio === undefined ? "" : r.ratio.toFixed(2)} |`,
  ),
].join("\n");
console.log(table);
const out = fileURLToPath(new URL("results/", import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(`${out}checkpoint${ENGINE === "wasm" ? "" : `-${ENGINE}`}.md`, `${table}\n`);
writeFileSync(`${out}checkpoint${ENGINE === "wasm" ? "" : `-${ENGINE}`}.json`, `${JSON.stringify(rows, null, 2)}\n`);
