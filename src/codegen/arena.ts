// Memory for the arrays a compiled function allocates while it runs. A typed array over 64 bytes gets a backing store
// of its own outside V8's heap, which costs microseconds to create and to collect: a loop that allocates a small array
// per iteration spends most of its time there. Each compiled function instead carves its small arrays out of a few
// large buffers (bump allocation), all released at once when the next call starts. The arrays a call returns are
// copied out first (`detach`), so nothing a caller holds is ever reused. Large arrays, and everything past the
// arena's cap, are ordinary allocations.

const CHUNK_BYTES = 1 << 20;
/** Arrays larger than this many bytes are allocated on their own. */
const LARGE_BYTES = CHUNK_BYTES >> 3;
/** The most memory one arena keeps (per compiled function, reused by every call). */
const MAX_CHUNKS = 32;

interface Chunk {
  readonly buffer: ArrayBuffer;
  /** Bytes used by the current call. */
  used: number;
  /** Bytes written by earlier calls (to be zeroed before reuse). */
  dirty: number;
}

/**
 * Allocation: `f64(n)` is a zero-filled array; `f64(n, false)` may hold old values, for code that writes them all.
 * One method per element type (not one generic over the typed-array class): each call site in generated code then
 * constructs a single class, which keeps V8's allocation path monomorphic.
 */
export class Arena {
  private readonly chunks: Chunk[] = [];
  private current = 0;

  /** Called when a call starts: every array of the previous call is released. */
  reset(): void {
    for (const c of this.chunks) {
      c.dirty = Math.max(c.dirty, c.used);
      c.used = 0;
    }
    this.current = 0;
  }

  f64(n: number, zeroed = true): Float64Array {
    const at = this.place(n * 8, n);
    if (at === undefined) return new Float64Array(n);
    const a = new Float64Array(at.chunk.buffer, at.offset, n);
    return zeroed ? this.zeroed(a, at) : a;
  }

  i32(n: number, zeroed = true): Int32Array {
    const at = this.place(n * 4, n);
    if (at === undefined) return new Int32Array(n);
    const a = new Int32Array(at.chunk.buffer, at.offset, n);
    return zeroed ? this.zeroed(a, at) : a;
  }

  u8(n: number, zeroed = true): Uint8Array {
    const at = this.place(n, n);
    if (at === undefined) return new Uint8Array(n);
    const a = new Uint8Array(at.chunk.buffer, at.offset, n);
    return zeroed ? this.zeroed(a, at) : a;
  }

  /** `src.slice(from, to)`, in the arena. */
  sliceF64(src: Float64Array, from: number, to: number): Float64Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    const at = this.place(n * 8, n);
    if (at === undefined) return src.slice(from, to);
    const out = new Float64Array(at.chunk.buffer, at.offset, n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  sliceI32(src: Int32Array, from: number, to: number): Int32Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    const at = this.place(n * 4, n);
    if (at === undefined) return src.slice(from, to);
    const out = new Int32Array(at.chunk.buffer, at.offset, n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  sliceU8(src: Uint8Array, from: number, to: number): Uint8Array {
    const n = Math.max(0, Math.min(to, src.length) - from);
    const at = this.place(n, n);
    if (at === undefined) return src.slice(from, to);
    const out = new Uint8Array(at.chunk.buffer, at.offset, n);
    out.set(src.subarray(from, from + n));
    return out;
  }

  /** `data` itself, or a copy of it when it lives in this arena (a result must outlive the call). */
  detach<T extends Float64Array | Int32Array | Uint8Array>(data: T): T {
    for (const c of this.chunks) if (data.buffer === c.buffer) return data.slice() as T;
    return data;
  }

  private place(bytes: number, n: number): { chunk: Chunk; offset: number } | undefined {
    if (!(n > 0) || bytes > LARGE_BYTES) return undefined;
    const size = (bytes + 7) & ~7; // every array starts 8-byte aligned
    for (; this.current < MAX_CHUNKS; this.current++) {
      if (this.current === this.chunks.length) this.chunks.push({ buffer: new ArrayBuffer(CHUNK_BYTES), used: 0, dirty: 0 });
      const chunk = this.chunks[this.current]!;
      if (chunk.used + size <= CHUNK_BYTES) {
        const offset = chunk.used;
        chunk.used += size;
        return { chunk, offset };
      }
    }
    return undefined;
  }

  private zeroed<T extends Float64Array | Int32Array | Uint8Array>(a: T, at: { chunk: Chunk; offset: number }): T {
    if (at.offset < at.chunk.dirty) a.fill(0);
    return a;
  }
}
