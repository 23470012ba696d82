// Every input an error or an answer (issue 15 item 5): inputs that used to crash the compiler, the process or a
// library call each give one located SmoothError (or work), in both engines.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { loadProgram, type Engine } from "../../src/api/program.js";
import { GradbenchTool } from "../../src/gradbench/protocol.js";
import { EVALS } from "../../src/gradbench/registry.js";
import { grad, smooth } from "../../src/index.js";
import { SmoothError } from "../../src/syntax/diagnostics.js";
import { cli, file, root, smooth as smoothCli } from "../cli/run.js";

const ENGINES: readonly Engine[] = ["interp", "js"];
const TEXT = [
  "let big = fun (i: Index) -> i + 3000000000",
  "let fill = fun (n: Index) -> build n (fun i -> double i)",
  "let loop = fun (x: Double) (n: Index) -> ifold (fun a i -> sin a * x) x n",
].join("\n");
const prog = () => loadProgram({ name: "user.smooth", text: TEXT });

/** The SmoothError `f` throws (failing the test when it throws nothing or something else). */
function smoothError(f: () => unknown): SmoothError {
  try {
    f();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
  throw new Error("no error");
}

describe("sizes", () => {
  test("an Index literal outside int32 is a located type error, not a code generator crash", () => {
    for (const engine of ENGINES) {
      const e = smoothError(() => prog().runJson("big", [1], engine));
      expect(e.kind).toBe("type");
      expect(e.message).toContain("user.smooth:1:33");
      expect(e.message).toContain("does not fit in an Index");
    }
  });

  test.each([2e8, 2 ** 31 - 1])("a build of %d elements is refused before allocating, at the user's build", (n) => {
    for (const engine of ENGINES) {
      const e = smoothError(() => prog().runJson("fill", [n], engine));
      expect(e.kind).toBe("shape");
      expect(e.message).toContain("user.smooth:2:30");
      expect(e.message).toContain("over the limit");
    }
  });

  test("a loop too long to tape is reported at the user's loop, saying why", () => {
    const p = prog();
    for (const engine of ENGINES) {
      const argTypes = p.argTypesFromJson("loop", [0.5, 2 ** 31 - 1]);
      const spec = p.derivative("loop", argTypes, [0], engine, undefined, "gradient");
      const e = smoothError(() => spec.run([0.5, 2 ** 31 - 1]));
      expect(e.message).toContain("user.smooth:3:42");
      expect(e.message).toContain("overflows an Index");
    }
  });
});

describe("library values", () => {
  test("a sparse JS array is an argument error naming the hole", () => {
    const m = smooth`let f = fun (v: Vector) -> vectorSum v`;
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    for (const call of [() => m.f!(sparse), () => grad(m.f!)(sparse)]) {
      const e = smoothError(call);
      expect(e.kind).toBe("argument");
      expect(e.message).toContain("at [1]");
    }
  });

  test("a -0 interpolated into the smooth tag stays -0", () => {
    const m = smooth`let g = fun (x: Double) -> x * ${-0}`;
    expect(Object.is(m.g!(1), -0)).toBe(true);
  });
});

describe("the GradBench tool", () => {
  test("llsq's n is bounded up front: a failure response, not an out-of-memory death", () => {
    const tool = new GradbenchTool(EVALS, { log: () => {} });
    JSON.parse(tool.respond(JSON.stringify({ id: 0, kind: "define", module: "llsq" })));
    const input = { x: [1, 2], n: 2 ** 31 - 1 };
    const reply = JSON.parse(
      tool.respond(JSON.stringify({ id: 1, kind: "evaluate", module: "llsq", function: "gradient", input })),
    ) as { success?: boolean; error?: string };
    expect(reply.success).toBe(false);
    expect(reply.error).toContain("`n` (with 2 coefficients in `x`) must be an integer from 2 to 22369621");
  });

  test("a reader that stops early ends the tool quietly (EPIPE), as `node dist/gradbench/main.js` too", () => {
    const main = join(root, "dist/gradbench/main.js");
    const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: i, kind: "start" })).join("\n");
    const r = spawnSync("bash", ["-c", `{ node ${main} | head -c 10 >/dev/null; } 2>&1`], {
      input: lines,
      encoding: "utf8",
    });
    expect(r.stdout).not.toMatch(/EPIPE|Error/);
  });
});

describe("the command line", () => {
  test("FILE is read once, so /dev/stdin works (also when it is a socket)", () => {
    const r = spawnSync(process.execPath, [cli, "run", "/dev/stdin", "--fn", "f", "--args", "[2]"], {
      cwd: root,
      input: "let f = fun x -> x * x",
      encoding: "utf8",
    });
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: "4\n", stderr: "" });
  });

  test("the Index literal error exits 1 with the located message and no stack trace", () => {
    const r = smoothCli("run", file("big.smooth", TEXT), "--fn", "big", "--args", "[1]");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("does not fit in an Index");
    expect(r.stderr).not.toContain("    at ");
  });
});
