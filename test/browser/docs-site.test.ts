// The documentation site as a reader meets it (docs/.vitepress/dist, built by `npm run docs`, which `npm test` runs
// first): the home page, a guide page, the API reference, and the playground inside the site, where both tabs compute
// a gradient, in headless Chromium.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, missing, type Browser, type Page } from "./chromium.js";

interface Server {
  url: string;
  close(): Promise<void>;
}
type Serve = (root: string) => Promise<Server>;

const root = fileURLToPath(new URL("../../", import.meta.url));
const dist = join(root, "docs/.vitepress/dist/");
const skip = await missing();

describe.skipIf(skip !== undefined)("the docs site in headless Chromium", () => {
  let browser: Browser;
  let close: () => Promise<void>;
  let server: Server;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(dist, "index.html"))) throw new Error("docs/.vitepress/dist is not built: run `npm run docs`");
    ({ browser, close } = await launch());
    const { serve } = (await import(new URL("../../scripts/serve.mjs", import.meta.url).href)) as { serve: Serve };
    server = await serve(dist);
    page = await browser.newPage();
    page.on("pageerror", (e) => errors.push(e.message ?? "a page error"));
  });
  afterAll(async () => {
    await close?.();
    await server?.close();
  });

  const textOf = (selector: string) =>
    page.evaluate<string>(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? ""`);

  it("opens the home page and follows its link to the plain TypeScript guide", async () => {
    await page.goto(server.url, { waitUntil: "networkidle0" });
    expect(await textOf(".VPHero .name")).toContain("Smooth");
    await page.click("a[href='/guide/typescript.html']");
    await page.waitForFunction("location.pathname === '/guide/typescript.html' && !!document.querySelector('h1')");
    expect(await textOf("h1")).toContain("Plain TypeScript");
    // The page's code is highlighted (Shiki), and the sidebar lists the guide.
    expect(await page.evaluate<number>("document.querySelectorAll('.vp-code span[style]').length")).toBeGreaterThan(10);
    expect(await textOf(".VPSidebar")).toContain("The command line");
  });

  it("has an API reference page for grad, generated from its TSDoc comment", async () => {
    await page.goto(`${server.url}api/index/functions/grad.html`, { waitUntil: "networkidle0" });
    expect(await textOf("h1")).toMatch(/grad/);
    expect(await textOf(".vp-doc")).toMatch(/gradient/i);
  });

  it("runs the playground from the site: a Smooth gradient, then a plain TypeScript one", async () => {
    await page.goto(server.url, { waitUntil: "networkidle0" });
    await page.click("a[href='/playground/index.html']");
    await page.waitForFunction("document.body.dataset.state === 'done'", { timeout: 30_000 });
    // u M vᵀ's gradient at Example 1's arguments, by hand: M vᵀ, uᵀ v, u M.
    expect(await textOf("#result")).toBe("∂f/∂u = [7, 16]\n∂f/∂M = [[1, 0, 2], [2, 0, 4]]\n∂f/∂v = [9, 12, 15]");
    await page.click("button[data-language='typescript']");
    await page.waitForFunction("document.getElementById('result').textContent.startsWith('∂sumOfSquares')");
    expect(await textOf("#result")).toBe("∂sumOfSquares/∂v = [2, 4, 6]");
    expect(errors).toEqual([]);
  });
});
