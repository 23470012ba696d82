// The `smooth` command, as a function of its arguments (./main.ts runs it; so does the package's bundled cli.js).
// Every error a user can cause is a SmoothError: printed as its located message on stderr, exit code 1, no stack
// trace. Anything else is a bug in Smooth: exit code 2 with a short report.

import { SmoothError } from "../syntax/diagnostics.js";
import { registerCommands } from "./commands.js";

type Commander = Pick<typeof import("commander"), "Command" | "CommanderError">;

/**
 * Runs the command line `argv`. The caller passes commander in: the package's compiler bundle, which the library
 * shares, does not load it (8 ms of every import).
 */
export async function runCli(argv: readonly string[], commander: Commander): Promise<void> {
  const { Command, CommanderError } = commander;
  // Output piped into a command that stops reading early (`smooth dev ... | head`) is not an error.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit(0);
  });

  const program = new Command();
  program
    .name("smooth")
    .description("Smooth: differentiable programming on arrays (the F̃ language), compiled to JavaScript")
    .version("0.1.0")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerCommands(program);

  try {
    await program.parseAsync([...argv]);
  } catch (e) {
    if (e instanceof SmoothError) {
      process.stderr.write(e.message + "\n");
      process.exitCode = 1;
    } else if (e instanceof CommanderError) {
      // commander has already printed its message (unknown option, missing argument, --help, --version).
      process.exitCode = e.exitCode === 0 ? 0 : 1;
    } else {
      const message = e instanceof Error ? e.message : String(e);
      process.stderr.write(`internal error in smooth: ${message}\n(this is a bug in Smooth, not in your program)\n`);
      if (process.env.SMOOTH_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
      process.exitCode = 2;
    }
  }
}
