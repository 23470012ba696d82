// Before any test file: the generated sources (src/generated/: the embedded prelude, the AOT runtime) are made from
// their current inputs, so a test run after editing prelude/prelude.smooth sees the edit without a build.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../scripts/generate.mjs", import.meta.url))], {
    stdio: "inherit",
  });
}
