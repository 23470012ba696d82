// The one error type a user can cause. Everything that reaches a person (CLI, library) is a SmoothError:
// a kind, a located message and, where known, what was expected and what was found.

import { calledFrom, excerpt, formatLocation, type Span } from "./source.js";

export type ErrorKind =
  | "syntax"
  | "name" // unknown name
  | "type"
  | "shape" // irregular build, mismatched lengths
  | "index" // out-of-range index
  | "argument" // bad --args JSON / bad argument to a compiled function
  | "recursion" // recursion deeper than the engine allows
  | "memory" // a memory budget too small for what the program must store
  | "unsupported" // a construct the back end or transformation cannot handle
  | "staging"; // a TypeScript function over tensors the tracer cannot stage (a StagingError)

export interface ErrorDetails {
  expected?: string;
  found?: string;
  /** Extra lines of explanation, shown after the excerpt. */
  hint?: string;
}

export class SmoothError extends Error {
  // Not enumerable: Node prints an uncaught error's enumerable properties after its message, and the span holds the
  // whole source file.
  declare readonly kind: ErrorKind;
  declare readonly summary: string;
  declare readonly span?: Span;
  declare readonly details: ErrorDetails;

  constructor(kind: ErrorKind, summary: string, span?: Span, details: ErrorDetails = {}) {
    super(SmoothError.render(kind, summary, span, details));
    const hidden = (value: unknown) => ({ value, enumerable: false, writable: false, configurable: true });
    Object.defineProperties(this, {
      name: hidden("SmoothError"),
      kind: hidden(kind),
      summary: hidden(summary),
      span: hidden(span),
      details: hidden(details),
    });
  }

  /** The first line of the message: "file:line:col: kind error: summary". */
  get headline(): string {
    return this.message.split("\n", 1)[0]!;
  }

  static render(kind: ErrorKind, summary: string, span: Span | undefined, details: ErrorDetails): string {
    // An error inside a prelude function is shown at the user's call first, then where in the prelude.
    const shown = span?.caller ?? span;
    const where = shown ? `${formatLocation(shown)}: ` : "";
    let text = `${where}${kind} error: ${summary}`;
    if (details.expected !== undefined) text += `\n  expected: ${details.expected}`;
    if (details.found !== undefined) text += `\n  found:    ${details.found}`;
    if (shown) text += `\n${excerpt(shown)}`;
    if (span?.caller) text += `\ninside the prelude, at ${formatLocation(span)}:\n${excerpt(span)}`;
    if (details.hint !== undefined) text += `\n${details.hint}`;
    return text;
  }

  /** This error with `hint` added after its own. */
  withHint(hint: string): SmoothError {
    const joined = this.details.hint === undefined ? hint : `${this.details.hint}\n${hint}`;
    return new SmoothError(this.kind, this.summary, this.span, { ...this.details, hint: joined });
  }

  /** This error with the user's call recorded (see Span.caller); itself when there is nothing to add. */
  calledFrom(caller: Span | undefined): SmoothError {
    if (this.span === undefined) return this;
    const span = calledFrom(this.span, caller);
    return span === this.span ? this : new SmoothError(this.kind, this.summary, span, this.details);
  }
}

// A bundler renames a class that refers to itself (`class _SmoothError`), and Node prints an uncaught error under its
// constructor's name.
Object.defineProperty(SmoothError, "name", { value: "SmoothError" });

export function fail(kind: ErrorKind, summary: string, span?: Span, details?: ErrorDetails): never {
  throw new SmoothError(kind, summary, span, details);
}
