#!/usr/bin/env node
// The GradBench tool: the protocol over stdin/stdout, one JSON line per message; diagnostics on stderr. Exits when
// stdin closes. Runnable as `node dist/bundle/gradbench.js` or as `smooth gradbench`.

import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { GradbenchTool, serve } from "./protocol.js";
import { EVALS } from "./registry.js";
import { gradbenchEngine } from "./smooth-eval.js";
import { SmoothError } from "../syntax/diagnostics.js";

export async function gradbenchMain(): Promise<void> {
  // An unknown SMOOTH_ENGINE is reported now, before any message is read.
  gradbenchEngine();
  // Nothing but responses may reach stdout: anything logged goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // A reader that stops early (`... | head`) ends the session: no stack trace (also when run as
  // dist/gradbench/main.js).
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(0);
  });
  const tool = new GradbenchTool(EVALS, { log: (message) => process.stderr.write(`smooth gradbench: ${message}\n`) });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  await serve(lines, (line) => process.stdout.write(line), tool);
}

/** The tool as a command: its failures reported on stderr with exit code 1. */
export function runGradbenchTool(): void {
  gradbenchMain().catch((e: unknown) => {
    const text = e instanceof SmoothError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
    process.stderr.write(`smooth gradbench: ${text}\n`);
    process.exitCode = 1;
  });
}

// Run as a script (dist/gradbench/main.js); the package's bundled gradbench.js calls runGradbenchTool itself.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) runGradbenchTool();
