// A StagingError raised through the built package ends with the place in the caller's code, not a place inside the
// package's bundle (dist/bundle/core.cjs was taken for the user's code), and is a SmoothError of kind "staging".

import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

test("the bundle's StagingError names the caller's line", () => {
  const dir = mkdtempSync(join(tmpdir(), "smooth-site-"));
  const script = join(dir, "caller.mjs");
  writeFileSync(
    script,
    [
      `import { sin, SmoothError } from ${JSON.stringify(join(root, "dist/bundle/index.js"))};`,
      "try {",
      '  sin("a");',
      "} catch (e) {",
      "  console.log(JSON.stringify({ smooth: e instanceof SmoothError, kind: e.kind, message: e.message }));",
      "}",
    ].join("\n"),
  );
  const r = spawnSync(process.execPath, [script], { encoding: "utf8" });
  const out = JSON.parse(r.stdout) as { smooth: boolean; kind: string; message: string };
  expect(out.smooth).toBe(true);
  expect(out.kind).toBe("staging");
  expect(out.message).toMatch(/^`sin`: its argument is the string "a"/);
  expect(out.message.endsWith(`(at ${script}:3:3)`)).toBe(true);
});
