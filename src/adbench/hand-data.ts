// The ADBench hand-tracking (HT) data (../shared/data/adbench/README.md), read into GradBench's HTInput JSON (its
// evals/ht README): a model folder and an instance file.
//
//   model/bones.txt      one bone a line: name:parent:16 values (base relative, row-major):16 values (inverse base
//                        absolute)
//   model/vertices.txt   one vertex a line: x:y:z: five unused fields: n: then n pairs bone:weight
//   model/triangles.txt  one triangle a line: a:b:c
//   instance             N n_theta; N lines `corr x y z`; complicated only: N lines `u0 u1`; then n_theta lines of
//                        theta

import { join } from "node:path";
import { fail } from "../syntax/diagnostics.js";
import type { SourceFile, Span } from "../syntax/source.js";
import { DataLines, readDataFile } from "./data-lines.js";

/** GradBench's HTModel. Matrices are nested arrays, row-major; base positions are homogeneous (x, y, z, 1). */
export interface HandModel {
  readonly bone_count: number;
  readonly bone_names: string[];
  readonly parents: number[];
  /** bone_count 4 x 4 matrices. */
  readonly base_relatives: number[][][];
  readonly inverse_base_absolutes: number[][][];
  /** One row (x, y, z, 1) per vertex. */
  readonly base_positions: number[][];
  /** One row per vertex, one column per bone (dense; most are zero). */
  readonly weights: number[][];
  readonly triangles: number[][];
  readonly is_mirrored: boolean;
}

/** GradBench's HTInput (without min_runs / min_seconds): `us` is empty for the simple problem. */
export interface HandInput {
  readonly theta: number[];
  readonly data: { readonly model: HandModel; readonly correspondences: number[]; readonly points: number[][] };
  readonly us: number[][];
}

export function readHandModel(folder: string): HandModel {
  const bones = colonRecords(readDataFile(join(folder, "bones.txt")));
  const vertices = colonRecords(readDataFile(join(folder, "vertices.txt")));
  const triangles = colonRecords(readDataFile(join(folder, "triangles.txt")));
  const matrix = (r: ColonRecord, from: number): number[][] =>
    [0, 1, 2, 3].map((row) => [0, 1, 2, 3].map((col) => r.number(from + 4 * row + col)));
  const boneCount = bones.length;
  return {
    bone_count: boneCount,
    bone_names: bones.map((r) => r.text(0)),
    parents: bones.map((r) => r.integer(1, -1, boneCount - 1)),
    base_relatives: bones.map((r) => matrix(r, 2)),
    inverse_base_absolutes: bones.map((r) => matrix(r, 18)),
    base_positions: vertices.map((r) => [r.number(0), r.number(1), r.number(2), 1]),
    weights: vertices.map((r) => {
      const row = new Array<number>(boneCount).fill(0);
      const count = r.integer(8, 0, boneCount);
      for (let k = 0; k < count; k++) row[r.integer(9 + 2 * k, 0, boneCount - 1)] = r.number(10 + 2 * k);
      return row;
    }),
    triangles: triangles.map((r) => [0, 1, 2].map((k) => r.integer(k, 0, vertices.length - 1))),
    is_mirrored: false,
  };
}

/** An instance file with its model; `complicated` says whether it has the N lines of u's. */
export function parseHandInstance(file: SourceFile, model: HandModel, complicated: boolean): HandInput {
  const lines = new DataLines(file);
  const [n, nTheta] = lines.integers(2, "the header `N n_theta`") as [number, number];
  const rows = lines.rows(n, 4, "correspondence `corr x y z`");
  const correspondences = rows.map((r, i) => {
    const limit = complicated ? model.triangles.length : model.base_positions.length;
    if (!Number.isInteger(r[0]) || r[0]! < 0 || r[0]! >= limit)
      fail(
        "argument",
        `${file.name}: correspondence ${i + 1} names ${complicated ? "triangle" : "vertex"} ${r[0]}, not one of the model's ${limit}`,
      );
    return r[0]!;
  });
  const us = complicated ? lines.rows(n, 2, "`u0 u1`") : [];
  const theta = lines.rows(nTheta, 1, "theta").map((r) => r[0]!);
  lines.end("theta");
  return { theta, data: { model, correspondences, points: rows.map((r) => r.slice(1)) }, us };
}

export function readHandInstance(modelFolder: string, instancePath: string, complicated: boolean): HandInput {
  return parseHandInstance(readDataFile(instancePath), readHandModel(modelFolder), complicated);
}

/** The fields of one line split at colons, read by position with located errors. */
interface ColonRecord {
  readonly length: number;
  text(k: number): string;
  number(k: number): number;
  integer(k: number, min: number, max: number): number;
}

function colonRecords(file: SourceFile): ColonRecord[] {
  const out: ColonRecord[] = [];
  let start = 0;
  const text = file.text;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    if (text.slice(start, end).trim() !== "") out.push(colonRecord(file, start, end));
    start = end + 1;
  }
  return out;
}

function colonRecord(file: SourceFile, start: number, end: number): ColonRecord {
  const fields: { text: string; span: Span }[] = [];
  let at = start;
  for (const piece of file.text.slice(start, end).split(":")) {
    fields.push({ text: piece.trim(), span: { file, start: at, end: at + Math.max(1, piece.length) } });
    at += piece.length + 1;
  }
  const field = (k: number) => {
    const f = fields[k];
    if (!f)
      fail("argument", `${file.name}: the line has ${fields.length} fields, field ${k + 1} is missing`, {
        file,
        start,
        end: Math.max(start + 1, end),
      });
    return f;
  };
  const number = (k: number) => {
    const f = field(k);
    const value = Number(f.text);
    if (f.text === "" || !Number.isFinite(value))
      fail("argument", `${file.name}: \`${f.text}\` is not a number`, f.span, { expected: "a finite number" });
    return value;
  };
  return {
    length: fields.length,
    text: (k) => field(k).text,
    number,
    integer(k, min, max) {
      const value = number(k);
      if (!Number.isInteger(value) || value < min || value > max)
        fail(
          "argument",
          `${file.name}: \`${field(k).text}\` should be an integer from ${min} to ${max}`,
          field(k).span,
        );
      return value;
    },
  };
}
