#!/usr/bin/env node
// The `smooth` command as tsc writes it (dist/cli/main.js); the package's command is the bundle's cli.js.

import * as commander from "commander";
import { runCli } from "./run.js";

await runCli(process.argv, commander);
