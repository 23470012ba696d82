// Compile time against program size (issue 15 item 2): for programs of n lets in one function, n top-level
// definitions (independent, or each calling the one before) and a chain of n higher-order helpers, the time to parse, check, lower, optimise and compile the entry
// point (one fresh load per size; the median of 3 runs). A size the compiler cannot take yet is recorded with its
// error. Writes bench/results/scaling.md and .json. Run with `npm run bench:scaling` (builds first).

import { mkdirSync, writeFileSync } from "node:fs";
import { loadProgram } from "../dist/api/program.js";
import { DOUBLE } from "../dist/types/types.js";

const SIZES = [10, 30, 100, 300, 1000, 3000, 10000];

const programs = {
  lets: (n) => {
    const lines = ["let main = fun (x: Double) ->", "  let a0 = x"];
    for (let i = 1; i < n; i++) lines.push(`  let a${i} = a${i - 1} * 0.5 + ${i}.`);
    lines.push(`  a${n - 1}`);
    return lines.join("\n");
  },
  "definitions (independent)": (n) => {
    const lines = [];
    for (let i = 0; i < n; i++) lines.push(`let d${i} = fun (x: Double) -> x + ${i}.`);
    lines.push(`let main = fun (x: Double) -> d${n - 1} (d0 x)`);
    return lines.join("\n");
  },
  "definitions (each calls the last)": (n) => {
    const lines = ["let d0 = fun (x: Double) -> x"];
    for (let i = 1; i < n; i++) lines.push(`let d${i} = fun (x: Double) -> d${i - 1} x + 1.`);
    lines.push(`let main = fun (x: Double) -> d${n - 1} x`);
    return lines.join("\n");
  },
  "helper chain": (n) => {
    const lines = ["let g0 = fun (k: Double -> Double) (x: Double) -> k x"];
    for (let i = 1; i < n; i++) lines.push(`let g${i} = fun (k: Double -> Double) (x: Double) -> g${i - 1} k x + 1.`);
    lines.push(`let main = fun (x: Double) -> g${n - 1} (fun y -> y * 2.) x`);
    return lines.join("\n");
  },
};

function compileMs(text) {
  const t0 = performance.now();
  const p = loadProgram({ name: "scaling.smooth", text });
  p.specialise("main", [DOUBLE], "js").run([1]);
  return performance.now() - t0;
}

const rows = [];
for (const [kind, make] of Object.entries(programs)) {
  for (const n of SIZES) {
    const text = make(n);
    let cell;
    try {
      const times = [0, 1, 2].map(() => compileMs(text)).sort((a, b) => a - b);
      cell = { ms: times[1] };
    } catch (e) {
      cell = { error: (e instanceof Error ? e.message : String(e)).split("\n")[0].slice(0, 80) };
    }
    rows.push({ kind, n, ...cell });
    console.log(kind, n, cell.ms !== undefined ? `${cell.ms.toFixed(1)} ms` : `fails: ${cell.error}`);
  }
}

const md = [
  "| program | " + SIZES.map((n) => `n = ${n}`).join(" | ") + " |",
  "| --- | " + SIZES.map(() => "---:").join(" | ") + " |",
  ...Object.keys(programs).map(
    (kind) =>
      `| ${kind} | ` +
      SIZES.map((n) => {
        const r = rows.find((x) => x.kind === kind && x.n === n);
        return r.ms !== undefined ? r.ms.toFixed(r.ms < 10 ? 1 : 0) : "fails";
      }).join(" | ") +
      " |",
  ),
];
const errors = [...new Set(rows.filter((r) => r.error).map((r) => `- ${r.kind}, n = ${r.n}: ${r.error}`))];
const out = new URL("./results/", import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(
  new URL("scaling.md", out),
  `Compile time (ms, median of 3) of the entry point against program size\n\n${md.join("\n")}\n${errors.length ? `\nFailures:\n${errors.join("\n")}\n` : ""}`,
);
writeFileSync(new URL("scaling.json", out), JSON.stringify(rows, null, 2) + "\n");
console.log(md.join("\n"));
