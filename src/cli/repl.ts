// `smooth repl [FILE]`: an interactive loop. A line starting with `let` adds a definition (later ones shadow earlier
// ones, as in a file); any other line is an expression, evaluated and printed with its type. Commands: `:type E`,
// `:grad F [ARGS]`, `:show F [--grad|--jacobian|--hessian]`, `:defs`, `:load FILE`, `:help`, `:quit`. Input that
// ends in the middle of a definition or expression continues on the next line (prompt `...`; an empty line ends it).
// Errors are printed as the CLI prints them and the loop goes on. Reads stdin to its end, so it can be driven by a
// pipe.

import { createInterface } from "node:readline";
import { loadProgram, type SmoothProgram } from "../api/program.js";
import { printIr } from "../ir/print.js";
import { fail, SmoothError } from "../syntax/diagnostics.js";
import { readSource } from "./files.js";
import { showDefinitionType } from "../types/infer.js";
import { TypeNamer } from "../types/mtype.js";
import { gradJson, showDerivative } from "./derivative-commands.js";
import { parseArgumentsJson } from "../runtime/json.js";
import type { DerivativeOptions } from "./derivative-options.js";
import { argTypesFor } from "./commands.js";

const HELP = `Enter a definition (let f = fun x -> ...), or an expression to evaluate. Commands:
  :type E                        the type of an expression or a definition
  :grad F [JSON]                 value and gradient of F at the arguments (a JSON array), as \`smooth grad\`
  :show F [--grad|--jacobian|--hessian]   F (or its derivative program) after optimisation
  :defs                          the session's definitions and their types
  :load FILE                     add the definitions of a file
  :help, :quit`;

/** The name an expression is bound to while it is evaluated. */
const IT = "it";

class Session {
  private readonly defs: string[] = [];

  constructor(private readonly out: (s: string) => void) {}

  private program(extra?: string): SmoothProgram {
    const text = [...this.defs, ...(extra === undefined ? [] : [extra])].join("\n\n");
    return loadProgram({ name: "<repl>", text });
  }

  /** Adds definitions (checked first: a definition with an error is not kept) and prints their types. */
  define(text: string): void {
    const before = this.program().userDefs.length;
    const prog = this.program(text);
    this.defs.push(text);
    for (const d of prog.userDefs.slice(before)) this.out(showDefinitionType(d));
  }

  evaluate(expr: string): void {
    const prog = this.program(`let ${IT} = ${expr}`);
    const def = prog.userDefs[prog.userDefs.length - 1]!;
    const type = new TypeNamer().showScheme(def.scheme.type);
    if (def.scheme.type.k === "fun") return this.out(`<function> : ${type}`);
    this.out(`${JSON.stringify(prog.runJson(IT, []))} : ${type}`);
  }

  type(expr: string): void {
    const prog = this.program(/^[A-Za-z_][\w']*$/.test(expr) ? undefined : `let ${IT} = ${expr}`);
    const def = /^[A-Za-z_][\w']*$/.test(expr) ? prog.definition(expr) : prog.userDefs[prog.userDefs.length - 1]!;
    this.out(new TypeNamer().showScheme(def.scheme.type));
  }

  grad(rest: string): void {
    const [fn, ...json] = rest.split(/\s+/);
    if (!fn) fail("argument", "usage: :grad F [JSON arguments]");
    const argsText = json.join(" ") || "[]";
    const args = parseArgumentsJson(argsText, "the arguments");
    this.out(JSON.stringify(gradJson(this.program(), this.options(fn), args, "js")));
  }

  show(rest: string): void {
    const [fn, flag, ...more] = rest.split(/\s+/);
    if (!fn || more.length > 0) fail("argument", "usage: :show F [--grad|--jacobian|--hessian]");
    const prog = this.program();
    const argTypes = argTypesFor(prog, fn, undefined);
    if (flag === undefined) return this.out(printIr(prog.specialise(fn, argTypes, "interp").optimised));
    const view = { "--grad": "grad", "--jacobian": "jacobian", "--hessian": "hessian" } as const;
    const chosen = view[flag as keyof typeof view];
    if (!chosen)
      fail("argument", `unknown :show option ${flag}`, undefined, { expected: "--grad, --jacobian or --hessian" });
    this.out(showDerivative(prog, this.options(fn), argTypes, undefined, chosen));
  }

  list(): void {
    for (const d of this.program().userDefs) this.out(showDefinitionType(d));
  }

  load(path: string): void {
    this.define(readSource(path).text);
  }

  private options(fn: string): DerivativeOptions {
    return { fn, engine: "js", prelude: true };
  }
}

/** Whether `text` stops in the middle of a definition or expression (a syntax error at its very end). */
function incomplete(text: string, run: () => void): boolean {
  try {
    run();
    return false;
  } catch (e) {
    if (!(e instanceof SmoothError) || e.kind !== "syntax") throw e;
    if (e.details.found === "end of input" || (e.span && e.span.start >= e.span.file.text.trimEnd().length))
      return true;
    throw e;
  }
}

export async function repl(file: string | undefined): Promise<void> {
  // A file that cannot be read ends the command (exit code 1), before standard input is opened; errors in it are
  // reported as in the session.
  const start = file === undefined ? undefined : readSource(file).text;
  const out = (s: string) => void process.stdout.write(s + "\n");
  const session = new Session(out);
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    output: interactive ? process.stdout : undefined,
    terminal: interactive,
  });
  const prompt = (p: string) => {
    if (!interactive) return;
    rl.setPrompt(p);
    rl.prompt();
  };
  const report = (e: unknown) => {
    if (!(e instanceof SmoothError)) throw e;
    process.stdout.write(e.message + "\n");
  };
  if (interactive) out("Smooth REPL: :help for commands, :quit to leave");
  if (start !== undefined) {
    try {
      session.define(start);
    } catch (e) {
      report(e);
    }
  }
  let pending = "";
  /** Runs one input; with `more`, input that stops mid-definition waits for the next line instead of failing. */
  const submit = (text: string, more: boolean) => {
    try {
      if (text === "") return;
      if (text === ":help") return out(HELP);
      if (text === ":defs") return session.list();
      if (text.startsWith(":type ")) return session.type(text.slice(6).trim());
      if (text.startsWith(":grad ")) return session.grad(text.slice(6).trim());
      if (text.startsWith(":show ")) return session.show(text.slice(6).trim());
      if (text.startsWith(":load ")) return session.load(text.slice(6).trim());
      if (text.startsWith(":")) fail("argument", `unknown command ${text.split(/\s/)[0]}`, undefined, { hint: HELP });
      const definition = /^let\b/.test(text) && !/\bin\b/.test(text.split("\n")[0]!);
      const run = () => (definition ? session.define(text) : session.evaluate(text));
      if (!more) return run();
      if (incomplete(text, run)) pending = text;
    } catch (e) {
      report(e);
    }
  };
  prompt("smooth> ");
  for await (const line of rl) {
    const command = line.trim();
    if (pending !== "" && (command === "" || command.startsWith(":"))) {
      // An empty line or a command ends a continued input: it is run as it is (and reports what is missing).
      const text = pending;
      pending = "";
      submit(text, false);
    }
    if (command === ":quit" || command === ":q") break;
    if (pending !== "") {
      const text = `${pending}\n${line}`;
      pending = "";
      submit(text, true);
    } else submit(command, true);
    prompt(pending === "" ? "smooth> " : "...     ");
  }
  if (pending !== "") submit(pending, false);
  rl.close();
}
