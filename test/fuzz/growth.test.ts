// The long growth sweep (issue 29, "blow-ups"; `npm run fuzz -- --long`): every construct of
// test/robust/constructs.ts, every request (run, gradient, forward Jacobian, Hessian), on the js and wasm back ends,
// compiled at two sizes; both the compile work (compileWork, deterministic) and the CPU time of compiling must grow at
// most as the program does, time with a generous bound (the machine is shared): 4 times the length at most 8 times
// the time, twice the depth at most 6 times (nesting admits the quadratic terms test/robust/growth.test.ts explains).
// Each time is the lesser of two compiles, after a compile that warms the compiler up. Without --long, one construct
// on both back ends, so that the sweep itself is exercised in CI; test/robust/growth.test.ts is the CI slice.

import { describe, expect, test } from "vitest";
import { loadProgram } from "../../src/api/program.js";
import { compileWork } from "../../src/ir/work.js";
import { CONSTRUCTS, constructSource, type ConstructName, type Request } from "../robust/constructs.js";

const LONG = process.env.SMOOTH_FUZZ_LONG === "1";
const KINDS = { grad: "gradient", jacobian: "forward", hessian: "hessian" } as const;
const SIZES = {
  depth: { small: 20, large: 40, work: 4.4, time: 6 },
  length: { small: 250, large: 1000, work: 4.4, time: 8 },
} as const;
/** As in test/robust/growth.test.ts (its KNOWN), with the Hessian of nested whiles. */
const KNOWN = new Set(["nestedWhile grad", "nestedWhile hessian", "seqBuilds hessian"]);

type Engine = "js" | "wasm";

/** The compile work and CPU milliseconds of compiling `main` at size n for the request. */
function compile(name: ConstructName, n: number, request: Request, engine: Engine): { work: number; ms: number } {
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const [w, t] = [compileWork.nodes, cpu()];
  const p = loadProgram({ name: `${name}.smooth`, text: constructSource(name, n) });
  const argTypes = p.argTypesFromJson("main", [0.3]);
  if (request === "run") p.specialise("main", argTypes, engine);
  else p.derivative("main", argTypes, [0], engine, undefined, KINDS[request]);
  return { work: compileWork.nodes - w, ms: cpu() - t };
}

function sweep(name: ConstructName, request: Request, engine: Engine): void {
  const sizes = SIZES[CONSTRUCTS[name].kind];
  compile(name, sizes.small, request, engine);
  const [a, b, c, d] = [sizes.small, sizes.large, sizes.small, sizes.large].map((n) =>
    compile(name, n, request, engine),
  );
  const label = `${name} ${request} ${engine}: work ${a!.work} -> ${b!.work}, ms ${a!.ms} -> ${b!.ms}, ${c!.ms} -> ${d!.ms}`;
  expect(b!.work / a!.work, label).toBeLessThanOrEqual(sizes.work);
  expect(Math.min(b!.ms, d!.ms) / Math.max(1, Math.min(a!.ms, c!.ms)), label).toBeLessThanOrEqual(sizes.time);
}

const NAMES = Object.keys(CONSTRUCTS) as ConstructName[];
const REQUESTS: Request[] = ["run", "grad", "jacobian", "hessian"];
const ENGINES: Engine[] = ["js", "wasm"];

describe.runIf(LONG)("growth sweep (--long): compile work and time grow at most as the program does", () => {
  for (const name of NAMES)
    for (const request of REQUESTS)
      for (const engine of ENGINES) {
        const known = KNOWN.has(`${name} ${request}`);
        (known ? test.fails : test)(`${name} ${request} ${engine}${known ? " (known)" : ""}`, () =>
          sweep(name, request, engine),
        );
      }
});

describe.runIf(!LONG)("growth sweep, one construct (the rest with --long)", () => {
  for (const engine of ENGINES) test(`nestedSum run ${engine}`, () => sweep("nestedSum", "run", engine));
});
