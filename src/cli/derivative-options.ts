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

/** The parameters to differentiate: --wrt K (0-based), else every parameter with a Double in it. */
export function chooseWrt(
  prog: SmoothProgram,
  name: string,
  argTypes: readonly Type[],
  wrt: string | undefined,
): number[] {
  const subject = cliSubject(prog, name);
  if (wrt !== undefined) {
    const k = Number(wrt);
    if (!Number.isInteger(k) || k < 0 || k >= argTypes.length)
      fail("argument", `--wrt ${wrt} is not an argument position of \`${name}\``, undefined, {
        expected: `an integer from 0 to ${argTypes.length - 1}`,
        found: wrt,
      });
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
