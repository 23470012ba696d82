// A direct WebAssembly binary encoder, written for this back end: the sections it uses (types, imports, functions,
// memory, globals, exports, code), LEB128 numbers, and a function body builder with structured control and named
// labels. Instructions themselves are byte sequences built by ./instructions.ts.
//
// Why not binaryen: the module is validated by the engine that compiles it (`new WebAssembly.Module` rejects an
// invalid one), V8's optimising tier does the register allocation and instruction selection binaryen's optimiser
// would otherwise do, and binaryen is a ~10 MB dependency that takes longer to load than this back end takes to
// compile most programs. The library keeps a single runtime dependency (commander, for the CLI).

/** The value types the back end uses. */
export type ValType = "i32" | "i64" | "f32" | "f64" | "v128";

const VALTYPE_BYTE: Record<ValType, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b };

/** Encoded instructions. */
export type Code = readonly number[];

/** Appends n as an unsigned LEB128 number. */
export function uleb(n: number, out: number[]): void {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`wasm: bad unsigned LEB128 ${n}`);
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
}

/**
 * Appends n as a signed LEB128 number (n a safe integer; i32 and the i64 constants the back end writes). Numbers
 * take a path without BigInt (most constants are i32 ones: BigInt arithmetic was a visible part of compile time).
 */
export function sleb(n: number | bigint, out: number[]): void {
  if (typeof n === "number") {
    if (!Number.isSafeInteger(n)) throw new Error(`wasm: bad signed LEB128 ${n}`);
    slebNumber(n, out);
    return;
  }
  let v = n;
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const signBit = (byte & 0x40) !== 0;
    if ((v === 0n && !signBit) || (v === -1n && signBit)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/** sleb of a safe integer in number arithmetic. */
function slebNumber(n: number, out: number[]): void {
  for (;;) {
    // n mod 128 in [0, 128), then floor division: the arithmetic shift right by 7, for any safe integer.
    const byte = ((n % 128) + 128) % 128;
    n = (n - byte) / 128;
    const signBit = (byte & 0x40) !== 0;
    if ((n === 0 && !signBit) || (n === -1 && signBit)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

const encoder = new TextEncoder();

function name(s: string, out: number[]): void {
  const bytes = encoder.encode(s);
  uleb(bytes.length, out);
  out.push(...bytes);
}

function section(id: number, body: number[], out: number[]): void {
  out.push(id);
  uleb(body.length, out);
  for (const b of body) out.push(b);
}

export interface FuncType {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

/** What a label closes: a block (br leaves it), a loop (br repeats it) or an if. */
interface Label {
  readonly name: string | undefined;
  readonly scope: number;
}

/**
 * One function's body: its locals and instructions. Control instructions open and close labelled blocks; `br` names
 * its target by label and the builder computes the depth. Blocks double as the scopes of the lowering stage's bounds
 * facts (src/lowering/bounds.ts, the `Blocks` interface): a fact learnt inside a block holds until it closes.
 */
export class FunctionBuilder {
  private readonly bytes: number[] = [];
  private readonly localTypes: ValType[] = [];
  private readonly labels: Label[] = [];
  private readonly openScopes = new Set<number>([0]);
  private nextScope = 1;

  constructor(
    readonly index: number,
    public type: FuncType,
  ) {}

  /** A new local of type t (params come first: local k < params.length is parameter k). */
  local(t: ValType): number {
    this.localTypes.push(t);
    return this.type.params.length + this.localTypes.length - 1;
  }

  get localCount(): number {
    return this.type.params.length + this.localTypes.length;
  }

  emit(...codes: Code[]): void {
    // Indexed loops: this copies every instruction byte of a module, also before the engine has optimised it.
    const bytes = this.bytes;
    for (let i = 0; i < codes.length; i++) {
      const c = codes[i]!;
      for (let j = 0; j < c.length; j++) bytes.push(c[j]!);
    }
  }

  /** The innermost open block (bounds facts' `Blocks.scope`). */
  get scope(): number {
    return this.labels.length === 0 ? 0 : this.labels[this.labels.length - 1]!.scope;
  }

  isOpen(id: number): boolean {
    return this.openScopes.has(id);
  }

  private push(name: string | undefined): void {
    const scope = this.nextScope++;
    this.labels.push({ name, scope });
    this.openScopes.add(scope);
  }

  private pop(): void {
    const l = this.labels.pop();
    if (l === undefined) throw new Error("wasm: end without a block");
    this.openScopes.delete(l.scope);
  }

  block(label?: string): void {
    this.bytes.push(0x02, 0x40);
    this.push(label);
  }

  loop(label?: string): void {
    this.bytes.push(0x03, 0x40);
    this.push(label);
  }

  /** `if` on the i32 `cond` (no result: values leave blocks through locals). */
  if(cond: Code, label?: string): void {
    this.emit(cond);
    this.bytes.push(0x04, 0x40);
    this.push(label);
  }

  /** `else` of the innermost if: a new scope (facts of the then branch do not hold in it). */
  else(): void {
    const l = this.labels[this.labels.length - 1];
    this.pop();
    this.bytes.push(0x05);
    this.push(l?.name);
  }

  end(): void {
    this.pop();
    this.bytes.push(0x0b);
  }

  private depth(label: string): number {
    for (let k = this.labels.length - 1; k >= 0; k--)
      if (this.labels[k]!.name === label) return this.labels.length - 1 - k;
    throw new Error(`wasm: no enclosing label ${label}`);
  }

  br(label: string): void {
    this.bytes.push(0x0c);
    uleb(this.depth(label), this.bytes);
  }

  brIf(label: string, cond: Code): void {
    this.emit(cond);
    this.bytes.push(0x0d);
    uleb(this.depth(label), this.bytes);
  }

  /** Where the code written so far ends (a place for `insert`). */
  get position(): number {
    return this.bytes.length;
  }

  /**
   * Writes `code` at an earlier `position`, moving the code after it: an IR `if`'s then branch ends with assignments
   * to the locals it shares with the else branch, known once that is written too (its code is then moved once).
   */
  insert(at: number, code: Code): void {
    if (code.length === 0) return;
    const tail = this.bytes.splice(at);
    this.emit(code, tail);
  }

  /**
   * Encoded body as parts to concatenate: its size and locals (run-length grouped), then the instructions and `end`.
   * The instructions are not copied here: they are most of the module, and the module copies them once, at the end.
   */
  encode(): readonly (readonly number[])[] {
    if (this.labels.length !== 0) throw new Error("wasm: function ends inside a block");
    const locals: number[] = [];
    const groups: [number, ValType][] = [];
    for (const t of this.localTypes) {
      const last = groups[groups.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(groups.length, locals);
    for (const [n, t] of groups) {
      uleb(n, locals);
      locals.push(VALTYPE_BYTE[t]);
    }
    const head: number[] = [];
    uleb(locals.length + this.bytes.length + 1, head);
    for (const b of locals) head.push(b);
    return [head, this.bytes, [0x0b]];
  }
}

interface Global {
  readonly type: ValType;
  readonly init: Code;
}

/** A module: imported functions first (their indexes come first), then defined functions, one memory, globals. */
export class ModuleBuilder {
  private readonly types: FuncType[] = [];
  private readonly imports: { module: string; name: string; type: number }[] = [];
  private readonly functions: { type: number; readonly body: FunctionBuilder }[] = [];
  private readonly globals: Global[] = [];
  private readonly exports: { name: string; kind: 0 | 2 | 3; index: number }[] = [];
  /** Initial pages (64 KiB each) of the module's own memory. */
  memoryPages = 1;
  /**
   * When set, the memory is not the module's own but a shared one imported as `env.memory` (threads, ./parallel.ts):
   * shared memories need a maximum, here the whole 32-bit address space.
   */
  sharedMemory = false;
  /** Where `encode` wrote the shared memory import's limits flag (3: shared, with a maximum), if it did. */
  sharedFlagAt: number | undefined;

  /** Type index by the type's text (functions of a loop of their own have many parameters). */
  private readonly typeIndexes = new Map<string, number>();

  private typeIndex(t: FuncType): number {
    const key = `${t.params.join(",")}>${t.results.join(",")}`;
    let k = this.typeIndexes.get(key);
    if (k === undefined) {
      k = this.types.push(t) - 1;
      this.typeIndexes.set(key, k);
    }
    return k;
  }

  importFunction(module: string, name: string, type: FuncType): number {
    if (this.functions.length > 0) throw new Error("wasm: imports must come before defined functions");
    this.imports.push({ module, name, type: this.typeIndex(type) });
    return this.imports.length - 1;
  }

  addFunction(type: FuncType): FunctionBuilder {
    const body = new FunctionBuilder(this.imports.length + this.functions.length, type);
    this.functions.push({ type: this.typeIndex(type), body });
    return body;
  }

  /** The most locals (parameters included) of one of the functions defined so far. */
  get mostLocals(): number {
    return this.functions.reduce((most, f) => Math.max(most, f.body.localCount), 0);
  }

  /** Sets the results of a function added earlier (a function whose results are known once its body is written). */
  setResults(body: FunctionBuilder, results: readonly ValType[]): void {
    const f = this.functions.find((g) => g.body === body);
    if (f === undefined) throw new Error("wasm: results set for a function of another module");
    body.type = { params: body.type.params, results };
    f.type = this.typeIndex(body.type);
  }

  /** A mutable global of type t starting at the constant `init` (an encoded const instruction). */
  addGlobal(type: ValType, init: Code): number {
    return this.globals.push({ type, init }) - 1;
  }

  exportFunction(name: string, index: number): void {
    this.exports.push({ name, kind: 0, index });
  }

  exportMemory(name: string): void {
    this.exports.push({ name, kind: 2, index: 0 });
  }

  exportGlobal(name: string, index: number): void {
    this.exports.push({ name, kind: 3, index });
  }

  encode(): Uint8Array<ArrayBuffer> {
    const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
    const vec = <T>(items: readonly T[], write: (item: T, body: number[]) => void): number[] => {
      const body: number[] = [];
      uleb(items.length, body);
      for (const it of items) write(it, body);
      return body;
    };
    section(
      1,
      vec(this.types, (t, b) => {
        b.push(0x60);
        uleb(t.params.length, b);
        for (const p of t.params) b.push(VALTYPE_BYTE[p]);
        uleb(t.results.length, b);
        for (const r of t.results) b.push(VALTYPE_BYTE[r]);
      }),
      out,
    );
    if (this.imports.length > 0 || this.sharedMemory) {
      const imports: number[] = [];
      uleb(this.imports.length + (this.sharedMemory ? 1 : 0), imports);
      for (const im of this.imports) {
        name(im.module, imports);
        name(im.name, imports);
        imports.push(0x00);
        uleb(im.type, imports);
      }
      let flagAt = -1;
      if (this.sharedMemory) {
        name("env", imports);
        name("memory", imports);
        // Memory import; limits flag 3: shared, with a maximum (65536 pages: 4 GiB).
        imports.push(0x02);
        flagAt = imports.push(0x03) - 1;
        uleb(this.memoryPages, imports);
        uleb(65536, imports);
      }
      section(2, imports, out);
      if (flagAt >= 0) this.sharedFlagAt = out.length - imports.length + flagAt;
    }
    section(
      3,
      vec(this.functions, (f, b) => uleb(f.type, b)),
      out,
    );
    // One memory, no maximum (it grows as calls need: ./runtime.ts).
    if (!this.sharedMemory)
      section(
        5,
        vec([this.memoryPages], (pages, b) => {
          b.push(0x00);
          uleb(pages, b);
        }),
        out,
      );
    if (this.globals.length > 0)
      section(
        6,
        vec(this.globals, (g, b) => {
          b.push(VALTYPE_BYTE[g.type], 0x01);
          b.push(...g.init, 0x0b);
        }),
        out,
      );
    section(
      7,
      vec(this.exports, (e, b) => {
        name(e.name, b);
        b.push(e.kind);
        uleb(e.index, b);
      }),
      out,
    );
    // The code section: its parts copied straight into the module's bytes.
    const count: number[] = [];
    uleb(this.functions.length, count);
    const code: (readonly number[])[] = [count];
    for (const f of this.functions) code.push(...f.body.encode());
    out.push(10);
    uleb(
      code.reduce((n, part) => n + part.length, 0),
      out,
    );
    const parts = [out, ...code];
    const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    return bytes;
  }
}
