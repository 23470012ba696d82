// The memory budget of reverse mode's loop tapes. A taped loop stores its state before every iteration (n + 1 states)
// and its residuals; when that would exceed the budget (or the array limit), the loop is checkpointed instead:
// s snapshots of the state, recomputing the rest (Revolve's schedule, src/ad/revolve.ts). The budget is decided when a
// derivative program is built and becomes a literal of it: the library's `memoryBudget` option, set around the
// compilation (`withMemoryBudget`); otherwise SMOOTH_MEMORY_BUDGET; otherwise none (Infinity): automatic checkpointing
// is opt-in, because a budget compiles Revolve's schedule beside every taped top-level loop (code size, compile time,
// and the budget as a literal of the program). `SMOOTH_MEMORY_BUDGET=auto` asks for a quarter of the machine's memory
// where it can be known (Node), 512 MiB elsewhere (a browser). An infinite budget ("off") leaves loops taped, as they
// were before checkpointing existed (no checkpointing code at all).

import { fail } from "../syntax/diagnostics.js";

/**
 * The name of the Bool a checkpointable loop's derivative code branches on (true: checkpointed, src/ad/
 * reverse-checkpoint.ts). The wasm back end writes the checkpointed branch of such an `if` as a function of its own
 * (src/wasm/emit.ts), so that it does not slow the taped branch down.
 */
export const CHECKPOINTED_FLAG = "checkpointed";

/** The default where the machine's memory cannot be known (a browser). */
export const FALLBACK_MEMORY_BUDGET = 512 * 2 ** 20;

interface NodeProcessLike {
  env?: Record<string, string | undefined>;
  getBuiltinModule?: (name: string) => unknown;
}

const host = (globalThis as { process?: NodeProcessLike }).process;

/** The budget set by `withMemoryBudget` around the current compilation, if any. */
let current: number | undefined;

/**
 * Bytes from "268435456", "256M", "256MiB", "1.5G", "512k" (binary multiples), or Infinity from "off" (no budget:
 * loops are never checkpointed); undefined if it is none of these.
 */
export function parseBytes(text: string): number | undefined {
  if (/^\s*(off|infinity)\s*$/i.test(text)) return Infinity;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*$/.exec(text);
  if (m === null) return undefined;
  const scale = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }[m[2]!.toLowerCase()]!;
  const bytes = Math.floor(Number(m[1]) * scale);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** A quarter of the machine's memory where Node can tell, else the fallback. */
function machineDefault(): number {
  const os = host?.getBuiltinModule?.("node:os") as { totalmem?: () => number } | undefined;
  const total = os?.totalmem?.();
  return total !== undefined && Number.isFinite(total) && total > 0 ? Math.floor(total / 4) : FALLBACK_MEMORY_BUDGET;
}

/** The budget a derivative program built now gets: the one set around it, SMOOTH_MEMORY_BUDGET, or the default. */
export function memoryBudget(): number {
  if (current !== undefined) return current;
  const text = host?.env?.SMOOTH_MEMORY_BUDGET;
  if (text === undefined || text === "") return Infinity;
  if (/^\s*auto\s*$/i.test(text)) return machineDefault();
  const bytes = parseBytes(text);
  if (bytes === undefined)
    fail("argument", `SMOOTH_MEMORY_BUDGET is not a number of bytes: ${JSON.stringify(text.slice(0, 40))}`, undefined, {
      expected:
        'a positive number of bytes, optionally with a binary suffix: "268435456", "256M", "2G"; "auto" (a quarter of the memory); or "off"',
    });
  return bytes;
}

/** Checks a budget given as an option (`what` names it in the message); returns it. */
export function checkMemoryBudget(bytes: unknown, what: string): number {
  if (typeof bytes !== "number" || !(Number.isSafeInteger(bytes) || bytes === Infinity) || bytes <= 0)
    fail("argument", `${what}: memoryBudget must be a positive whole number of bytes`, undefined, {
      expected: "a positive whole number of bytes, e.g. 256 * 2 ** 20 (Infinity: never checkpoint)",
      found: typeof bytes === "number" ? String(bytes) : typeof bytes,
    });
  return bytes;
}

/** Runs `build` (which makes derivative programs) with the budget `bytes` (undefined: the current setting). */
export function withMemoryBudget<T>(bytes: number | undefined, build: () => T): T {
  if (bytes === undefined) return build();
  const saved = current;
  current = bytes;
  try {
    return build();
  } finally {
    current = saved;
  }
}
