// Memory for the arrays a compiled function allocates while it runs. A typed array over 64 bytes gets a backing store
// of its own outside V8's heap, which costs microseconds to create and to collect: a loop that allocates a small array
// per iteration spends most of its time there. Each compiled function instead carves its small arrays out of a few
// large buffers (bump allocation), all released at once when the next call starts. The arrays a call returns are
// copied out first (`detach`), so nothing a caller holds is ever reused, unless the caller borrows the result (reads
// it before calling again). Large arrays are ordinary allocations, reused from call to call only for borrowed results;
// a call that needs more than the arena keeps between calls gets further chunks for that call only.

import { arrayTooLarge, MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";

const CHUNK_BYTES = 1 << 20;
/** Arrays larger than this many bytes are allocated on their own. */
const LARGE_BYTES = CHUNK_BYTES >> 3;
/**
 * The most memory one arena keeps between calls (per compiled function): what the last call used, up to 128 MB (the
 * tapes of LSTM l4 c4096's gradient take 66). A call that needs more gets further chunks for that call only: one
 * allocation per megabyte rather than one per array.
 */
const KEPT_CHUNKS = 128;
/** The most memory one arena keeps in large arrays for borrowed results (only a borrowing caller pays for it). */
const BIG_BYTES_KEPT = 1 << 30;

interface Chunk {
  readonly buffer: ArrayBuffer;
  /** Bytes used by the current call. */
  used: number;
  /** Bytes written by earlier calls (to be zeroed before reuse). */
  dirty: number;
}

/** The views one call created, in order, to hand out again when the next call asks for the same array. */
class ViewCache<T> {
  private readonly views: T[] = [];
  private readonly chunks: Chunk[] = [];
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  next = 0;

  /** The view the previous call got at this point of its sequence, when it covers the same memory. */
  take(chunk: Chunk, offset: number, n: number): T | undefined {
    const k = this.next++;
    return this.offsets[k] === offset && this.lengths[k] === n && this.chunks[k] === chunk ? this.views[k] : undefined;
  }

  keep(view: T, chunk: Chunk, offset: number, n: number): T {
    const k = this.next - 1;
    this.views[k] = view;
    this.chunks[k] = chunk;
    this.offsets[k] = offset;
    this.lengths[k] = n;
    return view;
  }
}

/** The large arrays one call allocated, in order, to hand out again in the next (up to a total size). */
class BigArrays<T extends Float64Array | Int32Array | Uint8Array> {
  private readonly arrays: T[] = [];
  next = 0;

  take(n: number, zeroed: boolean, make: (n: number) => T): T {
    const k = this.next++;
    const old = this.arrays[k];
    if (old !== undefined && old.length === n) {
      if (zeroed) old.fill(0);
      return old;
    }
    const fresh = make(n);
    const kept = this.arrays.reduce((sum, a) => sum + a.byteLength, 0) - (old?.byteLength ?? 0);
    if (kept + fresh.byteLength <= BIG_BYTES_KEPT) this.arrays[k] = fresh;
    return fresh;
  }
}

/**
 * Allocation: `f64(n)` is a zero-filled array; `f64(n, false)` may hold old values, for code that writes them all.
 * One method per element type (not one generic over the typed-array class): each call site in generated code then
 * constructs a single class, which keeps V8's allocation path monomorphic.
 *
 * Creating a typed-array view costs about as much as a small loop, and a call makes thousands. A compiled function
 * asks for the same arrays in the same order on every call with the same shapes, so each view is created once and
 * handed out again (`ViewCache`): every view of a call is dead when the next call starts.
 */
export class Arena {
  private readonly chunks: Chunk[] = [];
  private current = 0;
  /** Where `place` put the last array: chunk index and byte offset. */
  private chunk = 0;
  private offset = 0;
  private readonly f64Views = new ViewCache<Float64Array>();
  private readonly i32Views = new ViewCache<Int32Array>();
  private readonly u8Views = new ViewCache<Uint8Array>();
  /** Large arrays, handed out again call after call, when the caller borrows the result (see `reset`). */
  private readonly bigF64s = new BigArrays<Float64Array>();
  private readonly bigI32s = new BigArrays<Int32Array>();
  private readonly bigU8s = new BigArrays<Uint8Array>();
  /**
   * This call's result is borrowed: its arrays stay the arena's (no copy out), valid until the next call. Then large
   * arrays are reused too: a fresh 100 MB array costs more in page faults than writing it.
   */
  borrowed = false;

  /** The marks of the loop iterations running (src/lowering/regions.ts): position, chunk, and the views' counters. */
  private readonly marks: number[] = [];

  /** `kept`: how many chunks to keep between calls (a test's smaller arena). */
  constructor(private readonly kept = KEPT_CHUNKS) {}

  /**
   * Marks where the arrays a loop allocates start (src/lowering/regions.ts); returns the position, for `fresh` and
   * `since`. `rewind` gives back what was allocated since, `keep` drops the mark (marks nest: an inner loop's within
   * an outer one's iteration).
   */
  mark(): number {
    const used = this.chunks[this.current]?.used ?? 0;
    const position = this.current * CHUNK_BYTES + used;
    this.marks.push(position, this.current, used, this.f64Views.next, this.i32Views.next, this.u8Views.next);
    return position;
  }

  /** The bytes allocated in the arena since `position` (a mark). */
  since(position: number): number {
    return this.current * CHUNK_BYTES + (this.chunks[this.current]?.used ?? 0) - position;
  }

  /** Whether `data` was allocated in this arena at or after `position` (a mark). */
  fresh(data: Float64Array | Int32Array | Uint8Array, position: number): boolean {
    // Only the chunks from the mark's on hold what was allocated since (usually one).
    const buffer = data.buffer;
    for (let k = Math.floor(position / CHUNK_BYTES); k <= this.current; k++)
      if (this.chunks[k]?.buffer === buffer) return k * CHUNK_BYTES + data.byteOffset >= position;
    return false;
  }

  /** Gives back every array allocated since the last mark (none of them may be used again); the mark stays. */
  rewind(): void {
    const m = this.marks;
    const top = m.length - 6;
    const [current, used] = [m[top + 1]!, m[top + 2]!];
    for (let k = current; k <= this.current; k++) {
      const c = this.chunks[k];
      if (c === undefined) continue;
      // Written memory handed out again is cleared by the allocation that wants zeros.
      c.dirty = Math.max(c.dirty, c.used);
      c.used = k === current ? used : 0;
    }
    this.current = current;
    this.f64Views.next = m[top + 3]!;
    this.i32Views.next = m[top + 4]!;
    this.u8Views.next = m[top + 5]!;
  }

  /** Drops the last mark, keeping what was allocated since. */
  keep(): void {
    this.marks.length -= 6;
  }

  /** Called when a call starts: every array of the previous call is released. */
  reset(borrowed = false): void {
    this.marks.length = 0;
    this.borrowed = borrowed;
    this.bigF64s.next = 0;
    this.bigI32s.next = 0;
    this.bigU8s.next = 0;
    // Chunks past the kept ones served the last call only.
    if (this.chunks.length > this.kept) this.chunks.length = this.kept;
    for (const c of this.chunks) {
      c.dirty = Math.max(c.dirty, c.used);
      c.used = 0;
    }
    this.current = 0;
    this.f64Views.next = 0;
    this.i32Views.next = 0;
    this.u8Views.next = 0;
  }

  f64(n: number, zeroed = true): Float64Array {
    if (!this.place(n * 8, n))
      return this.borrowed && n > 0 ? this.bigF64s.take(n, zeroed, (k) => new Float64Array(k)) : new Float64Array(n);
    const a = this.f64View(n);
    if (zeroed && this.offset < this.chunks[this.chunk]!.dirty) a.fill(0);
    return a;
  }

  i32(n: number, zeroed = true): Int32Array {
    if (!this.place(n * 4, n))
      return this.borrowed && n > 0 ? this.bigI32s.take(n, zeroed, (k) => new Int32Array(k)) : new Int32Array(n);
    const a = this.i32View(n);
    if (zeroed && this.offset < this.chunks[this.chunk]!.dirty) a.fill(0);
    return a;
  }

  u8(n: number, zeroed = true): Uint8Array {
    if (!this.place(n, n))
      return this.borrowed && n > 0 ? this.bigU8s.take(n, zeroed, (k) => new Uint8Array(k)) : new Uint8Array(n);
    const a = this.u8View(n);
    if (zeroed && this.offset < this.chunks[this.chunk]!.dirty) a.fill(0);
    return a;
  }

  /** `src.slice(from, to)`, in the arena. */
  sliceF64(src: Float64Array, from: number, to: number): Float64Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    if (!this.place(n * 8, n)) return src.slice(from, to);
    const out = this.f64View(n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  sliceI32(src: Int32Array, from: number, to: number): Int32Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    if (!this.place(n * 4, n)) return src.slice(from, to);
    const out = this.i32View(n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  sliceU8(src: Uint8Array, from: number, to: number): Uint8Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    if (!this.place(n, n)) return src.slice(from, to);
    const out = this.u8View(n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  /** `data` itself, or a copy of it when it lives in this arena (a result must outlive the call). */
  detach<T extends Float64Array | Int32Array | Uint8Array>(data: T): T {
    for (const c of this.chunks) if (data.buffer === c.buffer) return data.slice() as T;
    return data;
  }

  private f64View(n: number): Float64Array {
    const { chunk, offset } = this;
    return (
      this.f64Views.take(this.chunks[chunk]!, offset, n) ??
      this.f64Views.keep(new Float64Array(this.chunks[chunk]!.buffer, offset, n), this.chunks[chunk]!, offset, n)
    );
  }

  private i32View(n: number): Int32Array {
    const { chunk, offset } = this;
    return (
      this.i32Views.take(this.chunks[chunk]!, offset, n) ??
      this.i32Views.keep(new Int32Array(this.chunks[chunk]!.buffer, offset, n), this.chunks[chunk]!, offset, n)
    );
  }

  private u8View(n: number): Uint8Array {
    const { chunk, offset } = this;
    return (
      this.u8Views.take(this.chunks[chunk]!, offset, n) ??
      this.u8Views.keep(new Uint8Array(this.chunks[chunk]!.buffer, offset, n), this.chunks[chunk]!, offset, n)
    );
  }

  /**
   * Reserves bytes for n elements: true with `chunk` and `offset` set, or false for an ordinary allocation (n = 0 or
   * large).
   */
  private place(bytes: number, n: number): boolean {
    if (n > MAX_ARRAY_ELEMENTS) arrayTooLarge("an array", n, undefined);
    if (!(n > 0) || bytes > LARGE_BYTES) return false;
    const size = (bytes + 7) & ~7; // every array starts 8-byte aligned
    for (; ; this.current++) {
      if (this.current === this.chunks.length)
        this.chunks.push({ buffer: new ArrayBuffer(CHUNK_BYTES), used: 0, dirty: 0 });
      const chunk = this.chunks[this.current]!;
      if (chunk.used + size <= CHUNK_BYTES) {
        this.chunk = this.current;
        this.offset = chunk.used;
        chunk.used += size;
        return true;
      }
    }
  }
}
