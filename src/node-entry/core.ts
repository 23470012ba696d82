// The package's compiler for Node as one CommonJS module (dist/bundle/core.cjs): the library with its Node entry,
// the `smooth` command and the GradBench tool. The package's entry points load it through ./loader.ts, which keeps
// V8's code cache of it between processes.

import { installDiskCache } from "../cache/disk-store.js";

export * from "../node.js";
export { runCli } from "../cli/run.js";
export { runGradbenchTool } from "../gradbench/main.js";
export { stagesRun } from "../opt/stage-times.js";

// The persistent compile cache (src/cache/), as the environment sets it: on by default for the package's users.
installDiskCache();
