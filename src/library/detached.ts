// Typed arrays whose buffer was transferred (to a worker, or by structuredClone with `transfer`): their views read as
// empty, and copying from them throws a TypeError, so the library refuses them by name where it first meets them.

/**
 * Whether a typed array's buffer was detached (transferred to a worker, or by `structuredClone` with `transfer`): its
 * views then have no elements, and copying from them throws.
 */
export function isDetached(view: ArrayBufferView): boolean {
  if (view.byteLength !== 0) return false;
  const buffer = view.buffer as ArrayBufferLike & { readonly detached?: boolean };
  if (typeof buffer.detached === "boolean") return buffer.detached;
  try {
    // (ArrayBuffer.prototype.detached is newer than Node 20: a view cannot be made on a detached buffer.)
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}
