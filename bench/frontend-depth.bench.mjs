// Front-end stages against program size and nesting depth (issue 15 item 1): for generated programs of n lets, n
// chained definitions and n levels of nesting (parentheses, operator chains, else-if chains), the time of each stage
// on its own — parse, print and parse back, check, lower — within Node's default stack. Run with
// `npm run bench:frontend` (builds first); writes bench/results/frontend-depth.md.

import { mkdirSync, writeFileSync } from "node:fs";
import { preludeFile } from "../dist/api/program.js";
import { lowerEntry } from "../dist/ir/lower.js";
import { parseProgram } from "../dist/syntax/parser.js";
import { printProgram } from "../dist/syntax/printer.js";
import { checkProgram } from "../dist/types/infer.js";
import { DOUBLE } from "../dist/types/types.js";

const SIZES = (process.env.SIZES ?? "1000,10000,100000").split(",").map(Number);

const fn = "let main = fun (x: Double) ->";
export const programs = {
  "lets (layout)": (n) => [
    fn,
    "  let a0 = x",
    ...seq(1, n, (i) => `  let a${i} = a${i - 1} * 0.5 + ${i}.`),
    `  a${n - 1}`,
  ],
  "lets (in)": (n) => [
    `${fn} let a0 = x in`,
    ...seq(1, n, (i) => `  let a${i} = a${i - 1} * 0.5 + ${i}. in`),
    `  a${n - 1}`,
  ],
  "definitions (chained)": (n) => [
    "let d0 = fun (x: Double) -> x",
    ...seq(1, n, (i) => `let d${i} = fun (x: Double) -> d${i - 1} x + 1.`),
    `let main = fun (x: Double) -> d${n - 1} x`,
  ],
  "sum x + x + ... + x": (n) => [`${fn} ${Array(n).fill("x").join(" + ")}`],
  "parentheses (((x)))": (n) => [`${fn} ${"(".repeat(n)}x + 1.${")".repeat(n)}`],
  "parentheses x + (x + (...))": (n) => [`${fn} ${"x + (".repeat(n - 1)}x${")".repeat(n - 1)}`],
  "parentheses ((x + 1.) + 1.)": (n) => [`${fn} ${"(".repeat(n)}x${" + 1.)".repeat(n)}`],
  "power x ** x ** ... ** x": (n) => [`${fn} ${Array(n).fill("x").join(" ** ")}`],
  "negations - - ... - x": (n) => [`${fn} ${"- ".repeat(n)}x`],
  "applications f (f (... x))": (n) => [
    "let f = fun (x: Double) -> x + 1.",
    `${fn} ${"f (".repeat(n)}x${")".repeat(n)}`,
  ],
  "else-if chain": (n) => [
    fn,
    ...seq(1, n + 1, (i) => `  ${i === 1 ? "" : "else "}if x < ${i}. then x * ${i}.`),
    "  else x",
  ],
  "nested if in then": (n) => [
    fn,
    ...seq(1, n + 1, (i) => `  if x < ${i}. then`),
    "  x",
    ...seq(1, n + 1, () => "  else 0."),
  ],
  "nested lets in values": (n) => [`${fn} ${"let y = ".repeat(n)}x${" in y".repeat(n)}`],
};

function seq(from, to, f) {
  const out = [];
  for (let i = from; i < to; i++) out.push(f(i));
  return out;
}

const prelude = parseProgram(preludeFile());

function time(f) {
  const t0 = performance.now();
  const value = f();
  return { value, ms: performance.now() - t0 };
}

function stages(text) {
  const cells = {};
  let ast, checked;
  const step = (name, f) => {
    try {
      const { value, ms } = time(f);
      cells[name] = ms.toFixed(ms < 10 ? 1 : 0);
      return value;
    } catch (e) {
      const message = e instanceof Error ? `${e.constructor.name}: ${e.message.split("\n")[0]}` : String(e);
      cells[name] = /call stack/.test(message) ? "stack" : "error";
      cells.error = message.slice(0, 120);
      return undefined;
    }
  };
  ast = step("parse", () => parseProgram({ name: "deep.smooth", text }));
  if (ast) step("print+reparse", () => parseProgram({ name: "printed.smooth", text: printProgram(ast) }));
  if (ast) checked = step("check", () => checkProgram([prelude, ast]));
  if (checked) step("lower", () => lowerEntry(checked, "main", [DOUBLE]));
  return cells;
}

const rows = [];
const only = process.env.ONLY;
for (const [kind, make] of Object.entries(programs)) {
  if (only && !kind.includes(only)) continue;
  for (const n of SIZES) {
    const cells = stages(make(n).join("\n"));
    rows.push({ kind, n, ...cells });
    console.log(
      `${kind.padEnd(30)} n=${String(n).padEnd(7)} ${["parse", "print+reparse", "check", "lower"].map((s) => `${s} ${cells[s] ?? "-"}`).join("  ")}${cells.error ? `  (${cells.error})` : ""}`,
    );
  }
}

if (!only) {
  const md = [
    "| program | n | parse | print + reparse | check | lower |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.kind} | ${r.n} | ${r.parse ?? "-"} | ${r["print+reparse"] ?? "-"} | ${r.check ?? "-"} | ${r.lower ?? "-"} |`,
    ),
  ];
  const out = new URL("./results/", import.meta.url);
  mkdirSync(out, { recursive: true });
  writeFileSync(
    new URL("frontend-depth.md", out),
    `Front-end stages, ms (one run each), default stack\n\n${md.join("\n")}\n`,
  );
}
