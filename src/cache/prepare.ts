// Preparing a program through the persistent compile cache. The key is the request, not the program: the compiler's
// identity (./store.ts), the back end, the threads, the limits compiled into code, and what the caller says identifies
// the program (SmoothProgram: the source texts, the entry's name, argument types, derivative kind and pipeline; the
// library: the same through its targets, src/library/target.ts). So a hit skips everything after parsing and
// checking — lowering, AD, optimisation and code generation — and only instantiates what the store gave (the wasm
// module is compiled by the engine again: engines keep no compiled wasm across processes that Node exposes).
//
// An entry that cannot be read (checksum, format) is compiled again and replaced, never run. A program whose parts
// cannot be stored as data (./data.ts) is compiled as before and not stored.

import type { GeneratedCode } from "../backends/backend.js";
import type { Executable } from "../backends/backend.js";
import { backendOf, type Engine } from "../backends/registry.js";
import { jsExecutable } from "../codegen/backend.js";
import { typeOf, type IrFunction } from "../ir/ir.js";
import { timed } from "../opt/stage-times.js";
import { MAX_ARRAY_ELEMENTS, MAX_CALL_DEPTH_COMPILED } from "../runtime/limits.js";
import type { Type } from "../types/types.js";
import type { Specialised } from "../api/program.js";
import { wasmExecutable } from "../wasm/backend.js";
import { wasmThreads } from "../wasm/parallel-run.js";
import { decodeEntry, encodeEntry, type Entry } from "./entry.js";
import { NotCacheable } from "./data.js";
import { CACHE_COUNTS, compileCacheStore } from "./store.js";

/** A program before and after its pipeline. */
export interface Stages {
  readonly lowered: IrFunction;
  readonly optimised: IrFunction;
}

/** The key of a request for `engine` (see the top of this file). */
export function cacheKey(compilerId: string, engine: Engine, request: string): string {
  const limits = `${MAX_ARRAY_ELEMENTS}/${MAX_CALL_DEPTH_COMPILED}`;
  return JSON.stringify([compilerId, engine, engine.startsWith("wasm") ? wasmThreads() : 1, limits, request]);
}

/**
 * The Specialised for `engine` of the program `stages` makes: from the cache when `request` (what identifies the
 * program, see above) has an entry there, else compiled (and stored). `stages` runs only when it is needed: on a hit,
 * when someone reads `lowered` or `optimised`.
 */
export function prepareCached(
  request: string | undefined,
  engine: Engine,
  argTypes: readonly Type[],
  stages: () => Stages,
  /** The caller has just looked for it (cachedProgram): a miss. */
  missed = false,
): Specialised {
  const cache = compileCacheStore();
  if (cache === undefined || request === undefined || backendOf(engine).input !== "optimised")
    return specialised(stages(), argTypes, engine);
  const hit = missed ? undefined : cachedProgram(request, engine, argTypes, stages);
  if (hit !== undefined) return hit;
  const key = cacheKey(cache.compilerId, engine, request);
  CACHE_COUNTS.misses++;
  const { spec, artefact } = compile(stages(), argTypes, engine);
  if (artefact !== undefined)
    timed("cache write", () => {
      try {
        const entry = { name: spec.name, resultType: spec.resultType, artefact, ...codeOf(spec.code) };
        cache.store.write(key, encodeEntry(entry));
      } catch (e) {
        if (!(e instanceof NotCacheable)) throw e;
      }
    });
  return spec;
}

/** The program the store holds for `request` (see prepareCached), ready to run; undefined when it holds none. */
export function cachedProgram(
  request: string | undefined,
  engine: Engine,
  argTypes: readonly Type[],
  stages: () => Stages,
): Specialised | undefined {
  const cache = compileCacheStore();
  if (cache === undefined || request === undefined || backendOf(engine).input !== "optimised") return undefined;
  const key = cacheKey(cache.compilerId, engine, request);
  const bytes = timed("cache read", () => cache.store.read(key));
  return bytes === undefined ? undefined : timed("cache load", () => fromEntry(bytes, argTypes, engine, stages));
}

const codeOf = (code: GeneratedCode | undefined): { code?: GeneratedCode } => (code === undefined ? {} : { code });

/** The program an entry holds, ready to run; undefined when the entry cannot be read. */
function fromEntry(
  bytes: Uint8Array,
  argTypes: readonly Type[],
  engine: Engine,
  stages: () => Stages,
): Specialised | undefined {
  let entry: Entry;
  try {
    entry = decodeEntry(bytes);
  } catch {
    CACHE_COUNTS.refused++;
    return undefined;
  }
  const { artefact } = entry;
  const exec = artefact.kind === "wasm" ? wasmExecutable(artefact.program) : jsExecutable(artefact.generated);
  CACHE_COUNTS.hits++;
  let made: Stages | undefined;
  const stagesOnce = () => (made ??= stages());
  return {
    name: entry.name,
    argTypes,
    resultType: entry.resultType,
    get lowered() {
      return stagesOnce().lowered;
    },
    get optimised() {
      return stagesOnce().optimised;
    },
    engine,
    run: exec.run,
    runBorrowed: exec.runBorrowed,
    runAsync: (args) => Promise.resolve().then(() => exec.run(args)),
    ...withCode(entry.code ?? exec.code),
  };
}

/** The Specialised of a program through its pipeline, compiled by the engine's back end (src/backends/registry.ts). */
export const specialised = (stages: Stages, argTypes: readonly Type[], engine: Engine): Specialised =>
  compile(stages, argTypes, engine).spec;

function compile(
  stages: Stages,
  argTypes: readonly Type[],
  engine: Engine,
): { spec: Specialised; artefact: Entry["artefact"] | undefined } {
  const { lowered, optimised } = stages;
  const backend = backendOf(engine);
  const compiled: Executable = timed(`back end ${engine}`, () =>
    backend.compile(backend.input === "optimised" ? optimised : lowered),
  );
  const spec: Specialised = {
    name: lowered.name,
    argTypes,
    resultType: typeOf(lowered.body),
    lowered,
    optimised,
    engine,
    run: compiled.run,
    runBorrowed: compiled.runBorrowed,
    runAsync: compiled.runAsync ?? ((args) => Promise.resolve().then(() => compiled.run(args))),
    ...withCode(compiled.code),
  };
  return { spec, artefact: compiled.artefact };
}

const withCode = (code: GeneratedCode | undefined): { code?: GeneratedCode; jsSource?: string } => ({
  ...(code === undefined ? {} : { code }),
  ...(code?.language === "javascript" ? { jsSource: code.text } : {}),
});
