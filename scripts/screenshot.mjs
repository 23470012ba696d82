// docs/public/playground.png, the README's picture of the playground: site/ (npm run build:site) in headless Chromium, with
// the "prod via scans" example's gradient program shown. Needs what the browser tests need (npm run setup:browser).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importOnDemand } from "./on-demand.mjs";
import { serve } from "./serve.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const puppeteer = await importOnDemand("puppeteer-core");
if (!puppeteer) throw new Error("puppeteer-core is not installed: npm run setup:browser");
const profile = mkdtempSync(join(tmpdir(), "smooth-chromium-"));
const server = await serve(join(root, "site/"));
const browser = await puppeteer.launch({
  executablePath: process.env.SMOOTH_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
  ],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 640 });
  await page.goto(server.url);
  await page.waitForFunction("document.body.dataset.state === 'done'");
  const index = await page.evaluate(
    "[...document.getElementById('example').options].findIndex((o) => o.text.startsWith('prod'))",
  );
  await page.select("#example", String(index));
  await page.waitForFunction("document.getElementById('result').textContent === '[0, 24, 0, 0]'");
  await page.screenshot({ path: join(root, "docs/public/playground.png") });
} finally {
  await browser.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
