// Running the parallel sites of a wasm module (./parallel.ts) on worker threads (Node's worker_threads).
//
// One pool of workers serves every compiled function. It is started when the back end first generates a module with
// a parallel site (startWorkers), so that its threads boot while the module is generated and compiled; until a worker
// has booted, calls leave it out. Workers are unref()'d: they never keep the process alive. A worker gets each module
// and its shared memory once, by message, and instantiates it; then every call is a few numbers in a shared control
// block and an Atomics.notify: the worker runs part_k and notifies back. The calling thread runs part_k too, then
// waits (Node's main thread may Atomics.wait). The threads take chunks of elements from a claim word in the site's
// env block (one atomic add each), so a thread whose elements are cheaper takes more of them; a worker that has not
// started by the time the calling thread finds no element left is not waited for (its call is cancelled). When any
// chunk fails, the whole site runs again on the calling thread: its first failure is the single-threaded error (that
// of the lowest failing element), and running the body again is harmless (it only writes its own elements).
//
// The setting: the number of threads, by default the machine's cores (os.availableParallelism()), SMOOTH_THREADS in
// the environment, `--threads`, the library's `threads` option, or setWasmThreads(n); 1, or a host without
// worker_threads, Atomics.wait or SharedArrayBuffer (a browser), compiles and runs everything single-threaded exactly
// as without this file.
//
// A worker's instance of a module holds the module's shared memory (as large as the largest call's arrays). When the
// calling thread collects its instance (every compiled function that called it is gone), the workers that
// instantiated the module are ended and replaced when next needed: a worker waiting for calls never collects its own
// garbage, so dropping the instance alone would keep the memory for the life of the process.

import { ENV_CLAIM } from "./part-arena.js";

/** The parts of Node's worker_threads used here, declared locally (the core type-checks without Node's types). */
interface NodeWorker {
  postMessage(message: unknown): void;
  unref(): void;
  terminate(): Promise<number>;
}
interface WorkerThreads {
  readonly Worker: new (source: string, options: { eval: true; workerData: unknown }) => NodeWorker;
}
interface NodeProcess {
  readonly env: Record<string, string | undefined>;
  getBuiltinModule?(name: string): unknown;
}

const nodeProcess = (globalThis as { process?: NodeProcess }).process;

function workerThreads(): WorkerThreads | undefined {
  if (typeof SharedArrayBuffer === "undefined" || typeof Atomics === "undefined") return undefined;
  return nodeProcess?.getBuiltinModule?.("node:worker_threads") as WorkerThreads | undefined;
}

/** The most worker threads (a function runs on them and the calling thread). */
const MAX_WORKERS = 256;

/** The settings: threads (undefined: SMOOTH_THREADS, else the cores) and the work that pays for waking threads. */
const settings: { threads: number | undefined; threshold: number; callerWorks: boolean; bootDelayMs: number } = {
  threads: undefined,
  // Whether the calling thread computes elements too (tests turn it off: then the workers compute every element).
  callerWorks: true,
  // Tests: how long a worker started from now waits before it says it has booted.
  bootDelayMs: 0,
  // In cost units (IR nodes of an element's body, loops weighted: ./parallel.ts) times elements. A wake and wait of a
  // worker costs some 15-40 µs; a cost unit is a few nanoseconds, so 100,000 units is several hundred µs of work.
  threshold: 100_000,
};

/**
 * Sets how many threads compiled wasm functions use (1: single-threaded) and, for tests, the threshold of work
 * (elements times estimated cost per element) from which a site runs across threads. Functions compiled earlier
 * keep the number of threads they were compiled for. `callerWorks` false (tests): the calling thread leaves every
 * element to the workers. `bootDelayMs` (tests): workers started from now on take that much longer to boot.
 */
export function setWasmThreads(
  threads: number | undefined,
  threshold?: number,
  callerWorks?: boolean,
  bootDelayMs?: number,
): void {
  settings.threads = threads === undefined ? undefined : checkThreads(threads);
  if (threshold !== undefined) settings.threshold = threshold;
  if (callerWorks !== undefined) settings.callerWorks = callerWorks;
  if (bootDelayMs !== undefined) settings.bootDelayMs = bootDelayMs;
}

/** The error for a thread count that is not a positive integer (the library's option, the CLI's flag, tests). */
export function checkThreads(threads: unknown): number {
  if (typeof threads !== "number" || !Number.isInteger(threads) || threads < 1 || threads > MAX_WORKERS + 1)
    throw new RangeError(`threads must be a whole number from 1 to ${MAX_WORKERS + 1}, not ${String(threads)}`);
  return threads;
}

/** Runs `compile` with functions compiled for `threads` (undefined: the current setting). */
export function withWasmThreads<T>(threads: number | undefined, compile: () => T): T {
  if (threads === undefined) return compile();
  const saved = settings.threads;
  settings.threads = checkThreads(threads);
  try {
    return compile();
  } finally {
    settings.threads = saved;
  }
}

/** The number of threads a function compiled now uses: 1 where threads are not available. */
export function wasmThreads(): number {
  if (workerThreads() === undefined) return 1;
  if (settings.threads !== undefined) return settings.threads;
  const fromEnv = Number(nodeProcess?.env.SMOOTH_THREADS ?? "");
  if (Number.isInteger(fromEnv) && fromEnv >= 1) return fromEnv;
  const os = nodeProcess?.getBuiltinModule?.("node:os") as { availableParallelism?: () => number } | undefined;
  return Math.max(1, os?.availableParallelism?.() ?? 1);
}

// The control block: per worker, SLOT int32s. GEN counts the calls posted to the worker; TAKEN is the last one
// resolved: taken by the worker (which then runs it and sets DONE to it) or cancelled by the calling thread, which
// takes back a call the worker has not started when it has run out of elements itself (on a loaded machine a worker
// may wake long after the work is done). Whoever moves TAKEN from g - 1 to g (compareExchange) owns call g.
// READY is set by the worker once it has started (a new thread takes 20-50 ms to boot).
const SLOT = 10;
const [GEN, DONE, MODULE, SITE, COUNT, GRAIN, ENV, FAILED, TAKEN, READY] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

// The worker: waits for its generation number to change, takes the call unless it was cancelled, runs the part it
// is given, reports. Modules arrive by message before the first call that needs them; the worker takes them
// synchronously (receiveMessageOnPort).
const WORKER_SOURCE = `
const { parentPort, workerData, receiveMessageOnPort } = process.getBuiltinModule("node:worker_threads");
const c = new Int32Array(workerData.control);
const base = workerData.slot * ${SLOT};
const instances = new Map();
let seen = 0;
if (workerData.bootDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.bootDelayMs);
Atomics.store(c, base + ${READY}, 1);
Atomics.notify(c, base + ${READY});
for (;;) {
  Atomics.wait(c, base + ${GEN}, seen);
  seen = Atomics.load(c, base + ${GEN});
  if (Atomics.compareExchange(c, base + ${TAKEN}, (seen - 1) | 0, seen) !== ((seen - 1) | 0)) continue;
  const id = c[base + ${MODULE}];
  while (!instances.has(id)) {
    const m = receiveMessageOnPort(parentPort);
    if (m === undefined) continue;
    const { module, memory } = m.message;
    const parallel = () => { throw new Error("nested parallel site"); };
    const worth = () => 0;
    let exports = {};
    try {
      exports = new WebAssembly.Instance(module, { Math, env: { memory, parallel, worth } }).exports;
    } catch {}
    instances.set(m.message.id, exports);
  }
  let failed = 0;
  try {
    instances.get(id)["part_" + c[base + ${SITE}]](c[base + ${COUNT}], c[base + ${GRAIN}], c[base + ${ENV}]);
  } catch {
    failed = 1;
  }
  c[base + ${FAILED}] = failed;
  Atomics.store(c, base + ${DONE}, seen);
  Atomics.notify(c, base + ${DONE});
}
`;

interface PoolWorker {
  readonly worker: NodeWorker;
  /** The modules it has instantiated. */
  readonly modules: Set<number>;
  /** Being ended (see RELEASE): given no calls; its slot gets a new worker once it has stopped. */
  ending: boolean;
}

interface Pool {
  readonly control: Int32Array;
  /** By slot; a slot is empty while no worker is needed there, or after its worker stopped. */
  readonly workers: (PoolWorker | undefined)[];
}

let pool: Pool | undefined;
/** How many site calls have run across threads in this process (for tests: whether a call went parallel). */
let calls = 0;
export const parallelCalls = (): number => calls;
/** How many module instances the pool's workers hold (for tests: that they go with the calling thread's). */
export const workerInstances = (): number =>
  (pool?.workers ?? []).reduce((n, w) => n + (w === undefined || w.ending ? 0 : w.modules.size), 0);
let nextModuleId = 1;

function workers(count: number, threads: WorkerThreads): Pool {
  pool ??= { control: new Int32Array(new SharedArrayBuffer(4 * SLOT * MAX_WORKERS)), workers: [] };
  for (let slot = 0; slot < Math.min(count, MAX_WORKERS); slot++) {
    if (pool.workers[slot] !== undefined) continue;
    Atomics.store(pool.control, slot * SLOT + READY, 0);
    const worker = new threads.Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { control: pool.control.buffer, slot, bootDelayMs: settings.bootDelayMs },
    });
    worker.unref();
    pool.workers[slot] = { worker, modules: new Set(), ending: false };
  }
  return pool;
}

/**
 * Starts the workers for `threads` now, without work (the wasm back end calls it as soon as it finds a parallel site,
 * so that they boot while the rest of the module is generated and compiled, and help from the next calls on).
 */
export function startWorkers(threads: number): void {
  const wt = workerThreads();
  if (threads > 1 && wt !== undefined) workers(threads - 1, wt);
}

/**
 * Starts the workers for `threads` and waits until they have booted, at most `timeoutMs` each (tests: a call right
 * after it runs across threads); whether they all have.
 */
export function waitForWorkers(threads: number, timeoutMs = 10_000): boolean {
  startWorkers(threads);
  if (pool === undefined) return threads < 2;
  const c = pool.control;
  for (let w = 0; w < Math.min(threads - 1, pool.workers.length); w++)
    if (pool.workers[w]?.ending !== true && Atomics.wait(c, w * SLOT + READY, 0, timeoutMs) === "timed-out")
      return false;
  return true;
}

/** A shared memory for a module with parallel sites, and its `parallel` import (./runtime.ts instantiates it). */
export interface ParallelHost {
  readonly memory: object;
  /** Binds the instance's exports: the module's `parallel` import works from then on. */
  attach(exports: object): void;
  readonly parallel: (site: number, n: number, env: number) => void;
  /** Whether n elements of a site are worth running across threads (1) or not (0). */
  readonly worth: (site: number, n: number) => number;
}

/** part_k(n, grain, env): claims `grain` of the n elements at a time until none are left (./parallel.ts). */
type Part = (n: number, grain: number, env: number) => void;

/** How many chunks per thread a site's elements are claimed in: enough for uneven elements to balance. */
const CHUNKS_PER_THREAD = 8;

/** Ends the workers that instantiated module `id`, whose host was collected (see the header). */
const RELEASE =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry<number>((id) => {
        pool?.workers.forEach((w, slot) => {
          if (w === undefined || w.ending || !w.modules.has(id)) return;
          w.ending = true;
          // The slot is free for a new worker once this one has stopped: two threads never wait on one slot.
          void w.worker.terminate().finally(() => {
            if (pool?.workers[slot] === w) pool.workers[slot] = undefined;
          });
        });
      })
    : undefined;

export function parallelHost(module: object, costs: readonly number[], threads: number): ParallelHost {
  const api = (globalThis as { WebAssembly?: { Memory: new (d: object) => { buffer: ArrayBuffer } } }).WebAssembly!;
  const memory = new api.Memory({ initial: 1, maximum: 65536, shared: true });
  const id = nextModuleId++;
  let parts: Part[] = [];
  // The claim word of a site's env block (./part-arena.ts ENV_CLAIM): the next element no thread has taken.
  const resetClaim = (env: number) => Atomics.store(new Int32Array(memory.buffer), (env + ENV_CLAIM) >> 2, 0);
  const parallel = (site: number, n: number, env: number): void => {
    const part = parts[site]!;
    const wt = workerThreads();
    resetClaim(env);
    // (worth() said yes: only a host without threads comes here with one thread.)
    if (threads < 2 || wt === undefined) {
      part(n, n, env);
      return;
    }
    const wanted = Math.min(threads, n) - 1;
    const p = workers(wanted, wt);
    const c = p.control;
    const callerWorks = settings.callerWorks;
    // The workers that take part: with the calling thread working, only those that have started (one still booting
    // would be woken only to be cancelled, and the call would wait for nothing); else (tests) all of them.
    const active: number[] = [];
    for (let w = 0; w < wanted; w++)
      if (p.workers[w]?.ending === false && (!callerWorks || Atomics.load(c, w * SLOT + READY) === 1)) active.push(w);
    if (active.length === 0) {
      part(n, n, env);
      return;
    }
    calls++;
    const helpers = active.length;
    const grain = Math.max(1, Math.ceil(n / ((helpers + 1) * CHUNKS_PER_THREAD)));
    for (const w of active) {
      const { worker, modules } = p.workers[w]!;
      if (!modules.has(id)) {
        worker.postMessage({ id, module, memory });
        modules.add(id);
      }
      const base = w * SLOT;
      c[base + MODULE] = id;
      c[base + SITE] = site;
      c[base + COUNT] = n;
      c[base + GRAIN] = grain;
      c[base + ENV] = env;
      Atomics.add(c, base + GEN, 1);
      Atomics.notify(c, base + GEN);
    }
    let failed = false;
    try {
      if (callerWorks) part(n, grain, env);
    } catch {
      failed = true;
    }
    for (const w of active) {
      const base = w * SLOT;
      const gen = Atomics.load(c, base + GEN);
      // Not started yet: the calling thread has claimed every element, nothing is left for it.
      if (callerWorks && Atomics.compareExchange(c, base + TAKEN, (gen - 1) | 0, gen) === ((gen - 1) | 0)) continue;
      for (let done = Atomics.load(c, base + DONE); done !== gen; done = Atomics.load(c, base + DONE))
        Atomics.wait(c, base + DONE, done);
      if (c[base + FAILED] !== 0) failed = true;
    }
    if (failed) {
      // The first failure in element order is the single-threaded one: raised from the calling thread's instance,
      // which now claims every element at once, in order.
      resetClaim(env);
      part(n, n, env);
      throw new Error("wasm: a parallel part failed on a worker but not on the calling thread");
    }
  };
  const host: ParallelHost = {
    memory,
    attach: (exports) => {
      const ex = exports as Record<string, Part>;
      parts = costs.map((_, k) => ex[`part_${k}`]!);
    },
    parallel,
    worth: (site, n) => (threads > 1 && n > 1 && n * costs[site]! >= settings.threshold ? 1 : 0),
  };
  RELEASE?.register(host, id);
  return host;
}
