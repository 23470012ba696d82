// The modules this tool implements: module name -> a function creating it (called at the module's first define, so
// a session loads and compiles only the evals it uses). One line per eval.

import type { Registry } from "./protocol.js";
import { detEval } from "./evals/det.js";
import { gmmEval } from "./evals/gmm.js";
import { helloEval } from "./evals/hello.js";
import { kmeansEval } from "./evals/kmeans.js";
import { llsqEval } from "./evals/llsq.js";
import { lseEval } from "./evals/lse.js";
import { lstmEval } from "./evals/lstm.js";
import { odeEval } from "./evals/ode.js";
import { baEval } from "./evals/ba.js";
import { htEval } from "./evals/ht.js";
import { particleEval } from "./evals/particle.js";
import { saddleEval } from "./evals/saddle.js";

export const EVALS: Registry = new Map([
  ["hello", helloEval],
  ["lse", lseEval],
  ["llsq", llsqEval],
  ["ode", odeEval],
  ["det", detEval],
  ["kmeans", kmeansEval],
  ["gmm", gmmEval],
  ["lstm", lstmEval],
  ["ba", baEval],
  ["ht", htEval],
  ["particle", particleEval],
  ["saddle", saddleEval],
]);
