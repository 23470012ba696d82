// The playground page: two tabs, a Smooth program or plain TypeScript functions, in a CodeMirror editor; the
// definition and arguments to run (defaulted from the chosen function's parameters), and four transforms; the panels
// show the result labelled by parameter, the optimised program that ran (Smooth text), its JavaScript and, for a
// function of Doubles, a plot of f and f'. An error located in the program is marked in the editor at its line.

import { basicSetup, EditorView } from "codemirror";
import { Compartment } from "@codemirror/state";
import { StreamLanguage } from "@codemirror/language";
import { typescript } from "@codemirror/legacy-modes/mode/javascript";
import { fSharp } from "@codemirror/legacy-modes/mode/mllike";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { definitionNames, evaluate, locate, type Transform } from "./compute.js";
import { EXAMPLES, type Example } from "./examples.js";
import { drawCurve } from "./plot.js";
import { defaultsFor, parametersOf, type Language } from "./signature.js";

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

const MODES = { smooth: StreamLanguage.define(fSharp), typescript: StreamLanguage.define(typescript) };
const mode = new Compartment();
let language: Language = "smooth";

const editor = new EditorView({
  parent: byId("editor"),
  extensions: [
    basicSetup,
    mode.of(MODES.smooth),
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
  const names = definitionNames(editor.state.doc.toString(), language);
  if (names.length === 0) return;
  fnMenu.replaceChildren(...names.map((n) => new Option(n, n)));
  fnMenu.value = names.includes(keep) ? keep : names[names.length - 1]!;
}

/** Arguments and "with respect to" made from the chosen function's parameter types, where each has an example. */
function fillDefaults(): void {
  const params = parametersOf(editor.state.doc.toString(), language, fnMenu.value);
  const defaults = params && defaultsFor(params);
  if (!defaults) return;
  argsInput.value = defaults.args;
  wrtInput.value = defaults.wrt;
}

/** The examples of the current language, in the example menu; the first is loaded. */
function showLanguage(next: Language): void {
  language = next;
  document.querySelectorAll<HTMLButtonElement>("button[data-language]").forEach((b) => {
    b.classList.toggle("active", b.dataset.language === next);
  });
  editor.dispatch({ effects: mode.reconfigure(MODES[next]) });
  const shown = EXAMPLES.flatMap((ex, i) => (ex.language === next ? [new Option(ex.title, String(i))] : []));
  exampleMenu.replaceChildren(...shown);
  load(EXAMPLES[Number(shown[0]!.value)]!);
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
    const out = evaluate({ language, source, fn: fnMenu.value, args: argsInput.value, transform, wrt: wrtInput.value });
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

exampleMenu.addEventListener("change", () => load(EXAMPLES[Number(exampleMenu.value)]!));
fnMenu.addEventListener("change", () => {
  fillDefaults();
  run(lastTransform);
});
document.querySelectorAll<HTMLButtonElement>("button[data-language]").forEach((b) => {
  b.addEventListener("click", () => showLanguage(b.dataset.language as Language));
});
document.querySelectorAll<HTMLButtonElement>("button[data-transform]").forEach((b) => {
  b.addEventListener("click", () => run(b.dataset.transform as Transform));
});
for (const input of [argsInput, wrtInput])
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") run(lastTransform);
  });
showLanguage("smooth");
