// The exact expected outputs of ADBench's tiny test inputs (goldens.json, ../shared/data/adbench/): the GMM and LSTM
// entries, checked for the fields used. Input paths in the file are relative to its folder; they are returned
// resolved.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fail } from "../syntax/diagnostics.js";

export interface GmmGolden {
  /** Absolute path of the input file. */
  readonly input: string;
  readonly objective: number;
  /** alphas (K), means (K*d), icf (K rows of q then l): length K(d+1)(d+2)/2. */
  readonly gradient: readonly number[];
}

export interface LstmGolden {
  readonly input: string;
  readonly objective: number;
  /** The objective is given rounded; this is the tolerance to compare it with. */
  readonly objectiveTolerance: number;
  /** main params (row-major) then extra params: length 8lb + 3b. */
  readonly gradient: readonly number[];
}

export interface AdbenchGoldens {
  readonly gmm: GmmGolden;
  readonly lstm: LstmGolden;
}

export function readGoldens(path: string): AdbenchGoldens {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    fail("argument", `${path} is not valid JSON`, undefined, { found: e instanceof Error ? e.message : String(e) });
  }
  const folder = dirname(path);
  const gmm = section(json, "gmm", path);
  const lstm = section(json, "lstm", path);
  return {
    gmm: {
      input: resolve(folder, text(gmm, "input", path)),
      objective: num(gmm, "objective", path),
      gradient: numbers(gmm, "gradient", path),
    },
    lstm: {
      input: resolve(folder, text(lstm, "input", path)),
      objective: num(lstm, "objective", path),
      objectiveTolerance: num(lstm, "objective_tolerance", path),
      gradient: numbers(lstm, "gradient", path),
    },
  };
}

interface Section {
  readonly name: string;
  readonly fields: { readonly [key: string]: unknown };
}

function section(json: unknown, name: string, path: string): Section {
  const value = (json as { readonly [key: string]: unknown } | null)?.[name];
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail("argument", `${path} has no \`${name}\` section`, undefined, { expected: "an object" });
  return { name, fields: value as Section["fields"] };
}

function field(s: Section, key: string, path: string, kind: "string" | "number"): unknown {
  const value = s.fields[key];
  if (typeof value !== kind)
    fail("argument", `${path}: \`${s.name}.${key}\` should be a ${kind}`, undefined, {
      found: JSON.stringify(value) ?? "nothing",
    });
  return value;
}

const text = (s: Section, key: string, path: string): string => field(s, key, path, "string") as string;
const num = (s: Section, key: string, path: string): number => field(s, key, path, "number") as number;

function numbers(s: Section, key: string, path: string): number[] {
  const value = s.fields[key];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "number"))
    fail("argument", `${path}: \`${s.name}.${key}\` should be an array of numbers`);
  return value;
}
