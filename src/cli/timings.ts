// `smooth dev FILE --fn f --args ... --timings`: where a compile's time goes. The file is loaded and the definition
// (or with --derivative, its derivative) compiled for the engine as `run` and `grad` compile it (through the
// persistent compile cache), with the compiler's stages timed in wall-clock time (src/opt/stage-times.ts): parse,
// check, lower, derivative, the pipeline and each of its passes and strategy steps, the back end (module generation,
// the engine's compile as `instantiate`), and the cache's read, load and write. Prints the table, then the total and
// what the cache did.

import type { SmoothProgram } from "../api/program.js";
import { parseEngine } from "../backends/registry.js";
import { CACHE_COUNTS } from "../cache/store.js";
import { typeOf } from "../ir/ir.js";
import { lowerEntry } from "../ir/lower.js";
import { DERIVATIVE_PIPELINE } from "../opt/pipeline.js";
import { stageTimesTable, startStageTimes, timed } from "../opt/stage-times.js";
import type { Type } from "../types/types.js";
import { chooseWrt, parseMode, type DerivativeOptions } from "./derivative-options.js";

export interface TimingsOptions extends DerivativeOptions {
  readonly engine: string;
  readonly derivative?: boolean;
}

/** Compiles as described above and prints the table; `argTypesOf` reads --args for the loaded program. */
export function devTimings(
  o: TimingsOptions,
  load: () => SmoothProgram,
  argTypesOf: (prog: SmoothProgram) => Type[],
): void {
  startStageTimes("wall");
  const t0 = performance.now();
  const engine = parseEngine(o.engine);
  timed("compile", () => {
    const prog = load();
    const argTypes = argTypesOf(prog);
    if (!o.derivative) {
      prog.specialise(o.fn, argTypes, engine);
      return;
    }
    const wrt = chooseWrt(prog, o.fn, argTypes, o.wrt);
    const scalar = typeOf(lowerEntry(prog.checked, o.fn, argTypes).body).k === "double";
    const reverse = (parseMode(o.mode) ?? (scalar ? "reverse" : "forward")) === "reverse";
    const kind = !reverse ? "forward" : scalar ? "gradient" : "jacobian-rows";
    prog.derivative(o.fn, argTypes, wrt, engine, DERIVATIVE_PIPELINE, kind);
  });
  const total = performance.now() - t0;
  const { hits, misses, refused } = CACHE_COUNTS;
  process.stdout.write(
    stageTimesTable() +
      `total ${total.toFixed(1)} ms; compile cache: ${hits} hit${hits === 1 ? "" : "s"}, ${misses} miss${misses === 1 ? "" : "es"}` +
      (refused > 0 ? `, ${refused} refused` : "") +
      "\n",
  );
}
