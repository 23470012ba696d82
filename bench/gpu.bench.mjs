// `npm run bench:gpu` (issue 34): an MLP training step (value and gradient, 784 → 1024 → 1024 → 10, batch 256), a
// conv2d layer's gradient and the GMM objective's gradient on the webgpu back end, on wasm-f32 (the CPU, float32 too) and on
// jax-js's WebGPU backend (@jax-js/jax, installed on demand), side by side, each checked against wasm-f32 first. It
// prints the adapter it ran on. Node reaches the GPU through Dawn (the `webgpu` package, installed on demand): the
// default adapter first; with none, Mesa's software adapter through OpenGL (EGL_PLATFORM=surfaceless). On a software
// adapter the timings say nothing about a GPU's speed (the table says so), and the MLP's sizes are scaled down to what
// fits its cap of 65,535 loop iterations per thread (`--full` keeps them; a workload past the cap is reported as such);
// the conv2d and GMM gradients run at full size there, their sweeps spread over threads. Options: --full, --rounds=N, --backend=opengl|vulkan (Dawn's), --no-install, --only=mlp,conv,gmm.
// Writes bench/results/gpu.md and .json on a hardware adapter, bench/scratch/ on a software one.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadProgram } from "../dist/api/program.js";
import { describeParam } from "../dist/api/entry-types.js";
import { valueFromJson } from "../dist/runtime/json.js";
import { useGpu, gpuAdapter } from "../dist/index.js";
import { importOnDemand, installOnDemand } from "../scripts/on-demand.mjs";

const flag = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const ROUNDS = Number(flag("rounds") ?? 10);
const ONLY = (flag("only") ?? "mlp,conv,gmm").split(",");
const install = !process.argv.includes("--no-install");

// ---- the GPU ----
if (install) installOnDemand(["webgpu"]);
const dawn = await importOnDemand("webgpu");
if (!dawn) throw new Error("the `webgpu` package is not installed: node scripts/on-demand.mjs webgpu");
Object.assign(globalThis, dawn.globals);
process.env.EGL_PLATFORM ??= "surfaceless";

/** A GPU with an adapter: Dawn's default (or --backend's) first, then OpenGL in compatibility mode (Mesa). */
async function findGpu() {
  const tries = flag("backend")
    ? [[[`backend=${flag("backend")}`], flag("backend") === "opengl" ? { featureLevel: "compatibility" } : {}]]
    : [
        [[], { powerPreference: "high-performance" }],
        [["backend=opengl"], { featureLevel: "compatibility" }],
      ];
  for (const [flags, options] of tries) {
    const gpu = dawn.create(flags);
    const adapter = await gpu.requestAdapter(options);
    if (adapter) return { gpu, options, info: adapter.info };
  }
  throw new Error("no WebGPU adapter (on Debian: apt-get install mesa-vulkan-drivers libegl1 libgl1-mesa-dri)");
}
const { gpu, options, info } = await findGpu();
useGpu(gpu, options);
const adapterText = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" / ");
const software = /llvmpipe|lavapipe|swiftshader|softpipe|software/i.test(`${adapterText} ${await gpuAdapter()}`);
const full = !software || process.argv.includes("--full");
console.log(`adapter: ${adapterText || (await gpuAdapter())}${software ? " (a software adapter)" : ""}`);
console.log(full ? "full sizes" : "the MLP's sizes scaled down for a software adapter (--full keeps them)");

// ---- the workloads ----
const text = (path) => readFileSync(new URL(`../examples/${path}`, import.meta.url), "utf8");
/** n numbers in [lo, hi), the same for the same seed (test/webgpu/models.ts's sequence). */
function numbers(n, seed, lo = -1, hi = 1) {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return lo + ((s >>> 8) / 2 ** 24) * (hi - lo);
  });
}
const rows = (data, r, c) => Array.from({ length: r }, (_, i) => data.slice(i * c, (i + 1) * c));
const oneHot = (n, k) =>
  Array.from({ length: n }, (_, r) => Array.from({ length: k }, (_, j) => (j === r % k ? 1 : 0)));

function mlpCase() {
  // A thread per example, all adding into the same adjoints with compare-exchange loops: on a software adapter the
  // retries count against its loop cap, which a larger layer or batch passes.
  const [IN, H1, H2, OUT, BATCH] = full ? [784, 1024, 1024, 10, 256] : [32, 16, 16, 4, 16];
  const args = [
    rows(numbers(H1 * IN, 1, -0.05, 0.05), H1, IN),
    numbers(H1, 2, -0.1, 0.1),
    rows(numbers(H2 * H1, 3, -0.05, 0.05), H2, H1),
    numbers(H2, 4, -0.1, 0.1),
    rows(numbers(OUT * H2, 5, -0.1, 0.1), OUT, H2),
    numbers(OUT, 6, -0.1, 0.1),
    rows(numbers(BATCH * IN, 7, 0, 1), BATCH, IN),
    oneHot(BATCH, OUT),
  ];
  return {
    name: `MLP step ${IN}→${H1}→${H2}→${OUT}, batch ${BATCH}`,
    source: text("models/mlp.smooth"),
    entry: "mlp2Loss",
    kind: "value-gradient",
    wrt: [0, 1, 2, 3, 4, 5],
    args,
    jax: (np, nn) => {
      const [X, Y] = [
        np.array(args[6].flat(), { shape: [BATCH, IN] }),
        np.array(args[7].flat(), { shape: [BATCH, OUT] }),
      ];
      const loss = (w1, c1, w2, c2, w3, c3) => {
        const h1 = np.tanh(np.add(np.matmul(X.ref, np.transpose(w1)), c1));
        const h2 = np.tanh(np.add(np.matmul(h1, np.transpose(w2)), c2));
        const z = np.add(np.matmul(h2, np.transpose(w3)), c3);
        return np.mean(np.subtract(nn.logsumexp(z.ref, 1), np.sum(np.multiply(Y.ref, z), 1)));
      };
      const shapes = [[H1, IN], [H1], [H2, H1], [H2], [OUT, H2], [OUT]];
      return {
        loss,
        params: args.slice(0, 6).map((a, i) => np.array(a.flat(), { shape: shapes[i] })),
        argnums: [0, 1, 2, 3, 4, 5],
        value: true,
      };
    },
  };
}

function convCase() {
  // A thread per (filter, output row, column) since the sweep's loops are flattened: full size fits the software cap.
  const [F, C, H, W] = [16, 3, 64, 64];
  const k = numbers(F * C * 9, 6, -0.3, 0.3);
  const img = numbers(C * H * W, 7, 0, 1);
  const K = Array.from({ length: F }, (_, f) =>
    Array.from({ length: C }, (_, c) => rows(k.slice((f * C + c) * 9, (f * C + c + 1) * 9), 3, 3)),
  );
  const I = Array.from({ length: C }, (_, c) => rows(img.slice(c * H * W, (c + 1) * H * W), H, W));
  return {
    name: `conv2d gradient, ${F} filters 3x3 over ${C} x ${H} x ${W}`,
    source: text("models/conv2d.smooth"),
    entry: "conv2dLoss",
    kind: "gradient",
    wrt: [0, 1],
    args: [K, I],
  };
}

function gmmCase() {
  // A thread per point: full size fits the software cap.
  const [d, K, n] = [10, 25, 1000];
  const icf = d + (d * (d - 1)) / 2;
  return {
    name: `GMM gradient, d = ${d}, K = ${K}, n = ${n}`,
    source: text("adbench/gmm.smooth"),
    entry: "gmmObjective",
    kind: "gradient",
    wrt: [0, 1, 2],
    args: [
      numbers(K, 8),
      rows(numbers(K * d, 9), K, d),
      rows(numbers(K * icf, 10, -0.5, 0.5), K, icf),
      rows(numbers(n * d, 11), n, d),
      1,
      0,
    ],
  };
}

// ---- measuring ----
const flat = (v) =>
  typeof v === "number"
    ? [v]
    : ArrayBuffer.isView(v)
      ? Array.from(v)
      : Array.isArray(v)
        ? v.flatMap(flat)
        : v.data
          ? Array.from(v.data)
          : v.elems.flatMap(flat);

/** The first call (compiling included) and the median of ROUNDS more, in ms; the first call's numbers. */
async function time(run) {
  const t0 = performance.now();
  const first = flat(await run());
  const firstMs = performance.now() - t0;
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { first, firstMs, medianMs: times[times.length >> 1] };
}

let jax;
const notes = [];
if (process.argv.includes("--no-jax")) notes.push("jax-js not run (--no-jax)");
else
  try {
    if (install) installOnDemand(["@jax-js/jax"]);
    globalThis.Float16Array ??= class Float16Array extends Float32Array {};
    // jax-js finds the GPU as a browser's navigator.gpu, asking for an adapter with options of its own: ours are added
    // (a software adapter through OpenGL needs compatibility mode).
    const jaxGpu = {
      requestAdapter: (o) => gpu.requestAdapter({ ...o, ...options }),
      getPreferredCanvasFormat: () => gpu.getPreferredCanvasFormat?.() ?? "rgba8unorm",
      wgslLanguageFeatures: gpu.wgslLanguageFeatures,
    };
    if (globalThis.navigator === undefined) globalThis.navigator = { userAgent: `Node.js/${process.version}` };
    Object.defineProperty(globalThis.navigator, "gpu", { value: jaxGpu, configurable: true });
    jax = await importOnDemand("@jax-js/jax");
    if (!jax) throw new Error("@jax-js/jax is not installed");
    await jax.init("webgpu");
    jax.defaultDevice?.("webgpu");
  } catch (e) {
    notes.push(`jax-js's WebGPU backend did not run: ${e.message}`);
    jax = undefined;
  }

const results = [];
for (const make of [mlpCase, convCase, gmmCase].filter((_, i) => ONLY.includes(["mlp", "conv", "gmm"][i]))) {
  const c = make();
  const prog = loadProgram({ name: `${c.entry}.smooth`, text: c.source });
  const types = prog.argTypesFromJson(c.entry, c.args);
  const def = prog.definition(c.entry);
  const values = c.args.map((a, i) => valueFromJson(a, types[i], describeParam(def, i)));
  const spec = (engine) => prog.derivative(c.entry, types, c.wrt, engine, undefined, c.kind);
  const cpu = await time(async () => spec("wasm-f32").run(values));
  const row = { workload: c.name, rows: [{ name: "wasm-f32 (CPU)", ...cpu, maxDiff: 0 }] };
  const scale = Math.max(1, ...cpu.first.map(Math.abs));
  const diff = (got) =>
    got.length !== cpu.first.length ? Infinity : Math.max(0, ...got.map((x, i) => Math.abs(x - cpu.first[i]))) / scale;
  const gpuSpec = spec("webgpu");
  try {
    const g = await time(() => gpuSpec.runAsync(values));
    row.rows.push({ name: "Smooth webgpu", ...g, maxDiff: diff(g.first) });
  } catch (e) {
    notes.push(`Smooth webgpu on ${c.name}: ${e.message.split("\n")[0]}`);
  }
  if (jax && c.jax)
    try {
      const { loss, params, argnums, value } = c.jax(jax.numpy, jax.nn);
      const f = jax.jit(value ? jax.valueAndGrad(loss, { argnums }) : jax.grad(loss, { argnums }));
      const j = await time(async () => {
        const out = f(...params.map((p) => p.ref));
        const parts = value ? [out[0], ...out[1]] : out;
        return Promise.all(parts.map((x) => x.data()));
      });
      row.rows.push({ name: "jax-js webgpu", ...j, maxDiff: diff(j.first) });
    } catch (e) {
      notes.push(`jax-js on ${c.name}: ${e.message.split("\n")[0]}`);
    }
  for (const r of row.rows)
    console.log(
      `${c.name.padEnd(48)} ${r.name.padEnd(16)} first ${r.firstMs.toFixed(1)} ms, median ${r.medianMs.toFixed(2)} ms, ` +
        `max diff / scale ${r.maxDiff.toExponential(1)}`,
    );
  const worst = Math.max(0, ...row.rows.map((r) => r.maxDiff));
  if (!(worst <= 1e-3))
    notes.push(`${c.name}: a result differs from wasm-f32 by ${worst.toExponential(1)} of its scale`);
  results.push(row);
}

const table = [
  "| workload | implementation | first call (ms, compiles) | median (ms) | / wasm-f32 | max diff from wasm-f32 / scale |",
  "| --- | --- | ---: | ---: | ---: | ---: |",
  ...results.flatMap((w) =>
    w.rows.map(
      (r) =>
        `| ${w.workload} | ${r.name} | ${r.firstMs.toFixed(1)} | ${r.medianMs.toFixed(2)} | ` +
        `${(r.medianMs / w.rows[0].medianMs).toFixed(2)} | ${r.maxDiff.toExponential(1)} |`,
    ),
  ),
].join("\n");
console.log(table);
for (const n of notes) console.log(`note: ${n}`);
const out = new URL(software ? "./scratch/" : "./results/", import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(
  new URL("gpu.md", out),
  `# WebGPU: MLP step, conv2d and GMM gradients\n\n\`npm run bench:gpu\`, Node ${process.version}, adapter: ` +
    `${adapterText}; median of ${ROUNDS} calls after the first.` +
    (software ? " A software adapter: these timings say nothing about a GPU's speed." : "") +
    `\n\n${table}\n` +
    (notes.length ? `\n${notes.map((n) => `- ${n}`).join("\n")}\n` : ""),
);
writeFileSync(
  new URL("gpu.json", out),
  JSON.stringify({ adapter: info, software, full, results, notes }, null, 2) + "\n",
);
if (notes.some((n) => n.includes("differs from wasm-f32"))) process.exitCode = 1;
