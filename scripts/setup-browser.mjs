// What the browser tests need (test/browser/): Debian's Chromium at /usr/bin/chromium (or $SMOOTH_CHROMIUM), installed
// with apt-get when missing and running as root, and puppeteer-core (installed on demand into .on-demand/).
// `npm run setup:browser`; .ci/run runs it before the tests.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { installOnDemand } from "./on-demand.mjs";

const chromium = process.env.SMOOTH_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    console.error(
      `no Chromium at ${chromium}: install Debian's package (apt-get install chromium) or set SMOOTH_CHROMIUM`,
    );
    process.exit(1);
  }
  console.error("installing Debian's chromium package");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium"], { stdio: "inherit", env });
}
installOnDemand(["puppeteer-core"]);
