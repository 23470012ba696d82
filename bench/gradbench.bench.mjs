// The GradBench benchmark: every eval's default workloads (bench/gradbench-workloads.mjs) run against the tool itself
// (`node dist/gradbench/main.js`, one process per eval) through the protocol, as the suite's evals would run it. The
// times are the tool's own per-run timings (JSON and input conversion excluded); the table gives the fastest and the
// median run of the primal function and of each derivative function, and their ratios.
//
//   node bench/gradbench.bench.mjs [--quick] [--only gmm,lstm] [--min-seconds S] [--min-runs N] [--warmup N] [--timeout S]
//   node bench/gradbench.bench.mjs --report-only     (the table and chart again, from the last results JSON)
//   node bench/gradbench.bench.mjs --engine wasm     (the tool compiling with another back end: gradbench-wasm.*)
//
// --quick runs a subset (the target workloads among them) with shorter minimums. Writes
// bench/results/gradbench.{md,json,svg} (bench/scratch/ for --quick and --only runs). Run with `npm run bench:gradbench [-- --quick]` (builds first).

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import cliProgress from "cli-progress";
import { workloads } from "./gradbench-workloads.mjs";
import { importOnDemand, installCommand, installOnDemand } from "../scripts/on-demand.mjs";

const TOOL = fileURLToPath(new URL("../dist/gradbench/main.js", import.meta.url));
// A full run writes the committed results (bench/results/, the README's chart); a --quick or --only run writes to
// bench/scratch/ (not committed), so it never replaces them.
const partial = process.argv.includes("--quick") || process.argv.includes("--only");
const RESULTS = new URL(partial ? "scratch/" : "results/", import.meta.url);
// The back end the tool compiles with (SMOOTH_ENGINE for its process); results of another than js are named after it.
const ENGINE = process.argv.includes("--engine") ? process.argv[process.argv.indexOf("--engine") + 1] : "js";
const BASE = ENGINE === "js" ? "gradbench" : `gradbench-${ENGINE}`;

function options(argv) {
  const value = (flag, fallback) => {
    const i = argv.indexOf(flag);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
  };
  const quick = argv.includes("--quick");
  return {
    quick,
    only: value("--only", undefined)?.split(","),
    minRuns: Number(value("--min-runs", quick ? 3 : 1)),
    minSeconds: Number(value("--min-seconds", quick ? 0.3 : 1)),
    warmup: Number(value("--warmup", 2)),
    timeoutMs: 1000 * Number(value("--timeout", 600)),
  };
}

/** One tool process: send a message, get the response with its id. */
class Tool {
  constructor() {
    this.next = 0;
    this.pending = new Map();
    this.child = spawn(process.execPath, [TOOL], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, SMOOTH_ENGINE: ENGINE },
    });
    this.stderr = "";
    this.child.stderr.on("data", (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const response = JSON.parse(line);
      this.pending.get(response.id)?.resolve(response);
      this.pending.delete(response.id);
    });
    this.child.on("exit", (code, signal) => {
      for (const p of this.pending.values())
        p.reject(new Error(`the tool exited (${signal ?? code}): ${this.stderr.trim().split("\n").at(-1) ?? ""}`));
      this.pending.clear();
    });
  }

  send(message, timeoutMs) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no response within ${timeoutMs / 1000} s`));
        this.child.kill();
      }, timeoutMs);
      const done = (f) => (x) => (clearTimeout(timer), f(x));
      this.pending.set(id, { resolve: done(resolve), reject: done(reject) });
      this.child.stdin.write(JSON.stringify({ id, ...message }) + "\n");
    });
  }

  close() {
    this.child.stdin.end();
    return new Promise((resolve) => (this.child.exitCode !== null ? resolve() : this.child.on("exit", resolve)));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Runs one function of the defined module, after `opts.warmup` untimed runs (the JIT compiles the generated code during
 * the first runs; the table is about the code it settles on); returns { medianMs, minMs, runs } or { error }.
 */
async function evaluate(tool, module, fn, input, opts) {
  const runs = (minRuns, minSeconds) =>
    typeof input === "object" && input !== null ? { ...input, min_runs: minRuns, min_seconds: minSeconds } : input;
  try {
    if (opts.warmup > 0) {
      const w = await tool.send(
        { kind: "evaluate", module, function: fn, input: runs(opts.warmup, 0) },
        opts.timeoutMs,
      );
      if (!w.success) return { error: w.error };
    }
    const r = await tool.send(
      { kind: "evaluate", module, function: fn, input: runs(opts.minRuns, opts.minSeconds) },
      opts.timeoutMs,
    );
    if (!r.success) return { error: r.error };
    const ms = r.timings.filter((t) => t.name === "evaluate").map((t) => t.nanoseconds / 1e6);
    // Fast functions run hundreds of thousands of times in a second: no spreading into Math.min.
    return { medianMs: median(ms), minMs: ms.reduce((a, b) => Math.min(a, b), Infinity), runs: ms.length };
  } catch (e) {
    return { error: e.message };
  }
}

async function run(opts) {
  const all = workloads().filter((w) => (!opts.quick || w.quick) && (!opts.only || opts.only.includes(w.eval)));
  const evals = [...new Set(all.map((w) => w.eval))];
  const calls = all.reduce((n, w) => n + w.derivatives.length + (w.primal ? 1 : 0), 0);
  const bar = new cliProgress.SingleBar(
    { format: "gradbench [{bar}] {value}/{total} | {eta_formatted} left | {task}", hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(calls, 0, { task: "" });
  const rows = [];
  for (const name of evals) {
    let tool;
    let defined;
    const restart = async () => {
      if (tool) tool.child.kill();
      tool = new Tool();
      await tool.send({ kind: "start", eval: name }, opts.timeoutMs);
      defined = await tool.send({ kind: "define", module: name }, opts.timeoutMs);
    };
    await restart().catch((e) => (defined = { success: false, error: e.message }));
    const mine = all.filter((x) => x.eval === name);
    if (!defined.success) {
      // One row for the whole eval: the tool does not have it (yet).
      rows.push({
        eval: name,
        workload: `all ${mine.length}`,
        derivative: mine[0].derivatives.join(", "),
        error: `define failed: ${defined.error ?? ""}`,
      });
      bar.increment(
        mine.reduce((n, w) => n + w.derivatives.length + (w.primal ? 1 : 0), 0),
        { task: `${name}: not defined` },
      );
      await tool?.close();
      continue;
    }
    for (const w of mine) {
      const fns = [...(w.primal ? [w.primal] : []), ...w.derivatives];
      const input = w.input();
      const results = {};
      for (const fn of fns) {
        bar.update({ task: `${name} ${w.name} ${fn}` });
        results[fn] = await evaluate(tool, name, fn, input, opts);
        bar.increment();
        // A tool that died or hung is replaced for the next call.
        if (tool.child.exitCode !== null || tool.child.killed) await restart().catch(() => {});
      }
      const primal = w.primal ? results[w.primal] : undefined;
      for (const d of w.derivatives) {
        const derivative = results[d];
        const error = primal?.error ?? derivative.error;
        // The ratio of the fastest runs: other processes on the machine slow some runs down, never speed one up.
        const ratio = primal && !error ? derivative.minMs / primal.minMs : undefined;
        const medianRatio = primal && !error ? derivative.medianMs / primal.medianMs : undefined;
        rows.push({
          eval: name,
          workload: w.name,
          primalFn: w.primal,
          derivative: d,
          primal,
          derivativeTime: derivative,
          ratio,
          medianRatio,
          ...(error ? { error } : {}),
        });
      }
    }
    await tool?.close();
  }
  bar.stop();
  return rows;
}

const fmt = (ms) => (ms === undefined ? "—" : ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toPrecision(3));

function markdown(rows, opts) {
  const lines = [
    `# GradBench benchmarks (the ${ENGINE} back end)`,
    "",
    `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${opts.quick ? "quick subset" : "default workloads"}, ` +
      `each function run ${opts.warmup} time(s) untimed, then at least ${opts.minRuns} time(s) and ${opts.minSeconds} s; ` +
      "ms per run as the tool times it (JSON and input conversion excluded), the fastest run and the median. " +
      "ratio = derivative / primal of the fastest runs (median ratio: of the medians). " +
      "particle and saddle have no primal function.",
    "",
    "| eval | workload | derivative | primal ms (min / median) | derivative ms (min / median) | ratio | median ratio |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: |",
  ];
  const both = (t) => (t ? `${fmt(t.minMs)} / ${fmt(t.medianMs)}` : "—");
  const fixed = (x) => (x === undefined ? "—" : x.toFixed(2));
  for (const r of rows) {
    const tail = r.error
      ? `— | — | — | ${r.error.split("\n")[0].slice(0, 80)}`
      : `${both(r.primal)} | ${both(r.derivativeTime)} | ${fixed(r.ratio)} | ${fixed(r.medianRatio)}`;
    lines.push(`| ${r.eval} | ${r.workload} | ${r.derivative} | ${tail} |`);
  }
  return lines.join("\n") + "\n";
}

/** A bar per workload with a primal: its ratio on a log scale, drawn from 1 (as fast as the primal); a rule at 3. */
async function chart(rows) {
  // vega and vega-lite draw it: installed on first use into .on-demand/ (not in devDependencies).
  try {
    installOnDemand(["vega", "vega-lite"]);
  } catch (e) {
    process.stderr.write(`could not install vega: ${e.message}\n`);
  }
  const vega = await importOnDemand("vega");
  const vegaLite = await importOnDemand("vega-lite");
  if (!vega || !vegaLite) {
    process.stderr.write(
      `no chart: vega is not installed (install it with \`${installCommand(["vega", "vega-lite"])}\`)\n`,
    );
    return undefined;
  }
  const values = rows
    .filter((r) => r.ratio !== undefined)
    .map((r) => ({ label: `${r.eval} ${r.workload}`, eval: r.eval, ratio: r.ratio }));
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: "Smooth on GradBench: derivative time / primal time",
    width: 520,
    height: { step: 11 },
    data: { values },
    layer: [
      {
        mark: "bar",
        encoding: {
          y: { field: "label", type: "nominal", sort: null, title: null, axis: { labelFontSize: 9, labelLimit: 300 } },
          x: {
            field: "ratio",
            type: "quantitative",
            scale: { type: "log", domain: [0.25, 32], nice: false },
            title: "derivative time / primal time (log scale)",
          },
          x2: { datum: 1 },
          color: { field: "eval", type: "nominal", sort: null, title: "eval" },
        },
      },
      { mark: { type: "rule", strokeDash: [4, 3], color: "#444" }, encoding: { x: { datum: 3 } } },
    ],
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  return view.toSVG();
}

// --report-only: write the table and the chart again from the last gradbench.json, without running anything.
const previous = process.argv.includes("--report-only")
  ? JSON.parse(readFileSync(new URL(`results/${BASE}.json`, import.meta.url), "utf8"))
  : undefined;
const opts = previous?.options ?? options(process.argv.slice(2));
const rows = previous?.rows ?? (await run(opts));
mkdirSync(RESULTS, { recursive: true });
const md = markdown(rows, opts);
writeFileSync(new URL(`${BASE}.md`, RESULTS), md);
if (!previous)
  writeFileSync(
    new URL(`${BASE}.json`, RESULTS),
    JSON.stringify({ node: process.version, date: new Date().toISOString(), options: opts, rows }, null, 1) + "\n",
  );
const svg = await chart(rows);
if (svg !== undefined) writeFileSync(new URL(`${BASE}.svg`, RESULTS), svg);
process.stdout.write(md);
process.stderr.write(`results written to ${fileURLToPath(RESULTS)}\n`);
