// `smooth compile FILE --fn F --args JSON --module out.mjs [--grad [--wrt K]]`: ahead-of-time compilation into a
// standalone ES module (src/aot/), through the library's emitModule so that the module's functions take and return
// what the library's do.

import type { SmoothProgram } from "../api/program.js";
import { emitModuleWith } from "../library/emit-module.js";
import { smoothModule } from "../library/module.js";
import { fail } from "../syntax/diagnostics.js";
import { chooseWrt } from "./derivative-options.js";
import { writeOutput } from "./files.js";

export interface ModuleOptions {
  fn: string;
  module: string;
  grad?: boolean;
  wrt?: string;
}

/** Writes the module; returns what it exports, for the command's one line of output. */
export function writeAotModule(prog: SmoothProgram, args: unknown[] | undefined, o: ModuleOptions): string {
  if (args === undefined)
    fail(
      "argument",
      "--module needs --args (or --args-file): the module is compiled for arguments of their types",
      undefined,
      {
        expected: "example arguments as a JSON array, e.g. --args '[[1, 2, 3], 2.5]'",
      },
    );
  if (o.wrt !== undefined && !o.grad) fail("argument", "--wrt applies to --grad");
  const def = prog.definition(o.fn);
  const fn = smoothModule(prog.file.text, { fileName: prog.file.name })[def.name]!;
  const argTypes = prog.argTypesFromJson(o.fn, args);
  // Without --wrt, one gradient per argument that holds Doubles (a list); with --wrt K, that argument's alone.
  const wrt = o.grad ? chooseWrt(prog, o.fn, argTypes, o.wrt) : undefined;
  const gradient = wrt === undefined ? false : { argnums: o.wrt === undefined ? wrt : wrt[0]! };
  const text = emitModuleWith(fn, args, { gradient });
  writeOutput(o.module, text);
  return `wrote ${o.module}: export ${gradient ? "value, gradient" : "value"} (${text.length} bytes)`;
}
