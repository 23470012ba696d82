// `build` as loops writing into preallocated typed arrays, in destination-passing style (paper 000 §4.2).
//
// A build whose body ends in another build (after some lets), and so on, is one *chain* B0 ⊃ B1 ⊃ ... ⊃ Bk: the
// nested loops write the innermost (terminal) values straight into B0's buffers, one buffer per leaf, at the linear
// element index e_k = (...(t0 * n1 + t1) * n2 + ...) * nk + tk, scaled by the terminal element's size when that is
// itself an array (which is then copied). No inner build allocates anything.
//
// The shape of B0's elements is only known once the first terminal element is about to be written (each n_j is
// computed inside the loops), so the buffers are allocated on the first descent (all loop variables 0): at the start
// of Bk's loop when the terminal values are scalars, at the first terminal write otherwise. If some n_j is 0 on that
// descent, the total size is 0 and the initial empty typed arrays are the buffers.
//
// Shapes are checked as the interpreter checks them, so that the same error comes out in the same circumstances: each
// level j records the dimensions of the first element of its current run (R_j) and the first element that differs
// (bad_j, F_j); when the run ends, a difference is the irregular-build error of src/runtime/stack.ts at B_j's span. An
// element of level j < k has dimensions [n_{j+1}, R_{j+1}...], where R_{j+1} stays all 0 when n_{j+1} = 0: the stack.ts
// convention for the inner dimensions of an empty array. B0's record is the result's inner dimensions. Until an
// irregular run ends, its writes may land in the wrong places (or be clipped at the buffer's end), which is harmless:
// the build fails before its value is used.

import { typeOf, type Build, type Let, type Prim } from "../ir/ir.js";
import {
  buildChain,
  copyOf,
  leavesZeros,
  oneHotTerminal,
  zeroBranch,
  zeroFilled,
  type ZeroBranch,
} from "../lowering/build-forms.js";
import type { ScalarKind } from "../runtime/value.js";
import { elemKind, leafSlotCount, leafStarts, leavesOf } from "../lowering/leaves.js";
import { slotNames } from "./writer.js";
import { EMPTY_ARRAY, plus, times, type Emitter, type Slots } from "./emit.js";

const ARENA_KIND: Record<ScalarKind, string> = { double: "F64", int: "I32", bool: "U8" };

/**
 * JavaScript for a new array of n elements of kind k (from the call's arena, ./arena.ts): zero-filled, or with
 * whatever the arena's memory holds when the code writes every element before reading any (`overwritten`).
 */
export function allocation(k: ScalarKind, n: string, overwritten = false): string {
  return `$a.${ARENA_KIND[k].toLowerCase()}(${n}${overwritten ? ", false" : ""})`;
}

/** JavaScript for a copy of data[from, to) (from the call's arena). */
export function sliceOf(k: ScalarKind, data: string, from: string, to: string): string {
  return `$a.slice${ARENA_KIND[k]}(${data}, ${from}, ${to})`;
}

/**
 * A copy build as one `slice` (no zero-filling, no loop); the first index out of range is reported, as the loop would.
 */
function emitCopy(em: Emitter, b: Build, get: Prim, base: string): Slots {
  const n = em.atom(b.size)[0]!;
  em.checkCount(n, "build size", b.span);
  const [data, offset, length] = em.atom(get.args[0]!) as [string, string, string];
  const at = em.spanRef(get.span);
  if (n !== length) em.failIf(`${n} > ${length}`, [length], ([len]) => `$rt.indexOutOfRange(${len}, ${len}, ${at})`);
  const buffer = slotNames(base, b.type)[0]!;
  em.out.line(`const ${buffer} = $a.sliceF64(${data}, ${offset}, ${offset === "0" ? n : `${offset} + ${n}`});`);
  return [buffer, "0", n];
}

const boolToByte = (b: string): string => (b === "true" ? "1" : b === "false" ? "0" : `${b} ? 1 : 0`);

export function emitBuild(em: Emitter, outer: Build, base: string): Slots {
  const copied = copyOf(outer);
  if (copied !== undefined) return emitCopy(em, outer, copied, base);
  // `build n (fun _ -> 0)`: typed arrays start as zeros (+0, 0, false), so allocating is all there is to do.
  const zeros = zeroFilled(outer);
  if (zeros !== undefined) {
    const n = em.atom(outer.size)[0]!;
    em.checkCount(n, "build size", outer.span);
    const name = slotNames(base, outer.type)[0]!;
    em.out.line(`const ${name} = ${allocation(zeros, n)};`);
    return [name, "0", n];
  }
  const levels = buildChain(outer);
  const k = levels.length - 1;
  const terminal = levels[k]!.build.body;
  const termLeaves = leavesOf(typeOf(terminal));
  const termArrays = termLeaves.filter((l) => l.rank > 0);
  // Dimensions of a terminal element's array leaves, one after another (the part of a record below the n_j).
  const termDimCount = termArrays.reduce((n, l) => n + l.rank, 0);

  const resultNames = slotNames(base, outer.type);
  const resultStarts = leafStarts(leavesOf(outer.type));
  const buffers = resultStarts.map((s) => resultNames[s]!);
  const sizes: string[] = []; // n_j
  const indices: string[] = []; // t_j
  const runStarts: string[] = []; // b_j: linear index (among level j's elements) of the current run's element 0
  const records: string[][] = []; // R_j
  const out = em.out;

  const elementIndex = (j: number) => (runStarts[j] === "0" ? indices[j]! : `${runStarts[j]} + ${indices[j]}`);
  const firstDescent = (upTo: number) =>
    upTo === 0 ? `${indices[0]} === 0` : `(${indices.slice(0, upTo + 1).join(" | ")}) === 0`;
  // Only a chain that leaves some elements unwritten needs zeroed memory (the arena's reused memory otherwise costs a
  // fill).
  const sparseTerminal = leavesZeros(levels);
  const allocate = (elementSize: (leaf: number) => string) =>
    termLeaves.map(
      (leaf, l) => `${buffers[l]} = ${allocation(elemKind(leaf), times([...sizes, elementSize(l)]), !sparseTerminal)};`,
    );

  const level = (j: number): void => {
    const b = levels[j]!.build;
    const n = em.atom(b.size)[0]!;
    sizes.push(n);
    em.checkCount(n, "build size", b.span);
    const scalarOnly = k === 0 && termArrays.length === 0;
    if (j === 0) {
      termLeaves.forEach((leaf, l) => {
        if (scalarOnly) out.line(`const ${buffers[l]} = ${allocation(elemKind(leaf), n, !sparseTerminal)};`);
        else out.line(`let ${buffers[l]} = ${EMPTY_ARRAY[elemKind(leaf)]};`);
      });
    }
    const recordLength = k - j + termDimCount;
    const record = Array.from({ length: recordLength }, (_, q) => `${base}_r${j}_${q}`);
    const found = Array.from({ length: recordLength }, (_, q) => `${base}_f${j}_${q}`);
    const bad = `${base}_bad${j}`;
    records.push(record);
    em.markDimensionNames(record);
    if (recordLength > 0) out.line(`let ${[...record, ...found].map((x) => `${x} = 0`).join(", ")}, ${bad} = -1;`);
    if (j === 0) runStarts.push("0");
    else {
      const start = `${base}_b${j}`;
      const prev = elementIndex(j - 1);
      out.line(`const ${start} = ${prev === indices[j - 1] ? prev : `(${prev})`} * ${n};`);
      runStarts.push(start);
    }
    if (j === k && termArrays.length === 0 && k > 0) {
      out.open(`if (${firstDescent(k - 1)}) {`);
      for (const line of allocate(() => "1")) out.line(line);
      out.close();
    }

    const t = em.loopVariable(b.index, n);
    indices.push(t);
    const sparse = j === k ? oneHotTerminal(b) : undefined;
    if (sparse !== undefined) {
      // The buffers are fresh (all zeros): only the hot element is written, and its value computed only there.
      const hot = em.atom(sparse.at)[0]!;
      out.open(`if (${hot} >= 0 && ${hot} < ${n}) {`);
      out.line(`const ${t} = ${hot};`);
      terminalWrite(em.expr(sparse.value, em.fresh()));
      out.close();
      indices.pop();
      return;
    }
    out.open(`for (let ${t} = 0; ${t} < ${n}; ${t}++) {`);
    let element: string[];
    if (j < k) {
      for (const l of levels[j]!.lets) em.letBinding(l);
      level(j + 1);
      element = [sizes[j + 1]!, ...records[j + 1]!];
    } else {
      const lets: Let[] = [];
      let tail = terminal;
      for (; tail.kind === "let"; tail = tail.body) lets.push(tail);
      const zb = termLeaves.length === 1 && termArrays.length === 1 ? zeroBranch(tail) : undefined;
      if (zb === undefined) element = terminalWrite(em.expr(terminal, em.fresh()));
      else {
        for (const l of lets) em.letBinding(l);
        element = zeroOrValue(zb);
      }
    }
    if (recordLength > 0) {
      const differs = element.map((x, q) => `${x} !== ${record[q]}`).join(" || ");
      out.open(`if (${t} === 0) {`);
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
      const at = em.spanRef(b.span);
      const type = em.typeRef(elemType);
      em.failIf(`${bad} >= 0`, [bad, ...record, ...found], ([index, ...dims]) => {
        const first = dims.slice(0, recordLength).join(", ");
        const other = dims.slice(recordLength).join(", ");
        return `$rt.irregular(${at}, ${type}, ${k - j}, ${index}, [${first}], [${other}])`;
      });
    }
    indices.pop();
  };

  // `if c then A else build m (fun _ -> 0.)`: the zeros are already in the fresh buffer, so that branch only gives
  // the element's size (for the allocation and the shape check), and the copy is skipped when the data is null.
  const zeroOrValue = (zb: ZeroBranch): string[] => {
    const [d, o, m] = [`${base}_zd`, `${base}_zo`, `${base}_zm`];
    const cond = em.atom(zb.cond)[0]!;
    out.line(`let ${d} = null, ${o} = 0, ${m} = 0;`);
    out.open(`if (${zb.zeroWhen ? `!${cond}` : cond}) {`);
    const v = em.expr(zb.value, em.fresh());
    out.line(`${d} = ${v[0]}; ${o} = ${v[1]}; ${m} = ${v[2]};`);
    out.close("} else {");
    out.indentIn();
    const size = em.atom(zb.zero.size)[0]!;
    em.checkCount(size, "build size", zb.zero.span);
    out.line(`${m} = ${size};`);
    out.close();
    return terminalWrite([d, o, m], `${d} !== null`);
  };

  // Writes the terminal value (slots `v`) at element index e_k; returns the dimensions of its array leaves.
  const terminalWrite = (v: Slots, copyGuard?: string): string[] => {
    const starts = leafStarts(termLeaves);
    const at = elementIndex(k);
    const elementSizes = termLeaves.map((leaf, l) => {
      if (leaf.rank === 0) return "1";
      const dims = v.slice(starts[l]! + 2, starts[l]! + leafSlotCount(leaf));
      if (dims.length === 1) return dims[0]!;
      const size = `${base}_s${l}`;
      out.line(`const ${size} = ${dims.join(" * ")};`);
      return size;
    });
    if (termArrays.length > 0) {
      out.open(`if (${firstDescent(k)}) {`);
      for (const line of allocate((l) => elementSizes[l]!)) out.line(line);
      out.close();
    }
    const dims: string[] = [];
    termLeaves.forEach((leaf, l) => {
      const s = starts[l]!;
      if (leaf.rank === 0) {
        out.line(`${buffers[l]}[${at}] = ${leaf.kind === "bool" ? boolToByte(v[s]!) : v[s]};`);
        return;
      }
      const size = elementSizes[l]!;
      const to = times([at.includes(" ") ? `(${at})` : at, size]);
      // Inline (no call in the loop nest); clipped to the buffer, which only an irregular build (an error raised when
      // its loop ends) can overrun.
      const [q, end, from] = [em.fresh(), em.fresh(), em.fresh()];
      const copy =
        `{ const ${from} = ${to}; for (let ${q} = 0, ${end} = Math.min(${size}, ${buffers[l]}.length - ${from}); ${q} < ${end}; ${q}++) ` +
        `${buffers[l]}[${from} + ${q}] = ${v[s]}[${plus(v[s + 1]!, q)}]; }`;
      out.line(copyGuard === undefined ? copy : `if (${copyGuard}) ${copy}`);
      dims.push(...v.slice(s + 2, s + leafSlotCount(leaf)));
    });
    return dims;
  };

  level(0);

  // The result: buffer, offset 0, then [n0, the n_j of B0's first element, its terminal leaf's dimensions].
  const common = records[0]!.slice(0, k);
  let termDims = records[0]!.slice(k);
  return termLeaves.flatMap((leaf, l) => {
    const own = termDims.slice(0, leaf.rank);
    termDims = termDims.slice(leaf.rank);
    return [buffers[l]!, "0", sizes[0]!, ...common, ...own];
  });
}
