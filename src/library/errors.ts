// The form of `argnums`, checked when a transform is made (what the positions mean is checked per call, against the
// arguments, by src/api/derivatives.ts).

import { fail } from "../syntax/diagnostics.js";

/** Which arguments to differentiate: `argnums` as given (a number gives one result, an array a list of results). */
export interface Argnums {
  readonly list: readonly number[];
  readonly single: boolean;
}

/** Checks the form of `argnums` (its range is checked per call, against the arguments). */
export function parseArgnums(argnums: number | readonly number[] | undefined, what: string): Argnums {
  const single = argnums === undefined || typeof argnums === "number";
  const list = argnums === undefined ? [0] : typeof argnums === "number" ? [argnums] : [...argnums];
  if (!single && !Array.isArray(argnums)) fail("argument", `${what}: argnums must be a number or an array of numbers`);
  for (const k of list)
    if (!Number.isInteger(k) || k < 0)
      fail("argument", `${what}: argnums ${String(k)} is not an argument position`, undefined, {
        expected: "an integer from 0",
      });
  if (list.length === 0) fail("argument", `${what}: argnums is empty`);
  if (new Set(list).size !== list.length) fail("argument", `${what}: argnums [${list.join(", ")}] repeats a position`);
  return { list, single };
}
