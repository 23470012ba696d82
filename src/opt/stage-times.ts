// A dev tool for compile latency (issue 16): with SMOOTH_PASS_TIMES=1 in the environment, the compiler's stages
// (parsing and checking, lowering, AD, each optimiser pass and each step of the strategy, the back end) are timed in
// CPU time (SMOOTH_PASS_TIMES=wall: wall-clock time, which leaves out V8's background compiler and GC threads),
// and when the process ends a table of them is printed on stderr: per stage, as nested under the stages
// that ran it, the total time, how often it ran and the time per run. Off (the default), `timed` only calls its
// function. Browser-safe: without Node's `process` it is always off.

interface Entry {
  ms: number;
  runs: number;
}

const nodeProcess = (
  globalThis as {
    process?: {
      env: Record<string, string | undefined>;
      cpuUsage(): { user: number; system: number };
      on(event: "exit", f: () => void): void;
      stderr: { write(s: string): void };
    };
  }
).process;

let MODE = nodeProcess?.env.SMOOTH_PASS_TIMES;
let ENABLED = MODE === "1" || MODE === "wall";
const PRINT_AT_EXIT = ENABLED;
const entries = new Map<string, Entry>();
const path: string[] = [];

function cpuMs(): number {
  if (MODE === "wall") return performance.now();
  const u = nodeProcess!.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** The names of the stages this process has run (timed or not): which of the compiler's code it has used. */
const seen = new Set<string>();
export const stagesRun = (): readonly string[] => [...seen];

/** `f()`, timed as `stage` (inside the stages running now) when SMOOTH_PASS_TIMES=1. */
export function timed<T>(stage: string, f: () => T): T {
  seen.add(stage);
  if (!ENABLED) return f();
  path.push(stage);
  const key = path.join(" > ");
  let entry = entries.get(key);
  if (entry === undefined) entries.set(key, (entry = { ms: 0, runs: 0 }));
  const t0 = cpuMs();
  try {
    return f();
  } finally {
    entry.ms += cpuMs() - t0;
    entry.runs++;
    path.pop();
  }
}

/** The table of the stages timed so far, each under the stage that ran it, siblings in the order first run. */
export function stageTimesTable(): string {
  // A stage is entered before any stage nested in it, so the rank of every prefix of a key is known.
  const rank = new Map([...entries.keys()].map((k, i) => [k, i]));
  const ranks = (key: string) => key.split(" > ").map((_, i, parts) => rank.get(parts.slice(0, i + 1).join(" > "))!);
  const order = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  };
  const keys = [...entries.keys()].sort((a, b) => order(ranks(a), ranks(b)));
  const lines = keys.map((key) => {
    const e = entries.get(key)!;
    const parts = key.split(" > ");
    const name = "  ".repeat(parts.length - 1) + parts[parts.length - 1]!;
    return `${name.padEnd(48)} ${e.ms.toFixed(1).padStart(9)} ms ${String(e.runs).padStart(6)} runs ${(e.ms / e.runs).toFixed(2).padStart(9)} ms/run`;
  });
  return `stage times (${MODE === "wall" ? "wall clock" : "CPU"}, inclusive of nested stages)\n${lines.join("\n")}\n`;
}

/**
 * Starts timing the stages from now on, in wall-clock time (`smooth dev --timings`: the time a user waits) or CPU
 * time; the table is then the caller's to print (stageTimesTable).
 */
export function startStageTimes(clock: "wall" | "cpu"): void {
  if (clock === "cpu" && nodeProcess === undefined) return;
  MODE = clock === "wall" ? "wall" : "1";
  ENABLED = true;
}

if (PRINT_AT_EXIT && nodeProcess) nodeProcess.on("exit", () => nodeProcess.stderr.write(stageTimesTable()));
