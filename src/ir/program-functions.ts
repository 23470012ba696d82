// The program's functions (IrFunction.functions) of functions put together: when a function is built from others
// (a library transform's IR calls or inlines its operand's, src/api/derivative-blocks.ts), it needs the functions they
// call. Names are unique in a program; a function reached twice is kept once — the same object, or the same
// derivative made twice of one function (derived functions are named after what they derive, ../ad/functions.ts).

import { fail } from "../syntax/diagnostics.js";
import type { IrFunction } from "./ir.js";
import { printIr } from "./print.js";

/** The functions of all of `fns`, each name once (undefined when there are none). */
export function functionsOfAll(fns: Iterable<IrFunction | undefined>): IrFunction[] | undefined {
  const byName = new Map<string, IrFunction>();
  for (const fn of fns)
    for (const f of fn?.functions ?? []) {
      const had = byName.get(f.name);
      if (had === undefined) byName.set(f.name, f);
      else if (had !== f && printIr(had) !== printIr(f))
        fail(
          "unsupported",
          `two different recursive functions named \`${f.name}\` meet in one composed function`,
          f.span,
          {
            hint: "give the recursive functions of different modules different names",
          },
        );
    }
  return byName.size === 0 ? undefined : [...byName.values()];
}

/** `fn` with `functions` (if any) as its program's functions. */
export function withProgramFunctions(fn: IrFunction, functions: readonly IrFunction[] | undefined): IrFunction {
  return functions === undefined ? fn : { ...fn, functions };
}
