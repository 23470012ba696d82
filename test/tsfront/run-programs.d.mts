import type { AnyFunction } from "../../src/index.js";
import type { ProgramCase } from "./programs-cases.js";

export function runPrograms(
  api: { grad: AnyFunction; typescriptModule: AnyFunction },
  text: string,
  cases: Record<string, ProgramCase>,
): Record<string, number[]>;
