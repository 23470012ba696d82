// Helpers shared by the test suites.

import { expect } from "vitest";
import { SmoothError } from "../src/syntax/diagnostics.js";

/** The SmoothError thrown by `run`; any other exception is rethrown, and returning normally fails the test. */
export function thrown(run: () => unknown): SmoothError {
  try {
    run();
  } catch (e) {
    if (e instanceof SmoothError) return e;
    throw e;
  }
  return expect.fail("expected a SmoothError, nothing was thrown");
}
