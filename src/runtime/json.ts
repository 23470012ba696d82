// JSON <-> runtime values, for program arguments (`--args`, library calls) and results. JSON has no NaN or infinities,
// so a Double may also be written as one of the strings "NaN", "Infinity", "-Infinity", and is printed that way.

import { fail } from "../syntax/diagnostics.js";
import { showType, type Type } from "../types/types.js";
import { firstShapeMismatch, showShape, stackUniform, type ValueShape } from "./stack.js";
import { arrayGet, arrayLength, isArrayValue, tuple, type Value } from "./value.js";

const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The runtime value of `json` read as a value of `type`. `what` names the thing in messages ("parameter `v`",
 * "argument 2 (v)"); a problem inside it is located by its JSON path ("parameter `M` at [1][0]").
 * Every problem is an "argument" SmoothError.
 */
export function valueFromJson(json: unknown, type: Type, what: string): Value {
  return fromJson(json, type, what, "");
}

function fromJson(json: unknown, type: Type, what: string, path: string): Value {
  const where = path ? `${what} at ${path}` : what;
  const mismatch = (description: string): never => {
    const shown = showType(type);
    const found = shortJson(json);
    return fail("argument", `${where} expects ${article(shown)} ${shown} (${description}), got ${found}`, undefined, {
      expected: shown,
      found,
    });
  };
  switch (type.k) {
    case "double": {
      // Any JS number is accepted (a library caller may pass NaN directly); JSON itself only produces finite ones.
      if (typeof json === "number") return json;
      if (typeof json === "string" && NON_FINITE.has(json)) return NON_FINITE.get(json)!;
      return mismatch('a number, or "NaN", "Infinity", "-Infinity"');
    }
    case "int": {
      if (typeof json !== "number" || !Number.isInteger(json)) return mismatch("an integer");
      if (json < INT32_MIN || json > INT32_MAX) return mismatch(`an integer from ${INT32_MIN} to ${INT32_MAX}`);
      return json | 0; // also turns -0 into 0, as an Int32Array would
    }
    case "bool":
      if (typeof json !== "boolean") return mismatch("true or false");
      return json;
    case "tuple": {
      const n = type.elems.length;
      if (!Array.isArray(json) || json.length !== n) return mismatch(`a JSON array of ${n} elements`);
      return tuple(type.elems.map((t, i) => fromJson(json[i], t, what, `${path}[${i}]`)));
    }
    case "array": {
      if (!Array.isArray(json)) return mismatch("a JSON array");
      const elemType = type.elem;
      const elems = json.map((j, i) => fromJson(j, elemType, what, `${path}[${i}]`));
      const m = firstShapeMismatch(elems);
      if (m) {
        const label = elemType.k === "array" ? "row" : "element";
        fail(
          "argument",
          `${where} must be a regular array: ${label} 0 has ${describeShape(m.first)} ` +
            `but ${label} ${m.index} has ${describeShape(m.found)}`,
          undefined,
          { expected: showType(type), found: shortJson(json) },
        );
      }
      return stackUniform(elemType, elems);
    }
    case "fun":
    case "tape":
      return fail(
        "argument",
        `${where} has the ${type.k === "fun" ? "function " : ""}type ${showType(type)}, which JSON cannot express`,
        undefined,
        {
          expected: "a type without functions",
          found: showType(type),
        },
      );
  }
}

/** "length 3" for a plain vector-like shape, "shape [2, 3]" otherwise. */
function describeShape(s: ValueShape): string {
  return s.tuple === undefined && s.dims.length === 1 ? `length ${s.dims[0]}` : `shape ${showShape(s)}`;
}

const article = (word: string): string => (/^[AEIOU]/.test(word) ? "an" : "a");

/**
 * The arguments in `text`, a JSON array with one element per argument, or an "argument" error naming `where`. A number
 * literal too large for a double (`1e400`) is refused: JSON.parse would read it as Infinity without a word.
 */
export function parseArgumentsJson(text: string, where: string): unknown[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail("argument", `${where} is not valid JSON: ${(e as Error).message}`, undefined, {
      expected: "a JSON array with one element per argument, e.g. [[1, 2, 3], 2.5]",
    });
  }
  if (!Array.isArray(json))
    fail("argument", `${where} must be a JSON array with one element per argument`, undefined, {
      expected: "a JSON array, e.g. [[1, 2, 3], 2.5]",
      found: typeof json,
    });
  const overflow = firstOverflow(json, "");
  if (overflow !== undefined)
    fail("argument", `${where} at ${overflow} has a number too large for a double`, undefined, {
      expected: 'a number of magnitude below 1.8e308, or "Infinity" / "-Infinity"',
    });
  return json as unknown[];
}

/** The JSON path of the first infinite number in `json` (only an overflowing literal parses to one). */
function firstOverflow(json: unknown, path: string): string | undefined {
  if (typeof json === "number") return Number.isFinite(json) || Number.isNaN(json) ? undefined : path;
  if (Array.isArray(json)) {
    for (let i = 0; i < json.length; i++) {
      const found = firstOverflow(json[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
  } else if (typeof json === "object" && json !== null) {
    for (const [key, value] of Object.entries(json)) {
      const found = firstOverflow(value, `${path}.${JSON.stringify(key)}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A short one-line rendering of a JSON value for messages. */
export function shortJson(json: unknown, limit = 40): string {
  const text = jsonPrefix(json, limit + 1);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/**
 * The first `most` characters (or a few more) of `json` written as JSON, without recursion and without writing the
 * rest: an argument may be nested 10⁴ deep or be very long (JSON.stringify and String would go through all of it).
 */
function jsonPrefix(json: unknown, most: number): string {
  type Open = { readonly entries: readonly (readonly [string | undefined, unknown])[]; next: number; close: string };
  let out = "";
  const open: Open[] = [];
  let pending: { value: unknown } | undefined = { value: json };
  while (out.length < most) {
    if (pending !== undefined) {
      const x = pending.value;
      pending = undefined;
      if (Array.isArray(x)) {
        out += "[";
        open.push({ entries: x.slice(0, most).map((v: unknown) => [undefined, v] as const), next: 0, close: "]" });
      } else if (typeof x === "object" && x !== null && Object.getPrototypeOf(x) === Object.prototype) {
        out += "{";
        open.push({ entries: Object.entries(x).slice(0, most), next: 0, close: "}" });
      } else {
        out += leafJson(x);
      }
      continue;
    }
    const top = open[open.length - 1];
    if (top === undefined) break;
    if (top.next === top.entries.length) {
      out += top.close;
      open.pop();
      continue;
    }
    const [key, value] = top.entries[top.next]!;
    out += (top.next > 0 ? "," : "") + (key === undefined ? "" : `${JSON.stringify(key)}:`);
    top.next++;
    pending = { value };
  }
  return out;
}

function leafJson(x: unknown): string {
  try {
    const text = JSON.stringify(x);
    if (text !== undefined) return text;
  } catch {
    // a BigInt: below
  }
  return typeof x === "bigint" ? `${x}n` : typeof x === "symbol" ? x.toString() : String(x);
}

/** The JSON form of a value of `type`: the exact inverse of valueFromJson on well-formed input. */
export function valueToJson(v: Value, type: Type): unknown {
  switch (type.k) {
    case "double": {
      const x = v as number;
      if (Number.isFinite(x)) return x;
      return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
    }
    case "int":
      return v;
    case "bool":
      return v;
    case "tuple": {
      if (typeof v !== "object" || v.tag !== "tuple") throw new Error("valueToJson: expected a tuple value");
      return type.elems.map((t, i) => valueToJson(v.elems[i]!, t));
    }
    case "array": {
      if (!isArrayValue(v)) throw new Error("valueToJson: expected an array value");
      const n = arrayLength(v);
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = valueToJson(arrayGet(v, i), type.elem);
      return out;
    }
    case "fun":
    case "tape":
      throw new Error(`valueToJson: a ${type.k} has no JSON form`);
  }
}

// Tests that round-trip JSON usually compare values too; equality lives in its own module.
export { valuesEqual } from "./equal.js";
