// The subcommands of `smooth`: run, check, show, compile, dev, gradbench.

import type { Command } from "commander";
import { loadProgram, preludeFile, type SmoothProgram } from "../api/program.js";
import { DEFAULT_ENGINE, describeEngines, parseEngine } from "../backends/registry.js";
import { describeParam } from "../api/entry-types.js";
import { printIr } from "../ir/print.js";
import { checkInterfaceName, declarations, interfaceName } from "../library/dts.js";
import {
  derivativeForDev,
  gradJson,
  hessianJson,
  jacobianJson,
  registerDerivativeCommands,
  showDerivative,
} from "./derivative-commands.js";
import { MODE_HELP, parseMode, type DerivativeOptions } from "./derivative-options.js";
import { writeAotModule, type ModuleOptions } from "./module-command.js";
import { readSource, writeOutput } from "./files.js";
import { devTimings } from "./timings.js";
import {
  derivativeTypeScript,
  isTypeScriptFile,
  loadTypeScript,
  runTypeScript,
  typeScriptBackend,
} from "./ts-commands.js";
import type { BackendOption } from "../library/backend-option.js";
import { DERIVATIVE_PIPELINE, PASSES, pipelineFromNames, STANDARD_PIPELINE } from "../opt/pipeline.js";
import { runPipeline } from "../opt/pass.js";
import { simplifyPass } from "../opt/simplify.js";
import { optimisePass } from "../opt/strategy.js";
import { lowerEntry } from "../ir/lower.js";
import { parseArgumentsJson, valueFromJson, valueToJson } from "../runtime/json.js";
import { fail } from "../syntax/diagnostics.js";
import { checkThreads, setWasmThreads } from "../wasm/parallel-run.js";
import { showDefinitionType } from "../types/infer.js";
import { concretize, prune } from "../types/mtype.js";
import type { Type } from "../types/types.js";

const TS_EXPLAIN_HINT = "the library's inspect(f, ...args) shows what a TypeScript function compiles to";

/** The back end of a command on a TypeScript file (--no-prelude, which applies to Smooth files only, refused). */
function typeScriptOptions(o: { engine: string; prelude: boolean }): BackendOption {
  if (!o.prelude) fail("argument", "--no-prelude applies to Smooth files");
  return typeScriptBackend(o.engine);
}

/** The prelude file itself is loaded without a second copy of the prelude. FILE is read once (it may be a pipe). */
function load(path: string, prelude: boolean): SmoothProgram {
  if (isTypeScriptFile(path))
    fail("argument", `${path} is a TypeScript or JavaScript file; this command reads Smooth source`, undefined, {
      hint: "run, grad, jacobian and hessian read TypeScript functions too",
    });
  const source = readSource(path);
  const isPrelude = source.text === preludeFile().text;
  return loadProgram(source, { prelude: prelude && !isPrelude });
}

function parseArgs(opts: { args?: string; argsFile?: string }): unknown[] | undefined {
  let text: string | undefined;
  let where = "--args";
  if (opts.args !== undefined && opts.argsFile !== undefined)
    fail("argument", "give either --args or --args-file, not both");
  if (opts.args !== undefined) text = opts.args;
  if (opts.argsFile !== undefined) {
    text = readSource(opts.argsFile).text;
    where = opts.argsFile;
  }
  if (text === undefined) return undefined;
  return parseArgumentsJson(text, where);
}

/** Argument types from --args when given, else from the definition's type with unknown types taken as Double. */
export function argTypesFor(prog: SmoothProgram, name: string, args: unknown[] | undefined): Type[] {
  if (args) return prog.argTypesFromJson(name, args);
  const types: Type[] = [];
  for (let t = prune(prog.definition(name).scheme.type); t.k === "fun"; t = prune(t.result))
    types.push(concretize(t.param, new Map()));
  return types;
}

interface DevOptions {
  passes?: string;
  derivative?: boolean;
  timings?: boolean;
}

interface CommonOptions {
  fn: string;
  args?: string;
  argsFile?: string;
  engine: string;
  prelude: boolean;
}

/** The number of threads `--threads` gives, or an argument error. */
function parseThreads(text: string): number {
  try {
    return checkThreads(/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
  } catch (e) {
    return fail("argument", `--threads: ${(e as Error).message.replace(/NaN$/, `\`${text}\``)}`, undefined, {
      expected: "a whole number of threads, 1 or more",
      found: text,
    });
  }
}

export function registerCommands(program: Command): void {
  // Before any command: how many threads the wasm back end's large loops may use (default SMOOTH_THREADS, else the
  // machine's cores).
  program
    .option("--threads <n>", "threads the wasm back end may run large loops on (default: SMOOTH_THREADS, or the cores)")
    .hook("preAction", (root) => {
      const threads = root.opts<{ threads?: string }>().threads;
      if (threads !== undefined) setWasmThreads(parseThreads(threads));
    });
  const withEntry = (c: Command) =>
    c
      .option("--fn <name>", "the definition to use", "main")
      .option("--args <json>", "the arguments, as a JSON array")
      .option("--args-file <file>", "read the JSON array of arguments from a file")
      .option("--no-prelude", "do not load the M̃ prelude");

  withEntry(
    program
      .command("run")
      .argument("<file>", "a Smooth source file, or a TypeScript/JavaScript module")
      .description("run a definition and print its result as JSON"),
  )
    .option("--engine <engine>", `back end: ${describeEngines()}`, DEFAULT_ENGINE)
    .option("--explain", "also print the optimised program and the generated JavaScript")
    .action((file: string, o: CommonOptions & { explain?: boolean }) => {
      if (isTypeScriptFile(file)) {
        if (o.explain) fail("argument", "--explain applies to Smooth files", undefined, { hint: TS_EXPLAIN_HINT });
        const backend = typeScriptOptions(o);
        const m = loadTypeScript(file, readSource(file).text);
        process.stdout.write(JSON.stringify(runTypeScript(m, file, o.fn, parseArgs(o) ?? [], backend)) + "\n");
        return;
      }
      const prog = load(file, o.prelude);
      const args = parseArgs(o) ?? [];
      const engine = parseEngine(o.engine);
      const def = prog.definition(o.fn);
      const argTypes = prog.argTypesFromJson(o.fn, args);
      const values = args.map((a, i) => valueFromJson(a, argTypes[i]!, describeParam(def, i)));
      const spec = prog.specialise(o.fn, argTypes, engine);
      const result = valueToJson(spec.run(values), spec.resultType);
      if (o.explain) {
        const js = spec.jsSource ?? prog.specialise(o.fn, argTypes, "js").jsSource!;
        process.stdout.write(`// ${o.fn} after inlining and simplification:\n${printIr(spec.optimised)}\n\n`);
        if (spec.code?.language === "wasm")
          process.stdout.write(`// the ${engine} back end's code:\n${spec.code.text}\n\n`);
        process.stdout.write(`// generated JavaScript:\n${js}\n\n// result:\n`);
      }
      process.stdout.write(JSON.stringify(result) + "\n");
    });

  program
    .command("check")
    .argument("<file>", "a Smooth source file")
    .option("--no-prelude", "do not load the M̃ prelude")
    .description("type-check a file and print the type of every top-level definition")
    .action((file: string, o: { prelude: boolean }) => {
      const prog = load(file, o.prelude);
      for (const d of prog.userDefs) process.stdout.write(showDefinitionType(d) + "\n");
    });

  withEntry(program.command("show").argument("<file>", "a Smooth source file"))
    .description("print a definition (or its derivative program) after optimisation, in Smooth syntax")
    .option("--grad", "print the optimised gradient program instead")
    .option("--jacobian", "print the optimised Jacobian program instead")
    .option("--hessian", "print the optimised Hessian program (forward over reverse) instead")
    .option("--wrt <k>", "with --grad/--jacobian/--hessian: differentiate with respect to argument k only (0-based)")
    .option("--mode <mode>", MODE_HELP.show)
    .action(
      (
        file: string,
        o: CommonOptions & DerivativeOptions & { grad?: boolean; jacobian?: boolean; hessian?: boolean },
      ) => {
        const prog = load(file, o.prelude);
        const args = parseArgs(o);
        const argTypes = argTypesFor(prog, o.fn, args);
        const views = (["grad", "jacobian", "hessian"] as const).filter((v) => o[v]);
        if (views.length > 1) fail("argument", "give one of --grad, --jacobian, --hessian");
        if (views.length === 1) {
          process.stdout.write(showDerivative(prog, o, argTypes, args, views[0]!) + "\n");
          return;
        }
        if (o.mode !== undefined || o.wrt !== undefined)
          fail("argument", "--mode and --wrt apply to --grad, --jacobian and --hessian");
        const spec = prog.specialise(o.fn, argTypes, "interp");
        process.stdout.write(printIr(spec.optimised) + "\n");
      },
    );

  program
    .command("types")
    .argument("<file>", "a Smooth source file")
    .option("--out <file>", "where to write the declarations (default: FILE.d.ts, imported as FILE.js)")
    .option("--name <name>", "the interface's name (default: from the file's name, e.g. ModelDefinitions)")
    .option("--no-prelude", "do not load the M̃ prelude")
    .description("write TypeScript declarations of a file's definitions, for loadModule<Definitions>(file)")
    .action((file: string, o: { out?: string; name?: string; prelude: boolean }) => {
      const prog = load(file, o.prelude);
      const name = o.name ?? interfaceName(file);
      checkInterfaceName(name, "--name");
      const out = o.out ?? `${file}.d.ts`;
      writeOutput(out, declarations(prog, name));
      process.stdout.write(`wrote ${out}: interface ${name} (${prog.userDefs.length} definitions)\n`);
    });

  /** A derivative's JSON; a sparse derivative whose pattern is dense says so (its `note`) on stderr too. */
  const writeDerivative = (out: unknown) => {
    const note = (out as { note?: unknown }).note;
    if (typeof note === "string") process.stderr.write(`smooth: note: ${note}\n`);
    process.stdout.write(JSON.stringify(out) + "\n");
  };
  registerDerivativeCommands(program, withEntry, (kind, file, o) => {
    if (isTypeScriptFile(file)) {
      const backend = typeScriptOptions(o);
      const mode = parseMode(o.mode);
      const m = loadTypeScript(file, readSource(file).text);
      const args = parseArgs(o) ?? [];
      writeDerivative(derivativeTypeScript(kind, m, file, o.fn, args, o.wrt, backend, mode, o.sparse === true));
      return;
    }
    const prog = load(file, o.prelude);
    const args = parseArgs(o) ?? [];
    const engine = parseEngine(o.engine);
    const compute = { grad: gradJson, jacobian: jacobianJson, hessian: hessianJson }[kind];
    writeDerivative(compute(prog, o, args, engine));
  });

  withEntry(program.command("compile").argument("<file>", "a Smooth source file"))
    .description("print the JavaScript generated for a definition, or write it as a standalone ES module")
    .option("--module <out>", "write a standalone ES module (no eval; needs --args) exporting `value`")
    .option("--grad", "with --module: also export `gradient` (one per argument holding Doubles, or --wrt's)")
    .option("--wrt <k>", "with --grad: the gradient with respect to argument k only (0-based)")
    .action((file: string, o: CommonOptions & Partial<ModuleOptions>) => {
      const prog = load(file, o.prelude);
      if (o.module !== undefined) {
        process.stdout.write(writeAotModule(prog, parseArgs(o), { ...o, module: o.module }) + "\n");
        return;
      }
      if (o.grad || o.wrt !== undefined) fail("argument", "--grad and --wrt apply to --module");
      const spec = prog.specialise(o.fn, argTypesFor(prog, o.fn, parseArgs(o)), "js");
      process.stdout.write(spec.jsSource + "\n");
    });

  withEntry(program.command("dev").argument("<file>", "a Smooth source file"))
    .description("print the IR after each optimiser pass")
    .option(
      "--passes <names>",
      `comma-separated passes from: ${Object.keys(PASSES).join(", ")} (default: ${STANDARD_PIPELINE.map((p) => p.name).join(",")})`,
    )
    .option("--derivative", "start from the derivative program (as show --grad/--jacobian) instead")
    .option("--wrt <k>", "with --derivative: differentiate with respect to argument k only (0-based)")
    .option("--mode <mode>", MODE_HELP.dev)
    .option("--timings", "compile as `run` (or `grad`) does and print the time of each compiler stage")
    .option("--engine <engine>", `with --timings: the back end, ${describeEngines()}`, DEFAULT_ENGINE)
    .action((file: string, o: CommonOptions & DerivativeOptions & DevOptions) => {
      if (o.timings) {
        if (o.passes !== undefined) fail("argument", "--passes does not apply to --timings");
        devTimings(
          o,
          () => load(file, o.prelude),
          (prog) => argTypesFor(prog, o.fn, parseArgs(o)),
        );
        return;
      }
      const prog = load(file, o.prelude);
      const defaultPipeline = o.derivative ? DERIVATIVE_PIPELINE : STANDARD_PIPELINE;
      const named = o.passes ? pipelineFromNames(o.passes.split(",").map((n) => n.trim())) : defaultPipeline;
      // The fixpoint passes again, now telling why they stopped and which rules fired.
      const report = (name: string) => (r: { reason: string; fired: Readonly<Record<string, number>> }) => {
        const rules = Object.entries(r.fired)
          .map(([rule, n]) => `${rule} ${n}`)
          .join(", ");
        process.stdout.write(`\n// ${name} stopped: ${r.reason}${rules ? `; fired: ${rules}` : ""}`);
      };
      const passes = named.map((p) =>
        p.name === "simplify"
          ? simplifyPass({ onReport: report(p.name) })
          : p.name === "optimise"
            ? optimisePass({ onReport: report(p.name) })
            : p,
      );
      const argTypes = argTypesFor(prog, o.fn, parseArgs(o));
      if (!o.derivative && (o.mode !== undefined || o.wrt !== undefined))
        fail("argument", "--mode and --wrt apply to --derivative");
      const lowered = o.derivative ? derivativeForDev(prog, o, argTypes) : lowerEntry(prog.checked, o.fn, argTypes);
      process.stdout.write(`// lowered\n${printIr(lowered)}\n`);
      runPipeline(lowered, passes, {
        verify: true,
        trace: (name, fn) => process.stdout.write(`\n// after ${name}\n${printIr(fn)}\n`),
      });
    });

  program
    .command("repl")
    .argument("[file]", "a Smooth source file whose definitions the session starts with")
    .description("an interactive loop: definitions, expressions, :type, :grad, :show (:help lists them)")
    .action(async (file: string | undefined) => (await import("./repl.js")).repl(file));

  program
    .command("gradbench")
    .description("a GradBench tool: the protocol's JSON lines on stdin and stdout, every eval's functions in Smooth")
    .option("--engine <engine>", `back end: ${describeEngines()} (or SMOOTH_ENGINE)`)
    .action(async (o: { engine?: string }) => {
      if (o.engine !== undefined) process.env.SMOOTH_ENGINE = parseEngine(o.engine);
      await (await import("../gradbench/main.js")).gradbenchMain();
    });
}
