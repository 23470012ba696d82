// `build` in one thread, as loops writing into a new allocation in destination-passing style: the chains of
// src/lowering/build-forms.ts (B0 ⊃ B1 ⊃ ... ⊃ Bk, the terminal values written straight into B0's buffers at the linear
// element index), with the shape checks of src/codegen/build.ts (each level records the dimensions of its first
// element and the first that differs; a difference is the irregular-build error at that level's span). The buffers are
// allocated on the first descent, when the element's size is known; a copy is clipped to the buffer, which only an
// irregular build (an error when its loop ends) could overrun.

import { typeOf, type Build, type Prim } from "../ir/ir.js";
import { buildChain, copyOf, zeroFilled } from "../lowering/build-forms.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import { plus, times, type Slots, type WgslEmitter } from "./emit.js";

/** A copy build (`build n (fun i -> xs[i])`): one loop; the first index out of range is reported as a loop would. */
function emitCopy(em: WgslEmitter, b: Build, get: Prim): Slots {
  const n = em.atom(b.size)[0]!;
  em.checkCount(n, "build size", b.span);
  const [data, offset, length] = em.atom(get.args[0]!) as [string, string, string];
  if (n !== length)
    em.failIf(
      `${n} > ${length}`,
      [
        { slot: length, kind: "int" },
        { slot: length, kind: "int" },
      ],
      { error: { kind: "indexOutOfRange" }, span: get.span },
    );
  const buffer = em.allocate(n, false);
  em.copyWords(buffer, plus(data, offset), n);
  return [buffer, "0", n];
}

export function emitBuild(em: WgslEmitter, outer: Build, base: string): Slots {
  const copied = copyOf(outer);
  if (copied !== undefined) return emitCopy(em, outer, copied);
  if (zeroFilled(outer) !== undefined) {
    const n = em.atom(outer.size)[0]!;
    em.checkCount(n, "build size", outer.span);
    return [em.allocate(n, true), "0", n];
  }
  const levels = buildChain(outer);
  const k = levels.length - 1;
  const terminal = levels[k]!.build.body;
  const termLeaves = leavesOf(typeOf(terminal));
  const termArrays = termLeaves.filter((l) => l.rank > 0);
  const termDimCount = termArrays.reduce((n, l) => n + l.rank, 0);
  const out = em.out;

  const buffers = termLeaves.map((_, l) => `${base}_buf${l}`);
  const capacity = termLeaves.map((_, l) => `${base}_cap${l}`);
  const sizes: string[] = [];
  const indices: string[] = [];
  const runStarts: string[] = [];
  const records: string[][] = [];

  const elementIndex = (j: number) => (runStarts[j] === "0" ? indices[j]! : `(${runStarts[j]} + ${indices[j]})`);
  const firstDescent = (upTo: number) =>
    upTo === 0 ? `${indices[0]} == 0` : `(${indices.slice(0, upTo + 1).join(" | ")}) == 0`;
  const allocate = (elementSize: (leaf: number) => string) => {
    termLeaves.forEach((_, l) => {
      const n = times([...sizes, elementSize(l)]);
      const fresh = em.allocate(n, false);
      out.line(`${buffers[l]} = ${fresh}; ${capacity[l]} = ${n};`);
    });
  };

  const level = (j: number): void => {
    const b = levels[j]!.build;
    const n = em.atom(b.size)[0]!;
    sizes.push(n);
    em.checkCount(n, "build size", b.span);
    if (j === 0)
      for (const l of termLeaves.keys()) out.line(`var ${buffers[l]}: i32 = 0; var ${capacity[l]}: i32 = 0;`);
    const recordLength = k - j + termDimCount;
    const record = Array.from({ length: recordLength }, (_, q) => `${base}_r${j}_${q}`);
    const found = Array.from({ length: recordLength }, (_, q) => `${base}_f${j}_${q}`);
    const bad = `${base}_bad${j}`;
    records.push(record);
    em.markDimensionNames(record);
    if (recordLength > 0) {
      for (const x of [...record, ...found]) out.line(`var ${x}: i32 = 0;`);
      out.line(`var ${bad}: i32 = -1;`);
    }
    if (j === 0) {
      runStarts.push("0");
      if (k === 0 && termArrays.length === 0) allocate(() => "1");
    } else {
      const start = `${base}_b${j}`;
      out.line(`let ${start} = ${elementIndex(j - 1)} * ${n};`);
      runStarts.push(start);
      if (j === k && termArrays.length === 0) {
        out.open(`if (${firstDescent(k - 1)}) {`);
        allocate(() => "1");
        out.close();
      }
    }
    const t = em.loopVariable(b.index, n);
    indices.push(t);
    out.open(`for (var ${t}: i32 = 0; ${t} < ${n}; ${t}++) {`);
    let element: string[];
    if (j < k) {
      for (const l of levels[j]!.lets) em.letBinding(l);
      level(j + 1);
      element = [sizes[j + 1]!, ...records[j + 1]!];
    } else {
      element = terminalWrite(em.expr(terminal, em.fresh()));
    }
    if (recordLength > 0) {
      const differs = element.map((x, q) => `${x} != ${record[q]}`).join(" || ");
      out.open(`if (${t} == 0) {`);
      record.forEach((r, q) => out.line(`${r} = ${element[q]};`));
      out.close(`} else if (${bad} < 0 && (${differs})) {`);
      out.indentIn();
      out.line(`${bad} = ${t};`);
      found.forEach((f, q) => out.line(`${f} = ${element[q]};`));
      out.close();
    }
    out.close();
    if (recordLength > 0) {
      const elemType = b.type.k === "array" ? b.type.elem : b.type;
      em.failIf(
        `${bad} >= 0`,
        [bad, ...record, ...found].map((slot) => ({ slot, kind: "int" as const })),
        { error: { kind: "irregular", elemType, common: k - j, recordLength }, span: b.span },
      );
    }
    indices.pop();
  };

  // Writes the terminal value (slots `v`) at element index e_k; returns the dimensions of its array leaves.
  const terminalWrite = (v: Slots): string[] => {
    const starts = leafStarts(termLeaves);
    const at = elementIndex(k);
    const elementSizes = termLeaves.map((leaf, l) => {
      if (leaf.rank === 0) return "1";
      const dims = v.slice(starts[l]! + 2, starts[l]! + leafSlotCount(leaf));
      if (dims.length === 1) return dims[0]!;
      const size = `${base}_s${l}`;
      out.line(`let ${size} = ${times(dims)};`);
      return size;
    });
    if (termArrays.length > 0) {
      out.open(`if (${firstDescent(k)}) {`);
      allocate((l) => elementSizes[l]!);
      out.close();
    }
    const dims: string[] = [];
    termLeaves.forEach((leaf, l) => {
      const s = starts[l]!;
      const kind = elemKind(leaf);
      if (leaf.rank === 0) {
        em.store(kind, `${buffers[l]} + ${at}`, v[s]!);
        return;
      }
      const size = elementSizes[l]!;
      const from = em.fresh();
      const end = em.fresh();
      out.line(`let ${from} = ${times([at, size])};`);
      out.line(`let ${end} = min(${size}, ${capacity[l]} - ${from});`);
      em.copyWords(`${buffers[l]} + ${from}`, plus(v[s]!, v[s + 1]!), end);
      dims.push(...v.slice(s + 2, s + leafSlotCount(leaf)));
    });
    return dims;
  };

  level(0);

  const common = records[0]!.slice(0, k);
  let termDims = records[0]!.slice(k);
  return termLeaves.flatMap((leaf, l) => {
    const own = termDims.slice(0, leaf.rank);
    termDims = termDims.slice(leaf.rank);
    return [buffers[l]!, "0", sizes[0]!, ...common, ...own];
  });
}
