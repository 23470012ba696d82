// The playground page: a CodeMirror editor with a Smooth program, the definition and arguments to run, and four
// transforms; the panels show the result, the optimised program that ran (Smooth text), its JavaScript and, for a
// function of Doubles, a plot of f and f'. An error located in the program is marked in the editor at its line.

import { basicSetup, EditorView } from "codemirror";
import { StreamLanguage } from "@codemirror/language";
import { fSharp } from "@codemirror/legacy-modes/mode/mllike";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { definitionNames, evaluate, locate, type Transform } from "./compute.js";
import { EXAMPLES, type Example } from "./examples.js";
import { drawCurve } from "./plot.js";

const byId = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
};

const exampleMenu = byId<HTMLSelectElement>("example");
const fnMenu = byId<HTMLSelectElement>("fn");
const argsInput = byId<HTMLInputElement>("args");
const wrtInput = byId<HTMLInputElement>("wrt");
const status = byId("status");
const result = byId("result");
const program = byId("program");
const javascript = byId("javascript");
const errorBox = byId("error");
const plotPanel = byId("plot-panel");
const canvas = byId<HTMLCanvasElement>("plot");

const editor = new EditorView({
  parent: byId("editor"),
  extensions: [
    basicSetup,
    StreamLanguage.define(fSharp),
    lintGutter(),
    EditorView.lineWrapping,
    EditorView.updateListener.of(onEdit),
  ],
});

let lastTransform: Transform = "gradient";

function onEdit(update: { docChanged: boolean }): void {
  if (update.docChanged) refreshDefinitions();
}

/** The function menu lists the program's definitions (kept as they are while the program does not check). */
function refreshDefinitions(keep = fnMenu.value): void {
  const names = definitionNames(editor.state.doc.toString());
  if (names.length === 0) return;
  fnMenu.replaceChildren(...names.map((n) => new Option(n, n)));
  fnMenu.value = names.includes(keep) ? keep : names[names.length - 1]!;
}

function load(example: Example): void {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: example.source } });
  refreshDefinitions(example.fn);
  argsInput.value = example.args;
  wrtInput.value = example.wrt;
  run(example.transform);
}

function run(transform: Transform): void {
  lastTransform = transform;
  const source = editor.state.doc.toString();
  document.querySelectorAll<HTMLButtonElement>("button[data-transform]").forEach((b) => {
    b.classList.toggle("active", b.dataset.transform === transform);
  });
  const started = performance.now();
  try {
    const out = evaluate({ source, fn: fnMenu.value, args: argsInput.value, transform, wrt: wrtInput.value });
    editor.dispatch(setDiagnostics(editor.state, []));
    errorBox.hidden = true;
    result.textContent = out.result;
    program.textContent = out.program;
    javascript.textContent = out.javascript;
    plotPanel.hidden = out.curve === undefined;
    if (out.curve) drawCurve(canvas, out.curve);
    status.textContent = `${transform} of ${fnMenu.value}: ${(performance.now() - started).toFixed(0)} ms, compiled in the page`;
    document.body.dataset.state = "done";
  } catch (e) {
    const where = locate(e, source);
    errorBox.hidden = false;
    errorBox.textContent = where.message;
    result.textContent = program.textContent = javascript.textContent = "";
    plotPanel.hidden = true;
    const marks =
      where.from === undefined
        ? []
        : [
            {
              from: where.from,
              to: Math.min(where.to!, source.length),
              severity: "error" as const,
              message: where.message,
            },
          ];
    editor.dispatch(setDiagnostics(editor.state, marks));
    status.textContent = where.line === undefined ? "error" : `error at line ${where.line}`;
    errorBox.dataset.line = where.line === undefined ? "" : String(where.line);
    document.body.dataset.state = "error";
  }
}

exampleMenu.replaceChildren(...EXAMPLES.map((ex, i) => new Option(ex.title, String(i))));
exampleMenu.addEventListener("change", () => load(EXAMPLES[Number(exampleMenu.value)]!));
document.querySelectorAll<HTMLButtonElement>("button[data-transform]").forEach((b) => {
  b.addEventListener("click", () => run(b.dataset.transform as Transform));
});
for (const input of [argsInput, wrtInput])
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") run(lastTransform);
  });
load(EXAMPLES[0]!);
