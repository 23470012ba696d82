// The GradBench protocol (JSON Lines): the eval sends one message per line, each with an `id` and a `kind`, and the
// tool answers each with exactly one line carrying the same id. Kinds: "start" (answered with the tool's name),
// "define" (load and compile a module, untimed), "evaluate" (run a function of a defined module on an input, timed),
// "analysis" and "end" (acknowledged). Whatever arrives — malformed JSON, a missing id or kind, an unknown kind,
// module or function, an evaluate before its define, a bad input, an error inside the function — the answer is one
// well-formed JSON line, never an exception and never anything else on the output; diagnostics go to the log.

import { GradbenchError, type EvalModule } from "./eval-module.js";
import { runsOf, timeRuns, type Timing } from "./timing.js";

/** Module name -> a function creating the module (called at its first define). */
export type Registry = ReadonlyMap<string, () => EvalModule>;

export interface ToolOptions {
  /** Diagnostics (errors with their stacks); the protocol output never contains them. Default: nothing. */
  readonly log?: (message: string) => void;
}

type Json = { readonly [key: string]: unknown };

/** The tool's side of one session: answers messages one line at a time, keeping the defined modules. */
export class GradbenchTool {
  private readonly defined = new Map<string, EvalModule>();
  private readonly log: (message: string) => void;

  constructor(
    private readonly registry: Registry,
    options: ToolOptions = {},
  ) {
    this.log = options.log ?? (() => {});
  }

  /** The one response line (JSON, no newline) to one message line. */
  respond(line: string): string {
    let id: unknown = null;
    try {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (e) {
        throw new GradbenchError(`the message is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof message !== "object" || message === null || Array.isArray(message))
        throw new GradbenchError("the message is not a JSON object");
      const fields = message as Json;
      // (A number too large for a double, `1e400`, parses as Infinity, which JSON writes back as null: no answer could
      // carry it, so it is refused like any other id that cannot be echoed.)
      if ((typeof fields.id === "number" && Number.isFinite(fields.id)) || typeof fields.id === "string")
        id = fields.id;
      if (!("id" in fields)) throw new GradbenchError("the message has no `id`");
      if (id === null)
        throw new GradbenchError(
          `the message's \`id\` must be a finite number or a string, got ${typeof fields.id === "number" ? "a number too large for a double" : JSON.stringify(fields.id)}`,
        );
      return encode({ id, ...this.handle(fields) });
    } catch (e) {
      return encode({ id, success: false, error: this.describe(e) });
    }
  }

  private handle(message: Json): Json {
    switch (message.kind) {
      case "start":
        return { tool: "smooth" };
      case "define":
        return this.define(text(message, "module"));
      case "evaluate":
        return this.evaluate(text(message, "module"), text(message, "function"), message.input);
      case "analysis":
        if (message.valid === false)
          this.log(`analysis of message ${String(message.of)}: invalid: ${JSON.stringify(message.error ?? "")}`);
        return {};
      case "end":
        return {};
      case undefined:
        throw new GradbenchError("the message has no `kind`");
      default:
        throw new GradbenchError(
          `unknown message kind ${JSON.stringify(message.kind)} (expected "start", "define", "evaluate", "analysis" or "end")`,
        );
    }
  }

  private define(name: string): Json {
    if (this.defined.has(name)) return { success: true };
    const create = this.registry.get(name);
    if (!create) {
      const known = [...this.registry.keys()].join(", ");
      return { success: false, error: `no module named ${JSON.stringify(name)} (this tool has: ${known})` };
    }
    const start = process.hrtime.bigint();
    const module = create();
    module.define();
    const timings: Timing[] = [{ name: "define", nanoseconds: Number(process.hrtime.bigint() - start) }];
    this.defined.set(name, module);
    return { success: true, timings };
  }

  private evaluate(name: string, fn: string, input: unknown): Json {
    const module = this.defined.get(name);
    if (!module) {
      const why = this.registry.has(name) ? "has not been defined (send a define message first)" : "does not exist";
      throw new GradbenchError(`module ${JSON.stringify(name)} ${why}`);
    }
    if (!module.functions.includes(fn))
      throw new GradbenchError(
        `module ${JSON.stringify(name)} has no function ${JSON.stringify(fn)} (it has: ${module.functions.join(", ")})`,
      );
    const runs = runsOf(input);
    const call = module.prepare(fn, input);
    const timings = timeRuns(() => call.run(), runs);
    return { success: true, output: call.output(), timings };
  }

  /** The error text of a failure response; anything that is not a GradbenchError is also logged with its stack. */
  private describe(e: unknown): string {
    if (e instanceof GradbenchError) return e.message;
    const text = e instanceof Error ? e.message : String(e);
    this.log(e instanceof Error && e.stack ? e.stack : text);
    return text;
  }
}

function text(message: Json, key: string): string {
  const value = message[key];
  if (typeof value !== "string")
    throw new GradbenchError(`the message's \`${key}\` must be a string, got ${JSON.stringify(value) ?? "nothing"}`);
  return value;
}

/** JSON of a response; a value JSON cannot hold (a BigInt, a cycle) becomes a failure, never an exception. */
function encode(response: Json): string {
  try {
    return JSON.stringify(response);
  } catch (e) {
    return JSON.stringify({
      id: response.id ?? null,
      success: false,
      error: `the response cannot be encoded: ${(e as Error).message}`,
    });
  }
}

/** Serves every line of `lines` (blank lines are skipped) by writing one response line to `write`. */
export async function serve(
  lines: AsyncIterable<string> | Iterable<string>,
  write: (line: string) => void,
  tool: GradbenchTool,
): Promise<void> {
  for await (const line of lines) {
    if (line.trim() === "") continue;
    write(tool.respond(line) + "\n");
  }
}
