// `{ threads: n }`: how many threads the wasm back end may run a function's large loops on. The number reaches the
// compiled module (its listing says across how many threads its sites run; 1 gives a module without sites), results
// are the same bits whatever the number, and anything but a whole number from 1 is one argument error.

import { describe, expect, it } from "vitest";
import { compile, grad, smooth } from "../../src/index.js";
import { libraryFunction } from "../../src/library/target.js";
import { thrown } from "../helpers.js";

const m = smooth`
let rowNorms = fun (W: Matrix) -> build (length W) (fun i -> sqrt (ifold (fun s k -> s + W[i][k] * W[i][k]) 0. (length W[i])))
let total = fun (W: Matrix) (c: Double) -> ifold (fun s i -> s + exp (c * ifold (fun t k -> t + W[i][k]) 0. (length W[i]))) 0. (length W)
`;

const W = Array.from({ length: 300 }, (_, i) => Array.from({ length: 40 }, (_, k) => Math.sin(i * 40 + k)));
const listing = (fn: unknown, ...args: unknown[]) => libraryFunction(fn)!.program(args).code?.text ?? "";

describe("the threads option", () => {
  it("compiles the function for that many threads, with the same results", () => {
    const one = compile(m.rowNorms!, { threads: 1 });
    const three = compile(m.rowNorms!, { threads: 3 });
    expect(listing(one, W)).not.toMatch(/threads/);
    expect(listing(three, W)).toMatch(/1 builds across 3 threads/);
    expect(Array.from(three(W) as Float64Array)).toEqual(Array.from(one(W) as Float64Array));
    const sumOne = compile(m.total!, { threads: 1 });
    const sumTwo = compile(m.total!, { threads: 2 });
    expect(listing(sumTwo, W, 0.01)).toMatch(/across 2 threads/);
    expect(sumTwo(W, 0.01)).toBe(sumOne(W, 0.01));
  });

  it("reaches the transforms' programs", () => {
    const g = grad(m.total!, { threads: 2, argnums: [1] });
    expect(listing(g, W, 0.01)).toMatch(/across 2 threads/);
    expect(g(W, 0.01)).toEqual(grad(m.total!, { threads: 1, argnums: [1] })(W, 0.01));
  });

  it.each([0, -1, 1.5, Number.NaN, "2", 1000])("threads: %s is an argument error", (bad) => {
    const error = thrown(() => compile(m.rowNorms!, { threads: bad as number }));
    expect(error.message).toMatch(/compiled: threads must be a whole number from 1 to 257, not /);
  });
});
