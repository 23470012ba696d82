// Wrong values on the command line: each row is a `smooth` command with one wrong option or file and the one message
// it must print — exit code 1, the message's kind and text on stderr, nothing on stdout, no stack trace. (`--wrt 0x1`
// was read as 1 and `--wrt ''` as 0; --mode, --engine, --explain and --no-prelude were ignored on TypeScript files;
// `smooth types model.ts` parsed TypeScript as Smooth; an unreadable REPL file exited 0.)

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { cli, file, root } from "../cli/run.js";

const run = promisify(execFile);

const smoothFile = file("cli-inputs.smooth", "let f = fun (x: Double) (y: Double) -> x * y\n");
const tsFile = file("cli-inputs.ts", "export function f(x: number, y: number) { return x * y; }\n");
const ARGS = ["--fn", "f", "--args", "[1, 2]"];

type Row = readonly [args: readonly string[], stderr: RegExp];

const ROWS: readonly Row[] = [
  // --wrt: digits only.
  [["grad", smoothFile, ...ARGS, "--wrt", "0x1"], /^argument error: --wrt "0x1" is not an argument position of `f`\n/],
  [
    ["grad", smoothFile, ...ARGS, "--wrt", ""],
    /--wrt "" is not an argument position of `f`\n {2}expected: a whole number from 0 to 1/,
  ],
  [["grad", smoothFile, ...ARGS, "--wrt", " 1"], /--wrt " 1" is not an argument position/],
  [["grad", smoothFile, ...ARGS, "--wrt", "1e0"], /--wrt "1e0" is not an argument position/],
  [["grad", smoothFile, ...ARGS, "--wrt", "2"], /--wrt "2" is not an argument position/],
  [["show", smoothFile, "--fn", "f", "--grad", "--wrt", "0b1"], /--wrt "0b1" is not an argument position/],
  [["grad", tsFile, ...ARGS, "--wrt", "0x1"], /^argument error: --wrt "0x1" is not an argument position of `f`\n/],
  [["jacobian", tsFile, ...ARGS, "--wrt", "-1"], /--wrt "-1" is not an argument position/],
  // --mode and --engine, on Smooth and TypeScript files alike.
  [["grad", smoothFile, ...ARGS, "--mode", "sideways"], /^argument error: unknown mode `sideways`/],
  [["grad", tsFile, ...ARGS, "--mode", "sideways"], /^argument error: unknown mode `sideways`/],
  [["run", smoothFile, ...ARGS, "--engine", "gpu"], /^argument error: unknown engine `gpu`/],
  [
    ["jacobian", tsFile, ...ARGS, "--engine", "interp"],
    /--engine interp runs Smooth files; a TypeScript or JavaScript file runs on js or wasm/,
  ],
  [["run", tsFile, ...ARGS, "--explain"], /^argument error: --explain applies to Smooth files/],
  [["run", tsFile, ...ARGS, "--no-prelude"], /^argument error: --no-prelude applies to Smooth files/],
  [["--threads", "0x2", "run", smoothFile, ...ARGS], /^argument error: --threads: threads must be a whole number/],
  // Files.
  [
    ["types", tsFile],
    /^argument error: .*cli-inputs\.ts is a TypeScript or JavaScript file; this command reads Smooth source/,
  ],
  [["check", tsFile], /is a TypeScript or JavaScript file; this command reads Smooth source/],
  [
    ["run", "/nonexistent/model.smooth", ...ARGS],
    /^argument error: cannot read \/nonexistent\/model.smooth: no such file/,
  ],
  [["run", "/tmp", ...ARGS], /^argument error: cannot read \/tmp: EISDIR/],
  [
    ["run", smoothFile, "--fn", "f", "--args-file", "/nonexistent.json"],
    /cannot read \/nonexistent.json: no such file/,
  ],
  [["run", smoothFile, "--fn", "f", "--args", "[1,"], /^argument error: --args is not valid JSON/],
  [["run", smoothFile, "--fn", "f", "--args", "{}"], /--args must be a JSON array with one element per argument/],
  // JSON.parse reads an overflowing literal as Infinity: refused, not run with Infinity.
  [["run", smoothFile, "--fn", "f", "--args", "[1, 1e400]"], /^argument error: --args at \[1\] has a number too large/],
  [["run", smoothFile, "--fn", "nothing", "--args", "[]"], /^name error: there is no definition named `nothing`/],
  [["types", smoothFile, "--name", "class"], /^argument error: --name "class" is not a TypeScript identifier/],
  [["types", smoothFile, "--out", "/nonexistent/m.d.ts"], /^argument error: cannot write \/nonexistent\/m.d.ts/],
  [
    ["compile", smoothFile, ...ARGS, "--module", "/nonexistent/m.mjs"],
    /^argument error: cannot write \/nonexistent\/m.mjs/,
  ],
  [["repl", "/nonexistent/model.smooth"], /^argument error: cannot read \/nonexistent\/model.smooth: no such file/],
  [["dev", smoothFile, "--fn", "f", "--passes", "nosuch"], /^argument error: unknown pass `nosuch`/],
];

describe("the command line refuses wrong options and files with one message", () => {
  test.concurrent.for(ROWS)("smooth %j", async ([args, stderr], { expect }) => {
    const r = await run(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8" }).then(
      (out) => ({ code: 0, ...out }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
    expect(r.stderr).toMatch(stderr);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  });
});

describe("what the TypeScript path now honours", () => {
  const json = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8" })).stdout) as unknown;

  test("--mode forward gives the gradient reverse mode gives; --engine js and wasm the same values", async () => {
    const reverse = { value: 2, gradient: [2, 1] };
    expect(await json("grad", tsFile, ...ARGS)).toEqual(reverse);
    expect(await json("grad", tsFile, ...ARGS, "--mode", "forward")).toEqual(reverse);
    expect(await json("grad", tsFile, ...ARGS, "--wrt", "1", "--engine", "js")).toEqual({
      value: 2,
      gradient: [null, 1],
    });
    expect(await json("jacobian", tsFile, ...ARGS, "--mode", "reverse", "--engine", "wasm")).toEqual({
      value: 2,
      jacobian: [[2, 1]],
    });
  });
});
