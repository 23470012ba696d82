// Compiling a module's bytes, at once with the engine's optimising compiler where the host lets us choose.
//
// V8 compiles WebAssembly lazily with its baseline compiler (Liftoff) and moves a function to its optimising compiler
// (TurboFan) only after it has run hot, in the background. A compiled function's first calls then run 2-3 times
// slower than later ones, for a number of calls that depends on what else the machine's cores are doing (GMM's
// gradient: second call 3.7 to 9.5 ms against 3.1 steady). In Node, V8's flags can be changed while it runs
// (node:v8's setFlagsFromString), and V8 reads its wasm tiering flags when a compile starts. So around our own
// synchronous compile only, we ask for optimised code of every function at once and then set V8's defaults back:
// the compile takes longer (GMM's gradient module: 20 ms against 1 ms, where the lazy baseline code ran its first call
// at 9.5 ms against 3.5), and every call from the first runs at full speed.
//
// Left as V8 decides: a host without node:v8 (a browser), a process started with its own Liftoff or lazy-compilation
// or dynamic-tiering flags (they would be overwritten by the defaults), and SMOOTH_WASM_TIER=lazy in the environment.

interface NodeV8 {
  setFlagsFromString(flags: string): void;
}
interface NodeProcess {
  readonly env: Record<string, string | undefined>;
  readonly execArgv?: readonly string[];
  getBuiltinModule?(name: string): unknown;
}

const nodeProcess = (globalThis as { process?: NodeProcess }).process;

/** node:v8 when this process may change its wasm tiering flags, else undefined (decided once). */
let v8ForTiering: NodeV8 | null | undefined;

function tieringFlags(): NodeV8 | undefined {
  if (v8ForTiering === undefined) {
    const own = [...(nodeProcess?.execArgv ?? []), nodeProcess?.env.NODE_OPTIONS ?? ""].join(" ");
    const allowed =
      nodeProcess?.env.SMOOTH_WASM_TIER !== "lazy" && !/liftoff|wasm-lazy-compilation|wasm-dynamic-tiering/.test(own);
    v8ForTiering = allowed ? ((nodeProcess?.getBuiltinModule?.("node:v8") as NodeV8 | undefined) ?? null) : null;
  }
  return v8ForTiering ?? undefined;
}

/**
 * `new Module(bytes)`, every function compiled by the optimising compiler at once where the host allows it; with
 * `noSplitting`, without TurboFan's node splitting too (unless the process set that flag itself). A module with a
 * checkpointable loop branches on its flag before the taped loop and again before its reverse: a value both loops
 * compute (GVN makes it one node) then has no use in the block that dominates them, and splitting places a copy of it
 * inside each loop (ode's gradient: 1.1 times main's time with the checkpointed branches outlined, 0.85 without
 * splitting). Not for every module: kmeans' and llsq's gradients are 4-7% slower without splitting.
 */
export function compileOptimised<M>(
  Module: new (bytes: Uint8Array<ArrayBuffer>) => M,
  bytes: Uint8Array<ArrayBuffer>,
  noSplitting = false,
): M {
  const v8 = tieringFlags();
  if (v8 === undefined) return new Module(bytes);
  const split = noSplitting && !ownSplittingFlag();
  v8.setFlagsFromString("--no-liftoff --no-wasm-lazy-compilation" + (split ? " --no-turbo-splitting" : ""));
  // Back to V8's defaults, including the flag --no-liftoff implied (no dynamic tiering): the flags are then those the
  // process started with, as the code cache checks (test/package/code-cache.test.ts fails if one is left changed).
  try {
    return new Module(bytes);
  } finally {
    v8.setFlagsFromString(
      "--liftoff --wasm-lazy-compilation --wasm-dynamic-tiering" + (split ? " --turbo-splitting" : ""),
    );
  }
}

/** Whether the process was started with a turbo-splitting flag of its own (then it is left as it is). */
const ownSplittingFlag = (): boolean =>
  /turbo-splitting/.test([...(nodeProcess?.execArgv ?? []), nodeProcess?.env.NODE_OPTIONS ?? ""].join(" "));
