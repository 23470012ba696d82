// The control words every kernel shares (a storage buffer of atomic u32 words, `C` in WGSL), and the error sites: what
// a failed check in a kernel leaves there and how the host turns it into the SmoothError the other back ends raise.
//
//   C[site]              0, or the number of the error site whose check failed (position in the site list + 1)
//   C[parallelFailure]   1 when a check failed in a kernel running elements in parallel (the host reruns sequentially)
//   C[outOfHeap]         1 when a device allocation found no room (the host retries with a larger heap)
//   C[loopLimit]         1 when a loop was cut short (Mesa's software rasterizers stop threads: ./loop-guard.ts)
//   C[top]               the heap's device top: device allocations take words below it, moving it down
//   C[floor]             the lowest word device allocations may take (above the host's allocations)
//   C[saved ...]         the numbers the failed check's message needs
//   C[ENV ...]           values kernels pass to each other and to the host (the result's slots among them)

import { RUNTIME } from "../codegen/runtime.js";
import { budgetTooSmall, indexOutOfRange, intDiv, sizesDiffer, toIndex } from "../prims/table.js";
import type { Span } from "../syntax/source.js";
import type { Type } from "../types/types.js";
import { addShapeError, updateShapeError } from "../runtime/update.js";
import type { ScalarKind } from "../runtime/value.js";

export const CONTROL = {
  site: 0,
  parallelFailure: 1,
  outOfHeap: 2,
  top: 3,
  floor: 4,
  loopLimit: 5,
  saved: 8,
} as const;

/** How many numbers a failed check may save. */
export const MAX_SAVED = 56;

/** Where the values kernels pass on start among the control words. */
export const ENV = CONTROL.saved + MAX_SAVED;

export type SavedKind = Exclude<ScalarKind, "bool">;

/** What went wrong at a site, with what its message needs besides the saved numbers. */
export type SiteError =
  | { readonly kind: "indexOutOfRange" }
  | { readonly kind: "badCount"; readonly what: "build size" | "ifold count" }
  | { readonly kind: "sizesDiffer" }
  | { readonly kind: "toIndex" }
  | { readonly kind: "divisionByZero" }
  | { readonly kind: "budgetTooSmall" }
  | { readonly kind: "irregular"; readonly elemType: Type; readonly common: number; readonly recordLength: number }
  | { readonly kind: "updateShape"; readonly set: boolean; readonly rank: number }
  | { readonly kind: "addShape"; readonly rank: number };

export interface ErrorSite {
  readonly error: SiteError;
  readonly span: Span | undefined;
  /** The kinds of the saved numbers, in order. */
  readonly kinds: readonly SavedKind[];
}

/** Raises the SmoothError of `site`, given the numbers its check saved. */
export function raiseAt(site: ErrorSite, saved: readonly number[]): never {
  const e = site.error;
  const span = site.span;
  switch (e.kind) {
    case "indexOutOfRange":
      return indexOutOfRange(saved[0]!, saved[1]!, span);
    case "badCount":
      return RUNTIME.badCount(e.what, saved[0]!, span);
    case "sizesDiffer":
      return sizesDiffer(saved[0]!, saved[1]!, span);
    case "toIndex":
      toIndex(saved[0]!, span);
      throw new Error(`webgpu: toIndex failed on the GPU but not on the host for ${saved[0]}`);
    case "divisionByZero":
      intDiv(0, 0, span);
      throw new Error("webgpu: unreachable");
    case "budgetTooSmall":
      return budgetTooSmall(saved[0]!, saved[1]!, span);
    case "irregular": {
      const dims = saved.slice(1);
      const first = dims.slice(0, e.recordLength);
      const found = dims.slice(e.recordLength);
      return RUNTIME.irregular(span, e.elemType, e.common, saved[0]!, first, found);
    }
    case "updateShape":
      return updateShapeError(e.set, saved.slice(0, e.rank), saved.slice(e.rank), span);
    case "addShape":
      return addShapeError(saved.slice(0, e.rank), saved.slice(e.rank), span);
  }
}

/** A saved word read back as the number it holds. */
export function savedNumber(kind: SavedKind, word: number): number {
  const buf = new DataView(new ArrayBuffer(4));
  buf.setUint32(0, word >>> 0, true);
  return kind === "int" ? buf.getInt32(0, true) : buf.getFloat32(0, true);
}
