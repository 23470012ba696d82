// The intermediary between a GradBench eval and a tool, as the suite's Rust CLI runs it (github gradbench/gradbench,
// crates/gradbench/src/intermediary.rs): both run as processes speaking JSON lines; every line the eval writes
// (start, define, evaluate, analysis) goes to the tool, and the tool's one response line goes back to the eval. The
// eval validates each successful evaluate itself and says so in an `analysis` message (`of` its id, `valid`), which
// the tool also receives. The outcome is the CLI's: undefined (a define failed), failure (an evaluate failed),
// invalid (an analysis said so), timeout (no response within the limit: both process groups are killed) or error
// (malformed JSON, a success carrying an error or no output, a process dying). Stricter than the CLI: a response
// with another message's id, an eval that exits non-zero (a Python exception) and a tool that exits non-zero are
// errors too.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A process with piped stdio in its own process group, its output lines read one at a time. */
function start({ command, args, cwd, env }, name) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise((resolve) => {
    child.on("error", (e) => resolve({ code: null, error: `${name} could not run: ${e.message}` }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  // A process that dies while being written to: the write's EPIPE is reported through the missing response.
  child.stdin.on("error", () => {});
  child.stderr.on("data", (d) => process.stderr.write(d));
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
  return {
    child,
    exited,
    /** The next line, or undefined at the end of the output. */
    next: async () => {
      const { value, done } = await lines.next();
      return done ? undefined : value;
    },
    send: (line) => child.stdin.write(line + "\n"),
    kill: () => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    },
  };
}

const summary = (nanoseconds) => {
  const ms = nanoseconds.map((t) => t / 1e6);
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    runs: ms.length,
    firstMs: ms[0],
    minMs: sorted[0],
    medianMs: sorted[sorted.length >> 1],
    meanMs: ms.reduce((a, b) => a + b, 0) / ms.length,
  };
};

class RelayError extends Error {}

function parse(line, from) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    throw new RelayError(`invalid JSON from ${from}: ${line.slice(0, 200)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new RelayError(`${from} sent a line that is not a JSON object: ${line.slice(0, 200)}`);
  return value;
}

/**
 * Runs one eval against one tool. `evalCommand` and `toolCommand`: { command, args, cwd, env }. Returns the outcome
 * (`success` or the CLI's name of what went wrong, with `error` saying what), the define (wall time, success, the
 * tool's own timings), every evaluate (wall time; the tool's "evaluate" timings summarised; the eval's analysis)
 * and the whole run's wall time.
 */
export async function relay(evalCommand, toolCommand, { timeoutSeconds }) {
  const began = process.hrtime.bigint();
  const evaluation = start(evalCommand, "the eval");
  const tool = start(toolCommand, "the tool");
  const counts = { undefined: 0, failure: 0, invalid: 0 };
  const evaluations = new Map();
  let define;
  let outcome;
  let error;
  try {
    for (let line = await evaluation.next(); line !== undefined; line = await evaluation.next()) {
      const message = parse(line, "the eval");
      const sent = process.hrtime.bigint();
      tool.send(line);
      let timer;
      const response = await Promise.race([
        tool.next(),
        new Promise((resolve) => (timer = setTimeout(() => resolve(timer), timeoutSeconds * 1000))),
      ]);
      clearTimeout(timer);
      if (response === timer) {
        outcome = "timeout";
        error = `no response to message ${message.id} (${message.kind}) within ${timeoutSeconds} s`;
        break;
      }
      const wallMs = Number(process.hrtime.bigint() - sent) / 1e6;
      if (response === undefined)
        throw new RelayError(`the tool closed its output instead of answering message ${message.id} (${message.kind})`);
      const answer = parse(response, "the tool");
      if (answer.id !== message.id)
        throw new RelayError(`the tool answered message ${message.id} with the id ${JSON.stringify(answer.id)}`);
      const timings = answer.timings ?? [];
      if (message.kind === "define" || message.kind === "evaluate") {
        if (answer.success === true && answer.error !== undefined && answer.error !== null)
          throw new RelayError(`the tool reported success with an error for message ${message.id}: ${answer.error}`);
        if (answer.success !== true) counts[message.kind === "define" ? "undefined" : "failure"]++;
      }
      if (message.kind === "define") define = { wallMs, success: answer.success, error: answer.error, timings };
      if (message.kind === "evaluate") {
        if (answer.success === true && !("output" in answer))
          throw new RelayError(`the tool reported success with no output for message ${message.id}`);
        const evaluate = timings.filter((t) => t.name === "evaluate").map((t) => t.nanoseconds);
        evaluations.set(message.id, {
          function: message.function,
          workload: message.description ?? "",
          wallMs,
          success: answer.success,
          error: answer.error,
          ...(evaluate.length > 0 ? summary(evaluate) : { runs: 0 }),
        });
      }
      if (message.kind === "analysis") {
        if (message.valid !== true) counts.invalid++;
        const of = evaluations.get(message.of);
        if (of) Object.assign(of, { valid: message.valid, analysisError: message.error });
      }
      evaluation.send(response);
    }
  } catch (e) {
    if (!(e instanceof RelayError)) throw e;
    outcome = "error";
    error = e.message;
  }
  if (outcome === "timeout") {
    tool.kill();
    evaluation.kill();
  }
  evaluation.child.stdin.end();
  tool.child.stdin.end();
  const [evalExit, toolExit] = await Promise.all([evaluation.exited, tool.exited]);
  if (outcome === undefined) {
    const died = [
      [evalExit, "the eval"],
      [toolExit, "the tool"],
    ].find(([exit]) => exit.code !== 0);
    if (died) {
      outcome = "error";
      const [exit, name] = died;
      error = exit.error ?? `${name} exited with ${exit.code ?? exit.signal}`;
    } else if (counts.undefined > 0) outcome = "undefined";
    else if (counts.failure > 0) outcome = "failure";
    else if (counts.invalid > 0) outcome = "invalid";
    else outcome = "success";
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  return { outcome, error, define, evaluations: [...evaluations.values()], seconds };
}
