// What the derivative commands share: the --mode and --wrt options (what they mean is src/api/derivatives.ts's).

import type { SmoothProgram } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { checkWrt, differentiable, type Mode, type Subject } from "../api/derivatives.js";
import { fail } from "../syntax/diagnostics.js";
import type { Type } from "../types/types.js";

export type { Mode };

export interface DerivativeOptions {
  fn: string;
  args?: string;
  argsFile?: string;
  engine: string;
  prelude: boolean;
  wrt?: string;
  mode?: string;
  /** jacobian and hessian: in compressed sparse row form (src/cli/sparse-commands.ts). */
  sparse?: boolean;
}

/** The help text of --mode, per command. */
export const MODE_HELP = {
  grad: "forward or reverse (default: reverse; the output is one scalar)",
  jacobian:
    "forward or reverse (default: reverse when the output has fewer scalars than the differentiated inputs, else forward)",
  show: "with --grad: forward or reverse (default reverse); with --jacobian: as `smooth jacobian` (forward without --args)",
  dev: "with --derivative: forward or reverse (default: reverse for a Double result, as show --grad; else forward)",
} as const;

/** --mode as given (undefined when absent: each command has its own default). */
export function parseMode(s: string | undefined): Mode | undefined {
  if (s === undefined || s === "forward" || s === "reverse") return s;
  return fail("argument", `unknown mode \`${s}\``, undefined, { expected: "forward or reverse", found: s });
}

/**
 * --wrt K as a position: digits only (Number() would take `0x1`, ` 1`, `1e0` and the empty string, as 1, 1, 1 and 0).
 * `count` is how many arguments there are; `name` the function, for the message.
 */
export function parseWrt(text: string, count: number, name: string): number {
  const k = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(k < count))
    fail("argument", `--wrt ${JSON.stringify(text)} is not an argument position of \`${name}\``, undefined, {
      expected: count === 0 ? "no position: it takes no arguments" : `a whole number from 0 to ${count - 1}`,
      found: text,
    });
  return k;
}

/** The parameters to differentiate: --wrt K (0-based), else every parameter with a Double in it. */
export function chooseWrt(
  prog: SmoothProgram,
  name: string,
  argTypes: readonly Type[],
  wrt: string | undefined,
): number[] {
  const subject = cliSubject(prog, name);
  if (wrt !== undefined) {
    const k = parseWrt(wrt, argTypes.length, name);
    checkWrt(subject, argTypes, [k], "");
    return [k];
  }
  const all = differentiable(argTypes);
  if (all.length === 0)
    fail("argument", `\`${name}\` has no argument containing a Double to differentiate with respect to`, subject.span);
  return all;
}

/** The definition a command differentiates, as derivative requests name it in messages. */
export function cliSubject(prog: SmoothProgram, name: string): Subject {
  const def = prog.definition(name);
  return { label: `\`${name}\``, span: def.def.nameSpan, argument: (k) => describeParam(def, k) };
}
