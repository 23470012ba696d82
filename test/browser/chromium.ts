// Headless Chromium for the browser tests: Debian's `chromium` (or $SMOOTH_CHROMIUM) driven by puppeteer-core, which
// downloads no browser. puppeteer-core is installed on demand into .on-demand/ (`npm run setup:browser` installs it
// and, as root, Chromium). Without them the browser tests are skipped with a message saying so, except where
// SMOOTH_BROWSER_TESTS=required (as in .ci/run): then they fail.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The part of puppeteer-core's API these tests use (it is installed on demand, so its types are not at hand).
export interface Page {
  goto(url: string, options?: { waitUntil?: string }): Promise<unknown>;
  waitForSelector(selector: string, options?: { timeout?: number }): Promise<unknown>;
  waitForFunction(fn: string, options?: { timeout?: number }): Promise<unknown>;
  evaluate<T>(fn: string): Promise<T>;
  click(selector: string): Promise<void>;
  select(selector: string, value: string): Promise<string[]>;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  setViewport(v: { width: number; height: number }): Promise<void>;
  readonly keyboard: {
    down(key: string): Promise<void>;
    up(key: string): Promise<void>;
    press(key: string): Promise<void>;
    type(text: string): Promise<void>;
  };
  on(event: "console" | "pageerror", handler: (x: { text?: () => string; message?: string }) => void): void;
}
export interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface PuppeteerNode {
  launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
}

export const CHROMIUM = process.env.SMOOTH_CHROMIUM ?? "/usr/bin/chromium";
const REQUIRED = process.env.SMOOTH_BROWSER_TESTS === "required";

interface OnDemand {
  importOnDemand(name: string): Promise<unknown>;
}

/** Why the browser tests cannot run here, or undefined when they can. */
export async function missing(): Promise<string | undefined> {
  const onDemand = (await import(new URL("../../scripts/on-demand.mjs", import.meta.url).href)) as OnDemand;
  puppeteer = (await onDemand.importOnDemand("puppeteer-core")) as PuppeteerNode | undefined;
  const why = [
    ...(existsSync(CHROMIUM) ? [] : [`no Chromium at ${CHROMIUM}`]),
    ...(puppeteer ? [] : ["puppeteer-core is not installed"]),
  ];
  if (why.length === 0) return undefined;
  const message = `browser tests not run: ${why.join(", ")} (run \`npm run setup:browser\`)`;
  if (REQUIRED) throw new Error(`${message}; SMOOTH_BROWSER_TESTS=required`);
  console.warn(message);
  return message;
}

let puppeteer: PuppeteerNode | undefined;

/** Chromium's flags for WebGPU on its own software adapter (SwiftShader), for a machine without a GPU. */
const WEBGPU_FLAGS = ["--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader", "--enable-features=Vulkan"];

/**
 * A fresh headless Chromium with its own profile; `close` ends it and removes the profile. With `webgpu`, pages have
 * `navigator.gpu` on SwiftShader (served from 127.0.0.1: WebGPU needs a secure context); without, no GPU at all.
 */
export async function launch(options: { webgpu?: boolean } = {}): Promise<{
  browser: Browser;
  close: () => Promise<void>;
}> {
  if (!puppeteer) throw new Error("call missing() first");
  const profile = mkdtempSync(join(tmpdir(), "smooth-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      ...(options.webgpu === true ? WEBGPU_FLAGS : ["--disable-gpu"]),
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
