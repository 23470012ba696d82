// What the derivative commands share: the --mode and --wrt options, the default mode of each command, and the check
// that a gradient or Hessian is asked of a function with a Double result.

import type { SmoothProgram } from "../api/program.js";
import { describeParam } from "../api/entry-types.js";
import { hasTangent } from "../ad/dual-types.js";
import { doubleRank } from "../ad/seed.js";
import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";

export type Mode = "forward" | "reverse";

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

/**
 * The Jacobian's default: a reverse sweep per output scalar, or a forward sweep per input scalar, whichever is fewer
 * (forward on a tie, and when the output is not a Double or an array of Doubles, which reverse mode needs).
 */
export function defaultJacobianMode(
  resultType: Type,
  value: unknown,
  args: readonly unknown[],
  wrt: readonly number[],
): Mode {
  if (doubleRank(resultType) === undefined) return "forward";
  const inputs = wrt.reduce((n, k) => n + countLeaves(args[k]), 0);
  return countLeaves(value) < inputs ? "reverse" : "forward";
}

function countLeaves(json: unknown): number {
  return Array.isArray(json) ? json.reduce((n: number, x) => n + countLeaves(x), 0) : 1;
}

/** The parameters to differentiate: --wrt K (0-based), else every parameter with a Double in it. */
export function chooseWrt(
  prog: SmoothProgram,
  name: string,
  argTypes: readonly Type[],
  wrt: string | undefined,
): number[] {
  const def = prog.definition(name);
  if (wrt !== undefined) {
    const k = Number(wrt);
    if (!Number.isInteger(k) || k < 0 || k >= argTypes.length)
      fail("argument", `--wrt ${wrt} is not an argument position of \`${name}\``, undefined, {
        expected: `an integer from 0 to ${argTypes.length - 1}`,
        found: wrt,
      });
    if (!hasTangent(argTypes[k]!))
      fail(
        "argument",
        `cannot differentiate with respect to ${describeParam(def, k)}: it is ${article(argTypes[k]!)}`,
        def.def.nameSpan,
        {
          expected: "an argument containing Doubles",
          found: showType(argTypes[k]!),
          hint: "Index and Bool values are constants to differentiation",
        },
      );
    return [k];
  }
  const all = argTypes.flatMap((t, i) => (hasTangent(t) ? [i] : []));
  if (all.length === 0)
    fail(
      "argument",
      `\`${name}\` has no argument containing a Double to differentiate with respect to`,
      def.def.nameSpan,
    );
  return all;
}

function article(t: Type): string {
  return t.k === "int" ? "an Index" : t.k === "bool" ? "a Bool" : showType(t);
}

/** A gradient or a Hessian is of a function with one scalar output. */
export function requireDoubleResult(
  name: string,
  resultType: Type,
  what: "a gradient" | "a Hessian",
  hint: string,
): void {
  if (resultType.k !== "double")
    fail(
      "argument",
      `\`${name}\` returns ${showType(resultType)}, not a Double: ${what} needs a scalar result`,
      undefined,
      { hint },
    );
}
