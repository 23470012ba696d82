// The target of a transform's result (grad(f), jacobian(f), vmap(f), ...): it takes arguments as the function it
// transforms does, and builds its instance from that function's instance at the same argument types.

import type { Value } from "../runtime/value.js";
import type { MType } from "../types/mtype.js";
import type { Tree, Where } from "./pytree.js";
import { isTransient, type Instance, type Target } from "./target.js";
import { BoundedCache } from "./bounded-cache.js";

export abstract class DerivedTarget implements Target {
  private readonly instances = new BoundedCache<string, Instance>();

  constructor(
    /** The function transformed. */
    readonly inner: Target,
    /** "grad(`f`)". */
    readonly label: string,
  ) {}

  get span() {
    return this.inner.span;
  }

  hint(k: number): MType | undefined {
    return this.inner.hint(k);
  }

  where(k: number): Where {
    return this.inner.where(k);
  }

  argument(k: number): string {
    return this.inner.argument(k);
  }

  checkArity(n: number): void {
    this.inner.checkArity(n);
  }

  key(trees: readonly Tree[], values?: () => readonly Value[]): string {
    return this.inner.key(trees, values);
  }

  instance(trees: readonly Tree[], values?: () => readonly Value[]): Instance {
    const key = this.key(trees, values);
    let inst = this.instances.get(key);
    if (!inst) {
      inst = this.make(trees, values);
      if (!isTransient(inst)) this.instances.set(key, inst);
    }
    return inst;
  }

  /** The instance for arguments of these structures (called once per key). */
  protected abstract make(trees: readonly Tree[], values?: () => readonly Value[]): Instance;
}
