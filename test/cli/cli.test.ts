// The `smooth` command end to end: a real process, its stdout, stderr and exit code.
// Every class of bad input gives one located message and exit code 1, never a stack trace.

import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cli, file, root, smooth } from "./run.js";
import { allText } from "../docs/snippets.js";

describe("smooth run", () => {
  it("runs the paper's Example 1 (u M vᵀ) and prints 39", () => {
    // u M vᵀ by hand: u M = [1+8, 2+10, 3+12] = [9, 12, 15]; · [1, 0, 2] = 9 + 30 = 39.
    const r = smooth("run", "examples/umv.smooth", "--fn", "f", "--args-file", "examples/umv.args.json");
    expect(r).toEqual({ code: 0, stdout: "39\n", stderr: "" });
    const i = smooth(
      "run",
      "examples/umv.smooth",
      "--fn",
      "f",
      "--args-file",
      "examples/umv.args.json",
      "--engine",
      "interp",
    );
    expect(i.stdout).toBe("39\n");
  });

  it("prints arrays as nested JSON arrays and tuples as JSON arrays", () => {
    const p = file("shapes.smooth", "let main = fun (n: Card) -> (matrixEye n, vectorRange n, n > 1)");
    expect(smooth("run", p, "--args", "[2]").stdout).toBe("[[[1,0],[0,1]],[0,1],true]\n");
  });

  it("specialises an entry point to its arguments", () => {
    const p = file("poly.smooth", "let main = fun v -> vectorSum v");
    expect(smooth("run", p, "--args", "[[1.5, 2.5]]").stdout).toBe("4\n");
  });

  it("npm start's --explain prints the program, the JavaScript and the result", () => {
    const r = smooth("run", "examples/umv.smooth", "--fn", "f", "--args-file", "examples/umv.args.json", "--explain");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("// f after inlining and simplification:");
    expect(r.stdout).toContain("// generated JavaScript:");
    expect(r.stdout.trimEnd().endsWith("39")).toBe(true);
  });
});

describe("smooth check", () => {
  it("prints the type of every prelude definition", () => {
    const r = smooth("check", "prelude/prelude.smooth");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain("vectorHot : Card -> Index -> Vector");
    expect(lines).toContain("vectorDot : Num 'a => Array<'a> -> Array<'a> -> 'a");
    expect(lines).toContain("matrixEye : Card -> Matrix");
    expect(lines).toContain("logsumexp : Vector -> Double");
    expect(lines).toContain("scatter : Card -> Array<Index> -> Vector -> Vector");
    expect(lines).toContain("scanl : ('a -> 'b -> 'a) -> 'a -> Array<'b> -> Array<'a>");
    expect(lines.length).toBe(43);
  });
});

describe("smooth show and compile", () => {
  it("show prints Smooth that runs again to the same result", () => {
    const src = file("sm.smooth", "let main = fun (v: Vector) (w: Vector) -> vectorDot (vectorAdd v w) v");
    const shown = smooth("show", src, "--fn", "main");
    expect(shown.code).toBe(0);
    const again = file("again.smooth", shown.stdout);
    const args = "[[1, 2, 3], [4, 5, 6]]";
    // (v + w) · v = 5 + 14 + 27 = 46
    expect(smooth("run", src, "--args", args).stdout).toBe("46\n");
    expect(smooth("run", again, "--args", args, "--no-prelude").stdout).toBe("46\n");
  });

  it("compile prints JavaScript without the program's names", () => {
    const src = file("names.smooth", "let secretName = fun (someVector: Vector) -> vectorSum someVector");
    const r = smooth("compile", src, "--fn", "secretName");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("for (");
    expect(r.stdout).not.toContain("someVector");
    expect(r.stdout).not.toContain("secretName");
  });
});

describe("every class of bad input: one located message, exit code 1, no stack trace", () => {
  const cases: [string, string, string[], RegExp][] = [
    ["syntax", "let f = fun x -> (x + 1", ["check"], /^.*syntax\.smooth:1:\d+: syntax error: /],
    ["unknown name", "let f = fun x -> x + y", ["check"], /^.*unknown\.smooth:1:22: name error: unknown name `y`/],
    [
      "type",
      "let f = fun (v: Vector) -> sin v",
      ["check"],
      /^.*type\.smooth:1:32: type error: wrong argument type for `sin`/,
    ],
    [
      "shape",
      "let main = fun (n: Card) -> build n (fun i -> build (i + 1) (fun j -> 1.))",
      ["run", "--args", "[3]"],
      /^.*shape\.smooth:1:29: shape error: build produced elements of different shapes/,
    ],
    [
      "index",
      "let main = fun (v: Vector) -> v[length v]",
      ["run", "--args", "[[1, 2]]"],
      /^.*index\.smooth:1:31: index error: index 2 is out of range/,
    ],
    [
      "index (interpreter)",
      "let main = fun (v: Vector) -> v[length v]",
      ["run", "--engine", "interp", "--args", "[[1, 2]]"],
      /index error: index 2 is out of range/,
    ],
    [
      "argument JSON",
      "let main = fun (x: Double) -> x",
      ["run", "--args", "[1,"],
      /^argument error: --args is not valid JSON/,
    ],
    [
      "Index argument",
      "let main = fun (n: Index) -> n",
      ["run", "--args", "[2.5]"],
      /^argument error: parameter `n` of `main` expects an Index/,
    ],
    [
      "argument count",
      "let main = fun (x: Double) -> x",
      ["run", "--args", "[1, 2]"],
      /argument error: `main` takes 1 argument, but 2 were given/,
    ],
  ];
  it.each(cases)("%s", (name, text, args, headline) => {
    const path = file(`${name.split(" ")[0]}.smooth`, text);
    const [cmd, ...rest] = args;
    const r = smooth(cmd!, path, ...rest);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(headline);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a missing file", () => {
    const r = smooth("run", "/nonexistent/x.smooth");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^argument error: cannot read \/nonexistent\/x\.smooth: no such file/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a located error shows the source line with a caret", () => {
    const path = file("caret.smooth", "let f = fun x -> x + yy");
    const r = smooth("check", path);
    expect(r.stderr).toContain("1 | let f = fun x -> x + yy\n  |                      ^^");
  });
});

describe("the commands the README and the docs show", () => {
  it("npm start's command works from the built package", () => {
    const out = execFileSync(
      process.execPath,
      [cli, "run", "examples/umv.smooth", "--fn", "f", "--args-file", "examples/umv.args.json"],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    expect(out).toBe("39\n");
  });

  // The `$ smooth ...` lines, run on the files the pages show (`with a file `f.smooth` holding` and the code block
  // after it: logsumexp.smooth in the README, f.smooth in Derivatives, newton.smooth in While loops, softplus.smooth
  // in Custom derivative rules, pow.smooth in Recursion), print what the pages show.
  const readme = allText();
  const files = new Map(
    [...readme.matchAll(/[Ww]ith a file `(\w+\.smooth)` holding\n\n```fsharp\n([^]*?)```/g)].map((m) => [
      m[1]!,
      file(m[1]!, m[2]!),
    ]),
  );
  // The command-line section's TypeScript module.
  const modelText = /With `model\.ts` holding\n\n```ts\n([^]*?)```/.exec(readme)?.[1];
  const modelPath = file("model.ts", modelText ?? "");
  const examples = [...readme.matchAll(/^\$ smooth (.*)\n((?:(?!\$ |```).*\n)*)/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  );

  it("the pages' derivative examples are found", () => {
    expect([...files.keys()].sort()).toEqual(
      ["f.smooth", "logsumexp.smooth", "newton.smooth", "pow.smooth", "softplus.smooth"].sort(),
    );
    expect(modelText).toBeDefined();
    expect(examples.length).toBeGreaterThanOrEqual(11);
  });

  it.each(examples)("$ smooth %s", (command, output) => {
    const argv = shellWords(command).map((w) => files.get(w) ?? (w === "model.ts" ? modelPath : w));
    expect(smooth(...argv)).toEqual({ code: 0, stdout: output, stderr: "" });
  });
});

/** Words of a command line with '...' quoting, up to a `#` comment. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|(#.*)|(\S+)/g)) {
    if (m[2] !== undefined) break;
    words.push(m[1] ?? m[3]!);
  }
  return words;
}
