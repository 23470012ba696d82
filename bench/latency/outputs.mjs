// What the GradBench evals compile to, for checking that a change to the compiler's speed changed none of its output:
// every eval is defined (all its functions compiled) by the wasm and the js back ends, and for each compiled
// function the optimised program as printed text, its generated JavaScript, and the bytes of every wasm module made
// are written to one file per eval and back end. Run it on the builds before and after a change and compare the
// folders (`diff -r`). Arguments: the output folder, then optionally the dist/ folder to load (default ../../dist/).
// Usage: node bench/latency/outputs.mjs /tmp/out-new [path/to/dist]

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const out = process.argv[2];
if (out === undefined) throw new Error("usage: outputs.mjs OUT_DIR [DIST_DIR]");
const dist =
  process.argv[3] === undefined ? new URL("../../dist/", import.meta.url) : pathToFileURL(`${process.argv[3]}/`);
const { SmoothProgram } = await import(new URL("api/program.js", dist).href);
const { printIr } = await import(new URL("ir/print.js", dist).href);
const { EVALS } = await import(new URL("gradbench/registry.js", dist).href);

let record = [];
// JavaScript names variables by their ids, which count every variable the process has made: numbered here in order
// of appearance, so that a change in how many variables earlier work made does not show as a difference.
function numbered(code) {
  const names = new Map();
  return code.replace(/\bv(\d+)/g, (_, id) => {
    if (!names.has(id)) names.set(id, names.size);
    return `v#${names.get(id)}`;
  });
}
// Every wasm module compiled, in order (the back end compiles through the global WebAssembly.Module).
const OriginalModule = WebAssembly.Module;
WebAssembly.Module = function (bytes) {
  record.push(`wasm module ${bytes.length} bytes sha256 ${createHash("sha256").update(bytes).digest("hex")}`);
  return new OriginalModule(bytes);
};
for (const method of ["specialise", "derivative"]) {
  const original = SmoothProgram.prototype[method];
  SmoothProgram.prototype[method] = function (...args) {
    const spec = original.apply(this, args);
    record.push(
      `== ${method} ${spec.name} ${spec.engine}\n${printIr(spec.optimised)}\n-- code\n${numbered(spec.code?.text ?? "")}`,
    );
    return spec;
  };
}

mkdirSync(out, { recursive: true });
for (const engine of ["wasm", "js"]) {
  process.env.SMOOTH_ENGINE = engine;
  for (const [name, make] of EVALS) {
    record = [];
    make().define();
    writeFileSync(`${out}/${name}.${engine}.txt`, record.join("\n") + "\n");
  }
}
