// In headless Chromium (./chromium.ts): the playground (site/, built by `npm test`), the browser bundle
// (dist/browser/smooth.mjs) and an ahead-of-time module under `Content-Security-Policy: script-src 'self'`, each
// computing what Node computes. Pages are served from 127.0.0.1 by scripts/serve.mjs.

import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitModule, grad, smooth, typescriptModule } from "../../src/index.js";
import { PROGRAM_CASES } from "../tsfront/programs-cases.js";
import { runPrograms } from "../tsfront/run-programs.mjs";
import { launch, missing, type Browser, type Page } from "./chromium.js";

interface Server {
  url: string;
  close(): Promise<void>;
}
type Serve = (root: string, options?: { csp?: boolean }) => Promise<Server>;

const root = fileURLToPath(new URL("../../", import.meta.url));
const PROGRAMS = readFileSync(join(root, "test/tsfront/programs.ts"), "utf8");
const skip = await missing();

describe.skipIf(skip !== undefined)("in headless Chromium", () => {
  let browser: Browser;
  let close: () => Promise<void>;
  let serve: Serve;
  const servers: Server[] = [];

  beforeAll(async () => {
    ({ browser, close } = await launch());
    ({ serve } = (await import(new URL("../../scripts/serve.mjs", import.meta.url).href)) as { serve: Serve });
  });
  afterAll(async () => {
    await close?.();
    await Promise.all(servers.map((s) => s.close()));
  });

  /** A page at `url` whose errors are collected (a page error fails the caller's expectations). */
  async function open(url: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message ?? "a page error"));
    await page.goto(url);
    return { page, errors };
  }

  async function served(dir: string, csp = false): Promise<string> {
    const s = await serve(dir, { csp });
    servers.push(s);
    return s.url;
  }

  const text = (page: Page, id: string) =>
    page.evaluate<string>(`document.getElementById(${JSON.stringify(id)}).textContent`);

  describe("the playground", () => {
    let page: Page;
    let errors: string[];

    beforeAll(async () => {
      if (!existsSync(join(root, "site/index.html"))) throw new Error("site/ is not built: run `npm run build:site`");
      ({ page, errors } = await open(await served(join(root, "site/"))));
      await page.waitForFunction("document.body.dataset.state === 'done'", { timeout: 30_000 });
    });

    it("loads with Example 1 and shows its gradient and derivative program", async () => {
      // d/du, d/dM, d/dv of u M vᵀ at u = (1, 2), M = [[1, 2, 3], [4, 5, 6]], v = (1, 0, 2), by hand: M vᵀ, uᵀ v, u M.
      expect(await text(page, "result")).toBe("∂f/∂u = [7, 16]\n∂f/∂M = [[1, 0, 2], [2, 0, 4]]\n∂f/∂v = [9, 12, 15]");
      expect(await text(page, "program")).toMatch(/^let f' \(u: Vector\) \(M: Matrix\) \(v: Vector\) =/);
      expect(await text(page, "javascript")).toMatch(/return function compiled\(args, borrowed\)/);
      expect(errors).toEqual([]);
    });

    it("runs every example without an error", async () => {
      const count = await page.evaluate<number>("document.getElementById('example').options.length");
      expect(count).toBeGreaterThanOrEqual(5);
      for (let i = 0; i < count; i++) {
        await page.select("#example", String(i));
        await page.waitForFunction("document.body.dataset.state === 'done'");
        expect(await page.evaluate<boolean>("document.getElementById('error').hidden")).toBe(true);
        const title = await page.evaluate<string>(`document.getElementById('example').options[${i}].text`);
        const result = await text(page, "result");
        if (title.startsWith("Perturbation")) expect(result).toBe("∂g/∂x = 1");
        if (title.startsWith("prod")) expect(result).toBe("∂f/∂v = [0, 24, 0, 0]");
      }
      expect(errors).toEqual([]);
    });

    it("plots f and f' for a function of a Double, and switches transforms", async () => {
      const plot = await page.evaluate<number>(
        "[...document.getElementById('example').options].findIndex((o) => o.text.includes('plot'))",
      );
      await page.select("#example", String(plot));
      await page.waitForFunction("document.body.dataset.state === 'done'");
      expect(await page.evaluate<boolean>("document.getElementById('plot-panel').hidden")).toBe(false);
      // f(x) = x sin x at 1: f'(1) = sin 1 + cos 1.
      expect(await text(page, "result")).toMatch(/^∂f\/∂x = /);
      expect(Number((await text(page, "result")).split("= ")[1])).toBeCloseTo(Math.sin(1) + Math.cos(1), 14);
      await page.click("button[data-transform='hessian']");
      await page.waitForFunction("document.getElementById('status').textContent.startsWith('hessian')");
      expect(await text(page, "result")).toMatch(/^∂²f\/∂x² = /);
      expect(Number((await text(page, "result")).split("= ")[1])).toBeCloseTo(2 * Math.cos(1) - Math.sin(1), 14);
    });

    it("differentiates plain TypeScript in its tab, with arguments made from the chosen function's parameters", async () => {
      await page.click("button[data-language='typescript']");
      await page.waitForFunction("document.body.dataset.state === 'done'");
      // The first TypeScript example: a loop summing squares, whose gradient at (1, 2, 3) is 2v.
      expect(await text(page, "result")).toBe("∂sumOfSquares/∂v = [2, 4, 6]");
      expect(await text(page, "program")).toMatch(/^let /);
      const examples = await page.evaluate<string[]>(
        "[...document.getElementById('example').options].map((o) => o.text)",
      );
      expect(examples.some((t) => t.startsWith("A loop"))).toBe(true);
      expect(examples.some((t) => t.startsWith("Example 1"))).toBe(false);
      // Newton's method for x³ + x = a in a while loop: at a = 2, x = 1 and dx/da = 1 / (3x² + 1) = 1/4.
      const newton = examples.findIndex((t) => t.startsWith("Newton"));
      const value = await page.evaluate<string>(`document.getElementById('example').options[${newton}].value`);
      await page.select("#example", value);
      await page.waitForFunction("document.getElementById('result').textContent.startsWith('∂cubeRoot')");
      expect(Number((await text(page, "result")).split("= ")[1])).toBeCloseTo(0.25, 12);
      expect(await page.evaluate<boolean>("document.getElementById('plot-panel').hidden")).toBe(false);
      // The logistic regression's module has two functions: choosing `sigmoid` fills in its arguments.
      const logistic = examples.findIndex((t) => t.startsWith("Logistic"));
      await page.select(
        "#example",
        await page.evaluate<string>(`document.getElementById('example').options[${logistic}].value`),
      );
      await page.waitForFunction("document.getElementById('result').textContent.startsWith('∂loss/∂w')");
      await page.select("#fn", "sigmoid");
      await page.waitForFunction("document.getElementById('result').textContent.startsWith('∂sigmoid/∂z')");
      expect(await page.evaluate<string>("document.getElementById('args').value")).toBe("[1]");
      // σ'(1) = σ(1)(1 - σ(1)).
      const s = 1 / (1 + Math.exp(-1));
      expect(Number((await text(page, "result")).split("= ")[1])).toBeCloseTo(s * (1 - s), 14);
      expect(errors).toEqual([]);
      await page.click("button[data-language='smooth']");
      await page.waitForFunction("document.body.dataset.state === 'done'");
    });

    it("marks a located error in the editor at its line", async () => {
      await page.click(".cm-content");
      await page.keyboard.down("Control");
      await page.keyboard.press("a");
      await page.keyboard.up("Control");
      await page.keyboard.press("Backspace");
      // Line 3 adds a Double to a Vector.
      await page.keyboard.type("// two lines\n// of comments\nlet f = fun (v: Vector) (x: Double) -> v + x\n");
      await page.evaluate("document.getElementById('args').value = '[[1, 2], 3]'");
      await page.click("button[data-transform='value']");
      await page.waitForFunction("document.body.dataset.state === 'error'");
      expect(await text(page, "error")).toMatch(/^playground:3:\d+: type error/);
      expect(await page.evaluate<string>("document.getElementById('error').dataset.line")).toBe("3");
      // CodeMirror's mark is inside the editor's third line.
      const marked = await page.evaluate<string>(
        "[...document.querySelectorAll('.cm-line')].findIndex((l) => l.querySelector('.cm-lintRange-error')) + 1 + ''",
      );
      expect(marked).toBe("3");
      expect(await page.evaluate<number>("document.querySelectorAll('.cm-lint-marker-error').length")).toBe(1);
    });
  });

  describe("the bundle and an ahead-of-time module", () => {
    const SOURCE = "let f = fun (v: Vector) (s: Double) -> s * logsumexp v + vectorDot v v";
    const v = [0.5, -1, 2];
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "smooth-pages-"));
      copyFileSync(join(root, "dist/browser/smooth.mjs"), join(dir, "smooth.mjs"));
      const m = smooth([SOURCE] as unknown as TemplateStringsArray);
      writeFileSync(join(dir, "f.mjs"), emitModule(m.f!, v, 1.5));
      // Each page runs its script and writes the outcome (or the error) into the body.
      const page = (name: string, script: string) => {
        writeFileSync(
          join(dir, `${name}.html`),
          `<!doctype html><body><script type="module" src="${name}.js"></script>`,
        );
        writeFileSync(
          join(dir, `${name}.js`),
          `try { ${script} } catch (e) { document.body.dataset.error = e.name + ": " + e.message; }\n` +
            `document.body.dataset.done = "yes";\n`,
        );
      };
      const show = "document.body.dataset.result = JSON.stringify([...g]);";
      page(
        "bundle",
        `const { smooth, grad } = await import("./smooth.mjs");\nconst m = smooth([${JSON.stringify(SOURCE)}]);\nconst g = grad(m.f)(${JSON.stringify(v)}, 1.5);\n${show}`,
      );
      // A plain function, read from its source in the page (no closure: the browser has no inspector).
      const sumOfSquares =
        "function sumOfSquares(v) { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return s; }";
      page(
        "plain",
        `const { grad } = await import("./smooth.mjs");\n${sumOfSquares}\nconst g = grad(sumOfSquares)(new Float64Array([1, 2, 3]));\n${show}`,
      );
      page(
        "closure",
        `const { grad } = await import("./smooth.mjs");\nconst scale = 2;\nconst g = grad((x) => x * scale)(3);\n${show}`,
      );
      // Programs as people write them (test/tsfront/programs.ts) read by the bundle's typescriptModule.
      copyFileSync(join(root, "test/tsfront/run-programs.mjs"), join(dir, "run-programs.mjs"));
      page(
        "programs",
        `const { grad, typescriptModule } = await import("./smooth.mjs");\n` +
          `const { runPrograms } = await import("./run-programs.mjs");\n` +
          `const g = runPrograms({ grad, typescriptModule }, ${JSON.stringify(PROGRAMS)}, ${JSON.stringify(PROGRAM_CASES)});\n` +
          `document.body.dataset.result = JSON.stringify(g);`,
      );
      page(
        "aot",
        `const { gradient } = await import("./f.mjs");\nconst g = gradient(${JSON.stringify(v)}, 1.5);\n${show}`,
      );
    });

    /** The page's result (or error) once its script has run. */
    async function outcome(url: string): Promise<{ result?: number[]; error?: string }> {
      const { page } = await open(url);
      await page.waitForFunction("document.body.dataset.done === 'yes'", { timeout: 30_000 });
      const data = await page.evaluate<{ result?: string; error?: string }>("({ ...document.body.dataset })");
      return {
        ...(data.result ? { result: JSON.parse(data.result) as number[] } : {}),
        ...(data.error ? { error: data.error } : {}),
      };
    }

    /** The gradient in Node, and by hand: s softmax(v) + 2 v. */
    function expected(): number[] {
      const m = smooth([SOURCE] as unknown as TemplateStringsArray);
      const node = [...(grad(m.f!)(v, 1.5) as number[])];
      const z = v.reduce((s, x) => s + Math.exp(x), 0);
      v.forEach((x, i) => expect(node[i]).toBeCloseTo((1.5 * Math.exp(x)) / z + 2 * x, 13));
      return node;
    }

    it("the bundle computes Node's gradient", async () => {
      expect(await outcome(`${await served(dir)}bundle.html`)).toEqual({ result: expected() });
    });

    it("the bundle differentiates a plain function as Node does, and names what it cannot read", async () => {
      // (The bundle traced plain functions without reading them: this gradient was [0, 0, 0].)
      expect(await outcome(`${await served(dir)}plain.html`)).toEqual({ result: [2, 4, 6] });
      // A closure's variables cannot be read in a browser: a located error that says so, not a wrong number.
      const { error } = await outcome(`${await served(dir)}closure.html`);
      expect(error).toMatch(/^SmoothError: .*unsupported error: `scale` is not defined here/);
      expect(error).toContain("this JavaScript runtime does not let the library read a function's closure");
    });

    it("the bundle computes Node's values and gradients of programs as people write them", async () => {
      const { result, error } = (await outcome(`${await served(dir)}programs.html`)) as {
        result?: unknown;
        error?: string;
      };
      expect(error).toBeUndefined();
      const there = result as Record<string, number[]>;
      const here = runPrograms({ grad, typescriptModule }, PROGRAMS, PROGRAM_CASES);
      expect(Object.keys(there)).toEqual(Object.keys(here));
      for (const [label, numbers] of Object.entries(here)) {
        expect(there[label]!.length, label).toBe(numbers.length);
        numbers.forEach((x, i) =>
          expect(Math.abs(there[label]![i]! - x), label).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(x))),
        );
      }
    });

    it("under script-src 'self' the AOT module computes Node's gradient, where the bundle cannot compile", async () => {
      const url = await served(dir, true);
      expect(await outcome(`${url}aot.html`)).toEqual({ result: expected() });
      // The policy is in force: the bundle's compiler needs to compile WebAssembly (the default back end; `new
      // Function` for js), which it forbids.
      expect((await outcome(`${url}bundle.html`)).error).toMatch(/^CompileError: WebAssembly.*Content Security/);
    });
  });
});
