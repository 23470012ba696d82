// The back ends, by name. `Engine` (the names), the CLI's `--engine` choices and its help text come from this list;
// a new back end is one line here and a folder of its own (see ./backend.ts).

import { JS_BACKEND } from "../codegen/backend.js";
import { INTERP_BACKEND } from "../eval/backend.js";
import { WASM_BACKEND, WASM_F32_BACKEND } from "../wasm/backend.js";
import { WEBGPU_BACKEND } from "../webgpu/backend.js";
import { fail } from "../syntax/diagnostics.js";
import type { Backend } from "./backend.js";

/** In the order the CLI's help lists them; the first is the default. */
// wasm is the default: the fastest on every array program measured (bench:backends, bench:gradbench, bench:library);
// a program it does not compile (recursive functions, over 50,000 values in one function) runs as js.
const BACKEND_LIST = [
  WASM_BACKEND,
  JS_BACKEND,
  INTERP_BACKEND,
  WASM_F32_BACKEND,
  WEBGPU_BACKEND,
] as const satisfies readonly Backend[];

/** The name of a registered back end. */
export type Engine = (typeof BACKEND_LIST)[number]["name"];

export const ENGINES: readonly Engine[] = BACKEND_LIST.map((b) => b.name);

export const DEFAULT_ENGINE: Engine = BACKEND_LIST[0].name;

const BY_NAME = new Map<string, Backend>(BACKEND_LIST.map((b) => [b.name, b]));

export function isEngine(name: string): name is Engine {
  return BY_NAME.has(name);
}

export function backendOf(engine: Engine): Backend {
  const b = BY_NAME.get(engine);
  if (b === undefined) throw new Error(`no back end named ${engine}`);
  return b;
}

/** The engine a user named (`--engine`), or an argument error listing the others. */
export function parseEngine(name: string): Engine {
  if (!isEngine(name))
    fail("argument", `unknown engine \`${name}\``, undefined, { expected: ENGINES.join(" or "), found: name });
  return name;
}

/** "js (compiled) or interp (reference interpreter)": the back ends for a help text. */
export function describeEngines(): string {
  return BACKEND_LIST.map((b) => `${b.name} (${b.description})`).join(" or ");
}

/**
 * Whether `engine` runs optimised programs: reverse-mode derivatives for it are then built from the optimised primal
 * (the reference interpreter's from the lowered one, so comparing the two also tests the optimiser).
 */
export const optimisesFirst = (engine: Engine): boolean => backendOf(engine).input === "optimised";
