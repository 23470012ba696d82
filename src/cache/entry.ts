// A compiled program as bytes, for the persistent compile cache, and back: what a back end needs to run it again
// without compiling. The wasm back end's: the module's bytes (and its unshared twin's) and the metadata
// src/wasm/runtime.ts calls it with, its error sites as data (./sites.ts). The JavaScript back end's: the generated
// function's text and the spans and types its closure holds (src/codegen/compile.ts, GeneratedFunction).
//
// Layout: the length of the header (4 bytes, little-endian), the header (JSON), then the module's bytes and its twin's.

import type { GeneratedCode } from "../backends/backend.js";
import type { GeneratedFunction } from "../codegen/compile.js";
import type { Type } from "../types/types.js";
import type { WasmProgram } from "../wasm/module.js";
import { Decoder, Encoder } from "./data.js";
import { recordSite, replaySite } from "./sites.js";

/** What a compiled back end made, in a form that can be run again (Executable.artefact). */
export type Artefact =
  | { readonly kind: "wasm"; readonly program: WasmProgram }
  | { readonly kind: "js"; readonly generated: GeneratedFunction };

/** A program read back from the cache. */
export interface Entry {
  readonly name: string;
  readonly resultType: Type;
  readonly artefact: Artefact;
  readonly code?: GeneratedCode;
}

const FORMAT = 1;

/** The entry as bytes; throws NotCacheable when some part of it cannot be written as data. */
export function encodeEntry(entry: Entry): Uint8Array {
  const encoder = new Encoder();
  const { artefact: a } = entry;
  let body: unknown;
  const blobs: Uint8Array[] = [];
  if (a.kind === "wasm") {
    const { bytes, unsharedBytes, sites, ...meta } = a.program;
    const savedLength = (meta.dataStart - meta.layout.errorArea) >> 3;
    blobs.push(bytes, ...(unsharedBytes === undefined ? [] : [unsharedBytes]));
    body = {
      meta: encoder.encode(meta),
      sites: sites.map((s) => recordSite(s, savedLength, encoder)),
      sizes: blobs.map((b) => b.length),
    };
  } else body = { generated: encoder.encode(a.generated) };
  // A JavaScript program's listing is its source, with a line before it when wasm could not take it.
  const code = entry.code;
  const codeJson =
    code === undefined
      ? null
      : a.kind === "js" && code.text.endsWith(a.generated.source)
        ? { language: code.language, before: code.text.slice(0, code.text.length - a.generated.source.length) }
        : { language: code.language, text: code.text };
  const header = new TextEncoder().encode(
    JSON.stringify({
      format: FORMAT,
      kind: a.kind,
      name: entry.name,
      resultType: encoder.encode(entry.resultType),
      code: codeJson,
      body,
      files: encoder.fileTable(),
    }),
  );
  const out = new Uint8Array(4 + header.length + blobs.reduce((n, b) => n + b.length, 0));
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let at = 4 + header.length;
  for (const b of blobs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** The entry the bytes hold; throws on anything malformed (the caller then compiles). */
export function decodeEntry(bytes: Uint8Array): Entry {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const h = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as Record<string, unknown>;
  if (h.format !== FORMAT) throw new Error("cache entry: another format");
  const decoder = new Decoder(h.files);
  const body = h.body as Record<string, unknown>;
  let artefact: Artefact;
  if (h.kind === "wasm") {
    const sizes = body.sizes as number[];
    let at = 4 + length;
    const blobs = sizes.map((n) => {
      const blob = bytes.slice(at, at + n);
      at += n;
      return blob;
    });
    if (at !== bytes.length || blobs.length < 1) throw new Error("cache entry: sizes do not add up");
    const meta = decoder.decode(body.meta) as Omit<WasmProgram, "bytes" | "unsharedBytes" | "sites">;
    const sites = (body.sites as unknown[]).map((s) => replaySite(s, decoder));
    const program: WasmProgram = {
      ...meta,
      bytes: blobs[0]!,
      ...(blobs[1] === undefined ? {} : { unsharedBytes: blobs[1] }),
      sites,
    };
    artefact = { kind: "wasm", program };
  } else if (h.kind === "js") {
    artefact = { kind: "js", generated: decoder.decode(body.generated) as GeneratedFunction };
  } else throw new Error("cache entry: an unknown kind");
  const c = h.code as { language: string; text?: string; before?: string } | null;
  const code =
    c === null
      ? undefined
      : {
          language: c.language,
          text: c.text ?? `${c.before ?? ""}${(artefact as { generated: GeneratedFunction }).generated.source}`,
        };
  return {
    name: h.name as string,
    resultType: decoder.decode(h.resultType) as Type,
    artefact,
    ...(code === undefined ? {} : { code }),
  };
}
