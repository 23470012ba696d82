// Running the built `smooth` command as a real process, on files written to a temporary folder.

import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const root = new URL("../../", import.meta.url).pathname;
export const cli = join(root, "dist/bundle/cli.js");
const dir = mkdtempSync(join(tmpdir(), "smooth-cli-"));

/** `smooth ...args` from the repository root: exit code, stdout, stderr. */
export function smooth(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Writes `text` to a fresh temporary file named `name` and returns its path. */
export function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
