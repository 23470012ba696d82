// Persistent arrays (Baker's "shallow binding"): every version of an array stays valid, and the version last written
// is read and written in O(1). The sparsity analysis runs programs that update arrays element by element in loops
// (`setAt`, `addAt`: reverse mode, the TypeScript front end's assignments); copying per update would make that
// quadratic. An older version is read by re-rooting: the differences between it and the newest are undone in place.

type Node<T> = { readonly kind: "root"; readonly data: T[] } | { kind: "diff"; at: number; value: T; next: PArray<T> };

export class PArray<T> {
  private node: Node<T>;

  private constructor(
    node: Node<T>,
    readonly length: number,
  ) {
    this.node = node;
  }

  static of<T>(data: T[]): PArray<T> {
    return new PArray<T>({ kind: "root", data }, data.length);
  }

  get(i: number): T {
    return this.data()[i]!;
  }

  /** A new version with element i replaced by `value` (this version keeps its elements). */
  set(i: number, value: T): PArray<T> {
    const data = this.data();
    const next = new PArray<T>({ kind: "root", data }, this.length);
    this.node = { kind: "diff", at: i, value: data[i]!, next };
    data[i] = value;
    return next;
  }

  /** A new version with the elements at `changes` replaced. */
  setMany(changes: ReadonlyMap<number, T>): PArray<T> {
    let out: PArray<T> | undefined;
    for (const [i, v] of changes) out = (out ?? this).set(i, v);
    return out ?? this;
  }

  /** The elements (valid until another version is read). */
  elements(): readonly T[] {
    return this.data();
  }

  /** The positions where `other`, a version of the same array, may differ from this one; undefined if unrelated. */
  differences(other: PArray<T>): number[] | undefined {
    const data = this.data();
    const out: number[] = [];
    for (let v: PArray<T> = other; ;) {
      const node = v.node;
      if (node.kind === "root") return node.data === data ? out : undefined;
      out.push(node.at);
      v = node.next;
    }
  }

  /** This version's elements in the shared store, after undoing the newer versions' writes. */
  private data(): T[] {
    if (this.node.kind === "root") return this.node.data;
    // The chain from this version to the root, then each difference undone from the root backwards.
    const chain: PArray<T>[] = [this];
    for (let node: Node<T> = this.node; node.kind === "diff"; node = node.next.node) chain.push(node.next);
    for (let k = chain.length - 2; k >= 0; k--) {
      const v = chain[k]!;
      const diff = v.node as { kind: "diff"; at: number; value: T; next: PArray<T> };
      const data = rootData(diff.next.node);
      const old = data[diff.at]!;
      data[diff.at] = diff.value;
      diff.next.node = { kind: "diff", at: diff.at, value: old, next: v };
      v.node = { kind: "root", data };
    }
    return rootData(this.node);
  }
}

function rootData<T>(node: Node<T>): T[] {
  if (node.kind !== "root") throw new Error("PArray: not re-rooted");
  return node.data;
}
