// Front-end stages against program size and nesting depth (issue 15 item 1): for generated programs of n lets, n
// chained definitions and n levels of nesting (parentheses, operator chains, else-if chains, ...), the time of each
// stage on its own — parse, print and parse back, check, lower — within Node's default stack; the same for
// TypeScript functions of n statements (TypeScript's parse, translation with checking, lowering) and for reading
// arguments nested n deep. One run per cell (a cell is a stage at one size: the growth from 10³ to 10⁵ is what is
// measured, so a loaded machine shifts the rows, not their shape). Run with `npm run bench:frontend` (builds first);
// writes bench/results/frontend-depth.md. SIZES=1000,10000 and ONLY=<part of a row's name> narrow it.

import { mkdirSync, writeFileSync } from "node:fs";
import { preludeFile } from "../dist/api/program.js";
import { lowerEntry } from "../dist/ir/lower.js";
import { valueFromJson } from "../dist/runtime/json.js";
import { parseProgram } from "../dist/syntax/parser.js";
import { printProgram } from "../dist/syntax/printer.js";
import { parseModule } from "../dist/tsfront/source.js";
import { translateFunction } from "../dist/tsfront/program.js";
import { T_DOUBLE } from "../dist/tsfront/ts-types.js";
import { checkProgram } from "../dist/types/infer.js";
import { arrayOf, DOUBLE } from "../dist/types/types.js";

const SIZES = (process.env.SIZES ?? "1000,10000,100000").split(",").map(Number);
const ONLY = process.env.ONLY;

const seq = (from, to, f) => Array.from({ length: to - from }, (_, k) => f(from + k));
const fn = "let main = fun (x: Double) ->";

/** Smooth programs of size n: name -> [lines, the largest n to run]. */
const smooth = {
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
  "definitions (chained, polymorphic)": (n) => [
    "let d0 = fun x -> x",
    ...seq(1, n, (i) => `let d${i} = fun x -> d${i - 1} x + 1`),
    `let main = fun (x: Double) -> d${n - 1} x`,
  ],
  "sum x + x + ... + x": (n) => [`${fn} ${Array(n).fill("x").join(" + ")}`],
  "parentheses (((x + 1.)))": (n) => [`${fn} ${"(".repeat(n)}x + 1.${")".repeat(n)}`],
  "parentheses ((x + 1.) + 1.)": (n) => [`${fn} ${"(".repeat(n)}x${" + 1.)".repeat(n)}`],
  "parentheses x + (x + (...))": (n) => [`${fn} ${"x + (".repeat(n - 1)}x${")".repeat(n - 1)}`],
  "power x ** x ** ... ** x": (n) => [`${fn} ${Array(n).fill("x").join(" ** ")}`],
  "negations - - ... - x": (n) => [`${fn} ${"- ".repeat(n)}x`],
  "applications f (f (... x))": (n) => [
    "let f = fun (y: Double) -> y + 1.",
    `${fn} ${"f (".repeat(n)}x${")".repeat(n)}`,
  ],
  "lets in let values": (n) => [`${fn} ${"let y = ".repeat(n)}x${" in y".repeat(n)}`],
  "else-if chain": (n) => [
    fn,
    ...seq(1, n + 1, (i) => `  ${i === 1 ? "" : "else "}if x < ${i}. then x * ${i}.`),
    "  else x",
  ],
  // These two print with each level indented further: the text itself is quadratic in n (5·10⁷ characters at
  // n = 10⁴), so they stop at 10⁴ (SMOOTH_MAX).
  "if nested in then": (n) => [
    fn,
    ...seq(1, n + 1, (i) => `  if x < ${i}. then`),
    "  x",
    ...seq(1, n + 1, () => "  else 0."),
  ],
};
const SMOOTH_MAX = { "if nested in then": 10_000, "lets in let values": 10_000 };

/** TypeScript function bodies of n statements (or terms). */
const typescript = {
  "TS: const declarations": (n) => [
    ...seq(0, n, (i) => `  const a${i + 1} = a${i} + Math.sin(a${i}) * 0.0001;`),
    `  return a${n};`,
  ],
  "TS: if statements": (n) => ["  let a = a0;", ...seq(0, n, (i) => `  if (a > ${i}) { a = a + 1; }`), "  return a;"],
  "TS: for loops": (n) => ["  let a = a0;", ...seq(0, n, () => `  for (let i = 0; i < 2; i++) a += i;`), "  return a;"],
  "TS: sum of terms": (n) => [`  return ${seq(0, n, (i) => (i % 2 === 0 ? "a0" : "1")).join(" + ")};`],
};
const TYPESCRIPT_MAX = 10_000;

const prelude = parseProgram(preludeFile());

let rows = [];
function row(kind, n, stages, quiet = false) {
  const cells = {};
  let input;
  for (const [stage, run] of stages) {
    try {
      const t0 = performance.now();
      input = run(input);
      const ms = performance.now() - t0;
      cells[stage] = ms.toFixed(ms < 10 ? 1 : 0);
    } catch (e) {
      const message = e instanceof Error ? `${e.constructor.name}: ${e.message.split("\n")[0]}` : String(e);
      cells[stage] = /call stack/.test(message) ? "stack" : "error";
      cells.error = message.slice(0, 120);
      break;
    }
  }
  rows.push({ kind, n, cells });
  if (quiet) return;
  console.log(
    `${kind.padEnd(36)} n=${String(n).padEnd(7)} ${Object.entries(cells)
      .filter(([k]) => k !== "error")
      .map(([k, v]) => `${k} ${v}`)
      .join("  ")}${cells.error ? `  (${cells.error})` : ""}`,
  );
}

function smoothRow(kind, n, quiet) {
  const text = smooth[kind](n).join("\n");
  let ast;
  row(
    kind,
    n,
    [
      ["parse", () => (ast = parseProgram({ name: "deep.smooth", text }))],
      ["print + parse", () => parseProgram({ name: "printed.smooth", text: printProgram(ast) }) && ast],
      ["check", () => checkProgram([prelude, ast])],
      ["lower", (checked) => lowerEntry(checked, "main", [DOUBLE])],
    ],
    quiet,
  );
}

// Warm-up (small sizes, not reported), so that the first rows do not include compiling the compiler.
for (const kind of Object.keys(smooth)) smoothRow(kind, 300, true);
rows = [];

for (const kind of Object.keys(smooth)) {
  if (ONLY && !kind.includes(ONLY)) continue;
  for (const n of SIZES.filter((n) => n <= (SMOOTH_MAX[kind] ?? Infinity))) smoothRow(kind, n, false);
}

for (const [kind, make] of Object.entries(typescript)) {
  if (ONLY && !kind.includes(ONLY)) continue;
  for (const n of SIZES.filter((n) => n <= TYPESCRIPT_MAX)) {
    const text = ["export function g(a0: number): number {", ...make(n), "}"].join("\n");
    row(kind, n, [
      ["parse", () => parseModule({ name: "g.ts", text })],
      ["translate + check", (m) => translateFunction(m.functions.get("g"), [T_DOUBLE])],
      ["lower", ({ program, name }) => lowerEntry(program.checked, name, [DOUBLE])],
    ]);
  }
}

if (!ONLY || "arguments".includes(ONLY)) {
  for (const n of SIZES) {
    const json = "[".repeat(n) + "1" + "]".repeat(n);
    row("arguments nested n deep (an error)", n, [
      ["parse", () => JSON.parse(json)],
      [
        "read",
        (value) => {
          try {
            valueFromJson(value, arrayOf(DOUBLE), "x");
          } catch (e) {
            if (e?.kind === "argument") return undefined;
            throw e;
          }
          throw new Error("accepted");
        },
      ],
    ]);
  }
}

if (!ONLY) {
  const stages = ["parse", "print + parse", "check", "translate + check", "read", "lower"];
  const md = [
    `| program | n | ${stages.join(" | ")} |`,
    `| --- | ---: | ${stages.map(() => "---:").join(" | ")} |`,
    ...rows.map((r) => `| ${r.kind} | ${r.n} | ${stages.map((s) => r.cells[s] ?? "").join(" | ")} |`),
  ];
  const failures = rows.filter((r) => r.cells.error).map((r) => `- ${r.kind}, n = ${r.n}: ${r.cells.error}`);
  const out = new URL("./results/", import.meta.url);
  mkdirSync(out, { recursive: true });
  writeFileSync(
    new URL("frontend-depth.md", out),
    "Front-end stages (ms, one run each) against program size, within Node's default stack\n\n" +
      `${md.join("\n")}\n${failures.length ? `\nFailures:\n${failures.join("\n")}\n` : ""}`,
  );
}
