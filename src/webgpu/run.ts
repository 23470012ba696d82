// Running a plan (./plan.ts) on the device: the arguments are copied into the heap (float32, Index as i32, Bool as a
// word), the host's values into the parameter buffer, the kernels dispatched in one submission, and the control words
// read back; then the result's arrays are copied out of the heap and read. A failed check raises its SmoothError; a
// heap too small for the device's allocations is retried with one twice as large; a check that failed in a parallel
// kernel is found again by the sequential plan, which reports the first error as the other back ends do.
//
// The heap and the other buffers of a program are kept from call to call (a pool by size serves the readbacks), and
// calls of one program run one after another.

import { fail, SmoothError } from "../syntax/diagnostics.js";
import { leavesOf, slotsToValue, valueToSlots, type Slot } from "../lowering/leaves.js";
import { shapeSize, type FlatData, type Value } from "../runtime/value.js";
import type { Type } from "../types/types.js";
import { CONTROL, ENV, raiseAt, savedNumber, type ErrorSite } from "./control.js";
import { gpuDevice, type GpuDevice } from "./device.js";
import { HostFailure, slotKinds, type HostState, type Plan, type Step } from "./plan.js";

const WORD = 4;
/** The smallest heap, in words (16 MB). */
const MIN_HEAP_WORDS = 1 << 22;

export interface RunStats {
  readonly dispatches: number;
  readonly sequential: boolean;
  readonly bytesUp: number;
  readonly bytesDown: number;
  /** Each dispatch in order: its kernel (an index into the plan's) and the threads dispatched (workgroups x size). */
  readonly launches: readonly { readonly kernel: number; readonly threads: number }[];
}

/** The threads of one workgroup of a kernel, read from its WGSL entry point's attribute. */
function workgroupThreads(wgsl: string): number {
  const m = /@workgroup_size\((\d+), (\d+), (\d+)\)/.exec(wgsl);
  return m === null ? 1 : Number(m[1]) * Number(m[2]) * Number(m[3]);
}

class Retry extends Error {
  constructor(readonly why: "heap" | "sequential") {
    super(why);
  }
}

/** What a run leaves for the host to read: the control words, then the result's arrays. */
interface Buffers {
  readonly gpu: GpuDevice;
  heap: GPUBuffer;
  heapWords: number;
  control: GPUBuffer;
  params: GPUBuffer;
  bindGroup: GPUBindGroup;
}

export class GpuRunner {
  private buffers: Buffers | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private layout: { group: GPUBindGroupLayout; pipeline: GPUPipelineLayout; gpu: GpuDevice } | undefined;
  /**
   * What the last call did: the kernels it dispatched, whether it was run again by the sequential plan, and the bytes
   * it moved between host and GPU (arguments and parameters up; control words and results down).
   */
  last: RunStats = { dispatches: 0, sequential: false, bytesUp: 0, bytesDown: 0, launches: [] };

  constructor(
    readonly plan: Plan,
    /** The sequential plan, made when a parallel plan's check fails (undefined: `plan` is sequential). */
    private readonly sequential?: () => GpuRunner,
  ) {}

  /** Runs one call after the calls before it. */
  run(args: readonly Value[]): Promise<Value> {
    const next = this.queue.then(() => this.runNow(args));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(args: readonly Value[]): Promise<Value> {
    const slots = unpackArgs(args, this.plan.paramTypes);
    let words = MIN_HEAP_WORDS;
    for (let attempt = 0; ; attempt++) {
      const gpu = await gpuDevice();
      try {
        return await this.attempt(gpu, slots, words);
      } catch (e) {
        if (e instanceof Retry && e.why === "heap") {
          words = Math.max(words, this.buffers?.heapWords ?? 0) * 2;
          const most = Math.floor(gpu.device.limits.maxStorageBufferBindingSize / WORD);
          if ((this.buffers?.heapWords ?? 0) >= most || attempt > 12)
            fail("unsupported", "the program needs more GPU memory than one storage buffer holds", undefined, {
              found: `${gpu.device.limits.maxStorageBufferBindingSize} bytes`,
              hint: "reduce the sizes, or run on a CPU back end (wasm)",
            });
          words = Math.min(words, most);
          continue;
        }
        if (e instanceof Retry && e.why === "sequential" && this.sequential !== undefined) {
          const sequential = this.sequential();
          const value = await sequential.run(args);
          this.last = { ...sequential.last, sequential: true };
          return value;
        }
        throw deviceError(e, gpu);
      }
    }
  }

  private layoutFor(gpu: GpuDevice): { group: GPUBindGroupLayout; pipeline: GPUPipelineLayout } {
    if (this.layout?.gpu !== gpu) {
      const storage = (type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
        binding: 0,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type },
      });
      const group = gpu.device.createBindGroupLayout({
        entries: [
          { ...storage("storage"), binding: 0 },
          { ...storage("storage"), binding: 1 },
          { ...storage("read-only-storage"), binding: 2 },
        ],
      });
      this.layout = { group, pipeline: gpu.device.createPipelineLayout({ bindGroupLayouts: [group] }), gpu };
    }
    return this.layout;
  }

  private async pipeline(gpu: GpuDevice, wgsl: string): Promise<GPUComputePipeline> {
    const known = gpu.pipelines.get(wgsl);
    if (known !== undefined) return known;
    const device = gpu.device;
    const module = device.createShaderModule({ code: wgsl });
    let made: GPUComputePipeline;
    try {
      made = await device.createComputePipelineAsync({
        layout: this.layoutFor(gpu).pipeline,
        compute: { module, entryPoint: "main" },
      });
    } catch (e) {
      // A kernel that does not compile is a bug of this back end: its WGSL and the compiler's messages, for the report.
      const info = await module.getCompilationInfo();
      const messages = info.messages.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join("\n");
      throw new Error(`webgpu: a kernel did not compile: ${(e as Error).message}\n${messages}\n${wgsl}`, { cause: e });
    }
    gpu.pipelines.set(wgsl, made);
    return made;
  }

  /** The program's buffers on this device, with a heap of at least `words` words. */
  private buffersFor(gpu: GpuDevice, words: number): Buffers {
    const plan = this.plan;
    const b = this.buffers;
    if (b !== undefined && b.gpu === gpu && b.heapWords >= words) return b;
    b?.heap.destroy();
    const device = gpu.device;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const heap = device.createBuffer({ size: words * WORD, usage });
    const control = b?.gpu === gpu ? b.control : device.createBuffer({ size: (ENV + plan.envCount + 4) * WORD, usage });
    const params =
      b?.gpu === gpu
        ? b.params
        : device.createBuffer({ size: Math.max(plan.paramCount, 4) * WORD, usage: usage & ~GPUBufferUsage.COPY_SRC });
    const bindGroup = device.createBindGroup({
      layout: this.layoutFor(gpu).group,
      entries: [heap, control, params].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.buffers = { gpu, heap, heapWords: words, control, params, bindGroup };
    return this.buffers;
  }

  private async attempt(gpu: GpuDevice, slots: readonly Slot[], words: number): Promise<Value> {
    const plan = this.plan;
    const pipelines = await Promise.all(plan.kernels.map((k) => this.pipeline(gpu, k.wgsl)));
    // The arguments' arrays at the bottom of the heap, their slots in the parameters.
    const values = new Array<number>(plan.paramCount).fill(0);
    const inputs: { at: number; data: FlatData }[] = [];
    let hostTop = 0;
    slots.forEach((slot, i) => {
      const k = plan.argParams[i];
      if (k === undefined) return;
      if (typeof slot === "object") {
        inputs.push({ at: hostTop, data: slot });
        values[k] = hostTop;
        hostTop += slot.length;
      } else values[k] = typeof slot === "boolean" ? (slot ? 1 : 0) : slot;
    });
    const inputWords = hostTop;
    let scratchWords = 0;
    let scratch: GPUBuffer | undefined;
    // Commands wait until the heap is known to be large enough; they keep their order with the kernels.
    const commands: ((encoder: GPUCommandEncoder, b: Buffers) => void)[] = [];
    const host: HostState = {
      values,
      allocate: (n) => {
        const at = hostTop;
        hostTop += n;
        return at;
      },
      clear: (at, n) => {
        if (n > 0) commands.push((encoder, b) => encoder.clearBuffer(b.heap, at * WORD, n * WORD));
      },
      // A buffer cannot be copied into itself: through a scratch buffer, made below once the largest copy is known.
      copy: (from, to, n) => {
        if (n <= 0) return;
        scratchWords = Math.max(scratchWords, n);
        commands.push((encoder, b) => {
          encoder.copyBufferToBuffer(b.heap, from * WORD, scratch!, 0, n * WORD);
          encoder.copyBufferToBuffer(scratch!, 0, b.heap, to * WORD, n * WORD);
        });
      },
    };
    const run = (steps: readonly Step[]): void => {
      for (const step of steps) {
        if (step.kind === "host") step.run(host);
        else if (step.kind === "if") run(step.cond(host) ? step.then : step.else);
        else {
          const [x, y, z] = step.groups(host);
          if (x === 0 || y === 0 || z === 0) continue;
          const pipeline = pipelines[step.kernel]!;
          commands.push((encoder, b) => {
            const pass = encoder.beginComputePass();
            pass.setPipeline(pipeline);
            pass.setBindGroup(0, b.bindGroup);
            pass.dispatchWorkgroups(x, y, z);
            pass.end();
          });
          dispatches++;
          launches.push({
            kernel: step.kernel,
            threads: x * y * z * workgroupThreads(plan.kernels[step.kernel]!.wgsl),
          });
        }
      }
    };
    let dispatches = 0;
    const launches: { kernel: number; threads: number }[] = [];
    try {
      run(plan.steps);
    } catch (e) {
      if (e instanceof HostFailure) throw new Retry("sequential");
      throw e;
    }
    const most = Math.floor(gpu.device.limits.maxStorageBufferBindingSize / WORD);
    if (hostTop > most) throw new Retry("heap");
    const b = this.buffersFor(gpu, Math.min(most, Math.max(words, hostTop * 2)));
    const device = gpu.device;
    if (scratchWords > 0) {
      const usage = GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
      scratch = device.createBuffer({ size: scratchWords * WORD, usage });
    }
    const encoder = device.createCommandEncoder();
    for (const command of commands) command(encoder, b);
    if (hostTop > b.heapWords) throw new Retry("heap");
    if (inputWords > 0) device.queue.writeBuffer(b.heap, 0, packInputs(inputs, inputWords));
    device.queue.writeBuffer(b.params, 0, paramWords(values, plan));
    const control = new Uint32Array(ENV + plan.envCount);
    control[CONTROL.top] = b.heapWords;
    control[CONTROL.floor] = hostTop;
    device.queue.writeBuffer(b.control, 0, control);
    const controlBytes = control.byteLength;
    const bytesUp = (inputWords + Math.max(values.length, 4)) * WORD + controlBytes;
    const readUsage = GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
    const readControl = device.createBuffer({ size: controlBytes, usage: readUsage });
    encoder.copyBufferToBuffer(b.control, 0, readControl, 0, controlBytes);
    device.queue.submit([encoder.finish()]);
    const words32 = await readBack(readControl);
    scratch?.destroy();
    checkControl(words32, plan.sites, hostTop, gpu.adapter);
    const { value, bytes } = await this.result(gpu, b, words32, values);
    this.last = { dispatches, sequential: false, bytesUp, bytesDown: controlBytes + bytes, launches };
    return value;
  }

  /** The result's value: its slots from the environment, the parameters or literals, and its arrays read back. */
  private async result(
    gpu: GpuDevice,
    b: Buffers,
    control: Uint32Array,
    params: readonly number[],
  ): Promise<{ value: Value; bytes: number }> {
    const plan = this.plan;
    const kinds = slotKinds(plan.resultType);
    const numbers = plan.result.map((src, i) => {
      if (src.from === "literal") return src.value;
      if (src.from === "param") return params[src.at]!;
      return savedNumber(kinds[i] === "double" ? "double" : "int", control[ENV + src.at]!);
    });
    // Array leaves: [data, offset, dims...], copied out of the heap in one readback.
    const arrays: { slot: number; from: number; size: number; kind: "double" | "int" | "bool" }[] = [];
    let at = 0;
    for (const leaf of leavesOfResult(plan.resultType)) {
      if (leaf.rank > 0) {
        const dims = numbers.slice(at + 2, at + 2 + leaf.rank) as number[];
        arrays.push({
          slot: at,
          from: (numbers[at] as number) + (numbers[at + 1] as number),
          size: shapeSize(dims),
          kind: leaf.kind,
        });
      }
      at += leaf.rank === 0 ? 1 : leaf.rank + 2;
    }
    const total = arrays.reduce((n, a) => n + a.size, 0);
    const out: Slot[] = numbers.map((n, i) => (kinds[i] === "bool" ? n !== 0 : (n as number)));
    if (arrays.length > 0) {
      const read = gpu.device.createBuffer({
        size: Math.max(total, 1) * WORD,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
      const encoder = gpu.device.createCommandEncoder();
      let to = 0;
      for (const a of arrays) {
        if (a.size > 0) encoder.copyBufferToBuffer(b.heap, a.from * WORD, read, to * WORD, a.size * WORD);
        to += a.size;
      }
      gpu.device.queue.submit([encoder.finish()]);
      const words = await readBack(read);
      let from = 0;
      for (const a of arrays) {
        out[a.slot] = widen(a.kind, words, from, a.size);
        out[a.slot + 1] = 0;
        from += a.size;
      }
    }
    return { value: slotsToValue(out, plan.resultType), bytes: total * WORD };
  }
}

function leavesOfResult(t: Type): { kind: "double" | "int" | "bool"; rank: number }[] {
  return leavesOf(t).map((l) => {
    if (l.kind === "tape") throw new Error("webgpu: a tape in a result");
    return { kind: l.kind, rank: l.rank };
  });
}

/** A result array: float32 words as a Float64Array, Index words as an Int32Array, Bool words as a Uint8Array. */
function widen(kind: "double" | "int" | "bool", words: Uint32Array, from: number, n: number): FlatData {
  const view = words.subarray(from, from + n);
  if (kind === "double") return Float64Array.from(new Float32Array(view.buffer, view.byteOffset, n));
  if (kind === "int") return Int32Array.from(new Int32Array(view.buffer, view.byteOffset, n));
  return Uint8Array.from(view, (w) => (w !== 0 ? 1 : 0));
}

async function readBack(buffer: GPUBuffer): Promise<Uint32Array> {
  await buffer.mapAsync(GPUMapMode.READ);
  const words = new Uint32Array(buffer.getMappedRange().slice(0));
  buffer.unmap();
  buffer.destroy();
  return words;
}

/** The arguments' arrays as heap words (float32 bits, i32, Bool 0/1), from word 0. */
function packInputs(inputs: readonly { at: number; data: FlatData }[], words: number): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(Math.max(words, 1));
  const asFloat = new Float32Array(out.buffer);
  const asInt = new Int32Array(out.buffer);
  for (const { at, data } of inputs) {
    if (data instanceof Float64Array) asFloat.set(data, at);
    else if (data instanceof Int32Array) asInt.set(data, at);
    else out.set(data, at);
  }
  return out;
}

/** The parameter words: each value's bits as its kind has them (Doubles as float32). */
function paramWords(values: readonly number[], plan: Plan): Uint32Array<ArrayBuffer> {
  const out = new Uint32Array(Math.max(values.length, 4));
  const asFloat = new Float32Array(out.buffer);
  const asInt = new Int32Array(out.buffer);
  const kinds = plan.paramKinds;
  values.forEach((v, k) => {
    if (kinds[k] === "double") asFloat[k] = v;
    else asInt[k] = v;
  });
  return out;
}

/** Raises what the control words say went wrong. */
function checkControl(words: Uint32Array, sites: readonly ErrorSite[], hostTop: number, adapter: string): void {
  // First: after a loop cut short, the values (those an error message reports included) are not the program's.
  if (words[CONTROL.loopLimit] !== 0)
    fail(
      "unsupported",
      `the GPU adapter (${adapter}) cut a kernel's loop short (Mesa's software rasterizers stop a thread after ` +
        `65,535 loop iterations), so this program's results would be wrong on it`,
      undefined,
      { hint: 'run it on a hardware GPU, on smaller inputs, or with backend: "wasm" (dtype: "float32")' },
    );
  const site = words[CONTROL.site]!;
  if (site !== 0) {
    const s = sites[site - 1];
    if (s === undefined) throw new Error(`webgpu: a kernel reported unknown error site ${site}`);
    raiseAt(
      s,
      s.kinds.map((kind, q) => savedNumber(kind, words[CONTROL.saved + q]!)),
    );
  }
  // Device allocations that reached below the host's are an overlap, found at the end: both tops only move apart.
  if (words[CONTROL.outOfHeap] !== 0 || words[CONTROL.top]! < hostTop) throw new Retry("heap");
  if (words[CONTROL.parallelFailure] !== 0) throw new Retry("sequential");
}

function unpackArgs(given: readonly Value[], types: readonly Type[]): Slot[] {
  const args: readonly Value[] = given;
  if (!Array.isArray(given) || args.length !== types.length)
    fail("argument", `expected ${types.length} argument(s), got ${Array.isArray(given) ? args.length : "no list"}`);
  const out: Slot[] = [];
  types.forEach((t, i) => valueToSlots(args[i]!, t, out, `argument ${i}`));
  return out;
}

/** A failure of the device itself (lost, out of memory) as a SmoothError that says the call can be retried. */
function deviceError(e: unknown, gpu: GpuDevice): unknown {
  if (e instanceof SmoothError) return e;
  if (gpu.lost !== undefined)
    return new SmoothError(
      "unsupported",
      `the GPU device was lost (${gpu.lost}); run the computation again`,
      undefined,
    );
  return e;
}
