// The arena of a parallel part (./parallel.ts): where the arrays an element allocates come from while threads run a
// site. The main arena (./memory.ts) is a bump allocator in the instance's globals: not shared between threads. A
// part allocates instead from chunks it claims, with one atomic add, from a shared top of memory kept in the site's
// env block (ENV_TOP, set by `main` to its own arena's top before the call). Each element's result is a scalar, or
// arrays written into the site's destination before the element ends (a chunk site, ./chunk-sites.ts), so nothing
// it allocates outlives it: every element starts again at the beginning of its thread's current chunk. An element
// that needs more than that chunk's room claims further chunks (at least CHUNK_BYTES each, or twice the array) and
// the next element starts in the last of them: the earlier ones are not reused within the call (as main's arena
// reuses nothing within a call), so a site's elements take at most about the memory one thread would. The globals
// are the instance's, so each thread has its own.
//
// Memory under a chunk may hold what an earlier element or call wrote: `zeroed` arrays are always cleared. After the
// call `main` raises its `dirty` mark past the top, so that its own later arrays are cleared too (./parallel.ts).

import { MAX_ARRAY_ELEMENTS } from "../runtime/limits.js";
import type { Code, FunctionBuilder, ModuleBuilder } from "./encoder.js";
import {
  atomicAdd,
  f64,
  globalGet,
  globalSet,
  i32,
  i64,
  localGet,
  localSet,
  op,
  store,
  unreachable,
} from "./instructions.js";
import { SITE_OUT_OF_MEMORY, SITE_TOO_LARGE } from "./memory.js";

/** Byte offsets in a site's env block: the destination, the claim word (next element), the shared top (i64). */
export const ENV_DEST = 0;
export const ENV_CLAIM = 8;
export const ENV_TOP = 16;
/** The env block's first free-variable slot (8 bytes each). */
export const ENV_SLOTS = 3;

/** A chunk claimed at once: at least this many bytes (fewer claims), or twice what the array needs. */
const CHUNK_BYTES = 1 << 20;

/** The globals of a part's arena: next free address, end and start of the current chunk, the env block. */
export interface PartArena {
  readonly heap: number;
  readonly end: number;
  readonly chunk: number;
  readonly env: number;
  /** partAlloc(count: f64, shift: i32, zeroed: i32) -> i32, as ./memory.ts's alloc. */
  readonly alloc: number;
}

export function addPartArena(mb: ModuleBuilder, errorSite: number, errorArea: number): PartArena {
  const [heap, end, chunk, env] = [0, 1, 2, 3].map(() => mb.addGlobal("i32", i32(0))) as [
    number,
    number,
    number,
    number,
  ];
  const fb = mb.addFunction({ params: ["f64", "i32", "i32"], results: ["i32"] });
  writePartAlloc(fb, { heap, end, chunk, env }, errorSite, errorArea);
  return { heap, end, chunk, env, alloc: fb.index };
}

/** At a part's start: no chunk yet (the first array claims one). */
export function startPartArena(fb: FunctionBuilder, a: PartArena, env: number): void {
  fb.emit(
    globalSet(a.env, localGet(env)),
    globalSet(a.heap, i32(0)),
    globalSet(a.end, i32(0)),
    globalSet(a.chunk, i32(0)),
  );
}

/** At an element's start: what the previous element allocated is free again. */
export function resetPartArena(fb: FunctionBuilder, a: PartArena): void {
  fb.emit(globalSet(a.heap, globalGet(a.chunk)));
}

function writePartAlloc(
  fb: FunctionBuilder,
  g: { heap: number; end: number; chunk: number; env: number },
  errorSite: number,
  errorArea: number,
): void {
  const [count, shift, zeroed] = [0, 1, 2];
  const [p, end, size, start, pages] = [
    fb.local("i32"),
    fb.local("i64"),
    fb.local("i64"),
    fb.local("i64"),
    fb.local("i32"),
  ];
  const fail = (site: number) => fb.emit(globalSet(errorSite, i32(site)), unreachable);
  fb.if(op("f64.gt", localGet(count), f64(MAX_ARRAY_ELEMENTS)));
  fb.emit(store("f64.store", i32(errorArea), localGet(count)));
  fail(SITE_TOO_LARGE);
  fb.end();
  const bytes = op(
    "i64.shl",
    op("i64.extend_i32_u", op("i32.trunc_f64_s", localGet(count))),
    op("i64.extend_i32_u", localGet(shift)),
  );
  const endFrom = (at: Code) =>
    localSet(end, op("i64.and", op("i64.add", op("i64.add", at, bytes), i64(15n)), i64(~15n)));
  fb.emit(endFrom(op("i64.extend_i32_u", globalGet(g.heap))));
  // A new chunk when this one is full, or when there is none yet.
  fb.if(
    op(
      "i32.or",
      op("i64.gt_u", localGet(end), op("i64.extend_i32_u", globalGet(g.end))),
      op("i32.eqz", globalGet(g.chunk)),
    ),
  );
  const twice = op("i64.shl", op("i64.add", bytes, i64(16n)), i64(1n));
  fb.emit(
    localSet(size, op("select", twice, i64(BigInt(CHUNK_BYTES)), op("i64.gt_u", twice, i64(BigInt(CHUNK_BYTES))))),
  );
  fb.emit(localSet(start, atomicAdd("i64", globalGet(g.env), localGet(size), ENV_TOP)));
  fb.if(op("i64.gt_u", op("i64.add", localGet(start), localGet(size)), i64(0xffff_ffffn)));
  fail(SITE_OUT_OF_MEMORY);
  fb.end();
  // Pages needed: ceil((start + size) / 64 KiB); another thread may be growing memory too, so look again on failure.
  fb.emit(
    localSet(
      pages,
      op(
        "i32.wrap_i64",
        op("i64.shr_u", op("i64.add", op("i64.add", localGet(start), localGet(size)), i64(0xffffn)), i64(16n)),
      ),
    ),
  );
  fb.if(op("i32.gt_u", localGet(pages), op("memory.size")));
  fb.if(op("i32.eq", op("memory.grow", op("i32.sub", localGet(pages), op("memory.size"))), i32(-1)));
  fb.if(op("i32.gt_u", localGet(pages), op("memory.size")));
  fail(SITE_OUT_OF_MEMORY);
  fb.end();
  fb.end();
  fb.end();
  const aligned = op("i32.and", op("i32.add", op("i32.wrap_i64", localGet(start)), i32(15)), i32(~15));
  fb.emit(
    globalSet(g.chunk, aligned),
    globalSet(g.heap, globalGet(g.chunk)),
    globalSet(g.end, op("i32.wrap_i64", op("i64.add", localGet(start), localGet(size)))),
  );
  fb.emit(endFrom(op("i64.extend_i32_u", globalGet(g.heap))));
  fb.end();
  fb.emit(localSet(p, globalGet(g.heap)), globalSet(g.heap, op("i32.wrap_i64", localGet(end))));
  fb.if(localGet(zeroed));
  fb.emit(op("memory.fill", localGet(p), i32(0), op("i32.sub", globalGet(g.heap), localGet(p))));
  fb.end();
  fb.emit(localGet(p));
}
