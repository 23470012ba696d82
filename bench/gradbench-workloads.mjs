// The default workloads of the GradBench evals (the suite's evals/<name>/run.py defaults), as evaluate inputs for the
// GradBench tool. Random inputs have the suite's sizes and distributions (uniform in [0, 1)) but come from our own
// reproducible generator, not numpy's. The ADBench problems read the data in ../shared/data/adbench (or
// $SMOOTH_ADBENCH_DATA): GMM from gmm/1k, LSTM from lstm/, BA from ba/, HT from hand/complicated_small (the suite's
// default "big" hand model is not in our copy of the data).
//
// A workload is { eval, name, primal, derivatives, input(): the input without min_runs / min_seconds }; primal is
// undefined for particle and saddle, which only have derivative functions. `quick` marks the --quick subset.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readGmm } from "../dist/adbench/gmm-data.js";
import { readLstm } from "../dist/adbench/lstm-data.js";
import { random } from "./lib.mjs";

export const DATA =
  process.env.SMOOTH_ADBENCH_DATA ?? fileURLToPath(new URL("../../shared/data/adbench/", import.meta.url));

const uniform = (n, seed) => Array.from(random(n, seed, 0, 1));
const rows = (r, c, seed) => Array.from({ length: r }, (_, i) => uniform(c, seed * 1000003 + i));
/** The data files of a folder matching `pattern`, ordered by the number after `prefix` in their names. */
function numbered(folder, pattern, prefix) {
  if (!existsSync(folder)) return [];
  const number = (f) => Number(f.slice(prefix.length).match(/^\d+/)[0]);
  return readdirSync(folder)
    .filter((f) => pattern.test(f))
    .sort((a, b) => number(a) - number(b));
}

function hello() {
  return [{ eval: "hello", name: "x=1", primal: "square", derivatives: ["double"], quick: true, input: () => 1 }];
}

function lse() {
  const sizes = [2500, 5000, 10000, 20000, 40000, 80000, 160000, 320000, 640000, 1280000];
  return sizes.map((n) => ({
    eval: "lse",
    name: `n=${n}`,
    primal: "primal",
    derivatives: ["gradient"],
    quick: n === 10000 || n === 1280000,
    input: () => ({ x: uniform(n, n) }),
  }));
}

function llsq() {
  const sizes = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8196, 16392];
  return sizes.map((n) => ({
    eval: "llsq",
    name: `n=${n},m=128`,
    primal: "primal",
    derivatives: ["gradient"],
    quick: n === 1024,
    input: () => ({ x: uniform(128, n), n }),
  }));
}

function ode() {
  const out = [];
  for (const n of [1000, 10000, 100000]) for (const s of [1, 10, 100]) out.push([n, s]);
  out.sort((a, b) => a[0] * a[1] - b[0] * b[1]);
  return out.map(([n, s]) => ({
    eval: "ode",
    name: `n=${n},s=${s}`,
    primal: "primal",
    derivatives: ["gradient"],
    quick: n === 10000 && s === 10,
    input: () => ({ x: uniform(n, n + s), s }),
  }));
}

function det() {
  return [5, 6, 7, 8, 9, 10, 11].map((ell) => ({
    eval: "det",
    name: `ell=${ell}`,
    primal: "primal",
    derivatives: ["gradient"],
    quick: ell === 11,
    input: () => ({ A: uniform(ell * ell, ell), ell }),
  }));
}

function kmeans() {
  const out = [];
  for (const k of [10, 100, 1000]) for (const n of [1000, 10000]) for (const d of [8, 16]) out.push([k, n, d]);
  out.sort((a, b) => a[0] * a[1] * a[2] - b[0] * b[1] * b[2]);
  return out.map(([k, n, d]) => ({
    eval: "kmeans",
    name: `k=${k},n=${n},d=${d}`,
    primal: "cost",
    derivatives: ["dir"],
    quick: k === 100 && n === 1000 && d === 8,
    input: () => {
      const points = rows(n, d, k + n + d);
      // As the suite does: the last k points are the centroids, so that every centroid has a point.
      return { points, centroids: points.slice(-k) };
    },
  }));
}

function gmm() {
  const folder = join(DATA, "gmm", "1k");
  const files = existsSync(folder) ? readdirSync(folder).filter((f) => /^gmm_d\d+_K\d+\.txt$/.test(f)) : [];
  const size = (f) =>
    f
      .match(/d(\d+)_K(\d+)/)
      .slice(1)
      .map(Number);
  files.sort((a, b) => size(a)[0] * size(a)[1] - size(b)[0] * size(b)[1] || size(a)[0] - size(b)[0]);
  return files.map((f) => {
    const [d, K] = size(f);
    return {
      eval: "gmm",
      name: `d=${d},k=${K},n=1000`,
      primal: "objective",
      derivatives: ["jacobian"],
      quick: d === 10 && K === 25,
      input: () => {
        const g = readGmm(join(folder, f));
        return {
          d: g.d,
          k: g.K,
          n: g.n,
          alpha: g.alphas,
          mu: g.means,
          q: g.icf.map((r) => r.slice(0, g.d)),
          l: g.icf.map((r) => r.slice(g.d)),
          x: g.x,
          gamma: g.gamma,
          m: g.m,
        };
      },
    };
  });
}

function lstm() {
  const folder = join(DATA, "lstm");
  return numbered(folder, /^lstm_l\d+_c\d+\.txt$/, "lstm_l").map((f) => {
    const [l, c] = f
      .match(/l(\d+)_c(\d+)/)
      .slice(1)
      .map(Number);
    return {
      eval: "lstm",
      name: `l=${l},c=${c}`,
      primal: "objective",
      derivatives: ["jacobian"],
      quick: l === 2 && c === 1024,
      input: () => {
        const s = readLstm(join(folder, f));
        return { main_params: s.mainParams, extra_params: s.extraParams, state: s.state, sequence: s.sequence };
      },
    };
  });
}

/** The suite's default range is ba1 to ba14. */
function ba() {
  const folder = join(DATA, "ba");
  return numbered(folder, /^ba\d+_.*\.txt$/, "ba")
    .filter((f) => Number(f.match(/^ba(\d+)/)[1]) <= 14)
    .map((f) => ({
      eval: "ba",
      name: f.replace(/\.txt$/, ""),
      primal: "objective",
      derivatives: ["jacobian"],
      quick: f.startsWith("ba1_"),
      input: () => {
        const lines = readFileSync(join(folder, f), "utf8").trim().split("\n");
        const nums = (i) => lines[i].trim().split(/\s+/).map(Number);
        const [n, m, p] = nums(0);
        return { n, m, p, cam: nums(1), x: nums(2), w: nums(3)[0], feat: nums(4) };
      },
    }));
}

function ht() {
  const folder = join(DATA, "hand", "complicated_small");
  return numbered(folder, /^hand\d+_t26_c\d+\.txt$/, "hand").map((f) => ({
    eval: "ht",
    name: `complicated ${f.replace(/\.txt$/, "")}`,
    primal: "objective",
    derivatives: ["jacobian"],
    quick: f.startsWith("hand1_"),
    input: () => readHandInstance(join(folder, "model"), join(folder, f), true),
  }));
}

const nested = (name, input) => [
  {
    eval: name,
    name: Object.entries(input)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(","),
    primal: undefined,
    derivatives: ["rr", "ff", "fr", "rf"],
    quick: true,
    input: () => input,
  },
];

/** Every workload of the twelve evals, eval by eval. */
export function workloads() {
  return [
    ...hello(),
    ...lse(),
    ...llsq(),
    ...ode(),
    ...det(),
    ...kmeans(),
    ...gmm(),
    ...lstm(),
    ...ba(),
    ...ht(),
    ...nested("particle", { w: 0 }),
    ...nested("saddle", { start: [1, 1] }),
  ];
}

/** The ht input (the suite's HTInput JSON) of a hand model folder and an instance file, as the suite reads them. */
export function readHandInstance(modelDir, instanceFile, complicated) {
  const lines = (file) =>
    readFileSync(join(modelDir, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
  const bones = lines("bones.txt").map((l) => l.split(":"));
  const matrix = (fields, from) => [0, 1, 2, 3].map((r) => fields.slice(from + 4 * r, from + 4 * r + 4).map(Number));
  const vertices = lines("vertices.txt").map((l) => l.split(":"));
  const weights = vertices.map((v) => {
    const row = new Array(bones.length).fill(0);
    for (let i = 0; i < Number(v[8]); i++) row[Number(v[9 + 2 * i])] = Number(v[10 + 2 * i]);
    return row;
  });
  const model = {
    bone_count: bones.length,
    bone_names: bones.map((b) => b[0]),
    parents: bones.map((b) => Number(b[1])),
    base_relatives: bones.map((b) => matrix(b, 2)),
    inverse_base_absolutes: bones.map((b) => matrix(b, 18)),
    base_positions: vertices.map((v) => [Number(v[0]), Number(v[1]), Number(v[2]), 1]),
    weights,
    triangles: lines("triangles.txt").map((l) => l.split(":").map(Number)),
    is_mirrored: false,
  };
  const instance = readFileSync(instanceFile, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => l.trim().split(/\s+/).map(Number));
  const [count, thetaCount] = instance[0];
  const correspondences = instance.slice(1, 1 + count);
  const us = complicated ? instance.slice(1 + count, 1 + 2 * count) : [];
  const theta = instance
    .slice(1 + (complicated ? 2 : 1) * count)
    .slice(0, thetaCount)
    .map((r) => r[0]);
  return {
    theta,
    data: { model, correspondences: correspondences.map((r) => r[0]), points: correspondences.map((r) => r.slice(1)) },
    us,
  };
}
