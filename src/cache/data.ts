// Compile-time data as JSON, for the persistent compile cache: the spans, types and numbers that compiled code's error
// sites and the JavaScript back end's closure hold. Spans point into source files, which are kept once per entry in a
// table (the prelude by name: its text is the compiler's own), so that an error raised by code from the cache shows the
// same excerpt as one raised by code just compiled. Anything else — a function, an object of a class — cannot be
// written: `encode` throws NotCacheable and the program is simply not stored.

import { preludeFile } from "../api/program.js";
import type { SourceFile, Span } from "../syntax/source.js";

export class NotCacheable extends Error {}

/** A number a recorded error site reads from the saved area at run time (./sites.ts): its position there. */
export class SavedMarker {
  constructor(readonly position: number) {}
  /** Arithmetic on a saved number cannot be recorded as data: the site is not cached. */
  valueOf(): never {
    throw new NotCacheable("an error site computes with a saved number");
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

const isSpan = (v: object): v is Span => "file" in v && "start" in v && "end" in v;

/** Writes data as JSON, its files into `files`. */
export class Encoder {
  readonly files: SourceFile[] = [];

  encode(v: unknown): Json {
    if (v === undefined) return { $u: 0 };
    if (v === null || typeof v === "boolean" || typeof v === "string") return v;
    if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0) ? v : { $n: String(v) };
    if (v instanceof SavedMarker) return { $s: v.position };
    if (Array.isArray(v)) return v.map((x) => this.encode(x));
    if (typeof v !== "object" || !isPlain(v)) throw new NotCacheable(`cannot store ${typeof v}`);
    if (isSpan(v)) {
      const { file, start, end, caller, ...rest } = v;
      if (Object.keys(rest).length > 0) throw new NotCacheable("a span with more fields");
      return { $span: [this.file(file), start, end], ...(caller === undefined ? {} : { caller: this.encode(caller) }) };
    }
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k.startsWith("$")) throw new NotCacheable(`a key ${k}`);
      out[k] = this.encode(x);
    }
    return out;
  }

  private file(f: SourceFile): number {
    const at = this.files.indexOf(f);
    return at >= 0 ? at : this.files.push(f) - 1;
  }

  /** The file table as JSON: the prelude by name. */
  fileTable(): Json {
    const prelude = preludeFile();
    return this.files.map((f) =>
      f.name === prelude.name && f.text === prelude.text && f.context === undefined
        ? "prelude"
        : { name: f.name, text: f.text, ...(f.context === undefined ? {} : { context: f.context }) },
    );
  }
}

/** Reads what Encoder wrote, given its file table; saved numbers come from `saved` (sites), if any. */
export class Decoder {
  private readonly files: SourceFile[];

  constructor(table: unknown) {
    if (!Array.isArray(table)) throw new Error("cache entry: no file table");
    this.files = table.map((f: unknown) => {
      if (f === "prelude") return preludeFile();
      const { name, text, context } = f as { name: unknown; text: unknown; context?: unknown };
      if (typeof name !== "string" || typeof text !== "string") throw new Error("cache entry: a bad file");
      return typeof context === "string" ? { name, text, context } : { name, text };
    });
  }

  decode(v: unknown, saved?: readonly number[]): unknown {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.decode(x, saved));
    const o = v as Record<string, unknown>;
    if ("$u" in o) return undefined;
    if ("$n" in o) return Number(o.$n);
    if ("$s" in o) return saved?.[o.$s as number];
    if ("$span" in o) {
      const [f, start, end] = o.$span as [number, number, number];
      const file = this.files[f];
      if (file === undefined) throw new Error("cache entry: a span in no file");
      return { file, start, end, ...(o.caller === undefined ? {} : { caller: this.decode(o.caller) }) };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, this.decode(x, saved)]));
  }
}
