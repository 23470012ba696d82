// Loops that report being cut short. Mesa's software rasterizers (llvmpipe, lavapipe: the adapters of machines without
// a GPU) end every loop of a thread once the thread has passed 65,535 loop headers, silently: the code after it runs on
// with the values of a loop cut short, and the result is wrong. So every loop of a kernel is followed by a test that
// it ended as the program says: a `for` or `while` loop's condition is false after it, a `loop` left by one of its own
// `break`s. A loop that did not raises C[loopLimit], and the host reports an error instead of a result. The test costs
// one comparison per loop, not per iteration.

import { CONTROL } from "./control.js";

const FLAG = `atomicStore(&C[${CONTROL.loopLimit}], 1u);`;

/** Loop openers as kernels and helpers write them: `for (header) {`, `while (cond) {`, `loop {` (no braces in them). */
const OPENER = /\b(?:for \(([^{]*)\) \{|while \(([^{]*)\) \{|loop \{)/g;

/** The position just past the `}` that closes the `{` ending at `open` (code's braces are balanced). */
function closing(code: string, open: number): number {
  let depth = 1;
  for (let i = open; i < code.length; i++) {
    if (code[i] === "{") depth++;
    else if (code[i] === "}" && --depth === 0) return i + 1;
  }
  throw new Error("webgpu: unbalanced braces in a kernel");
}

/** The openers in `code` at its own level (not inside another loop's body), with their body's end. */
function loopsIn(code: string): { start: number; end: number; match: RegExpExecArray }[] {
  const out: { start: number; end: number; match: RegExpExecArray }[] = [];
  OPENER.lastIndex = 0;
  for (let m = OPENER.exec(code); m !== null; m = OPENER.exec(code)) {
    const end = closing(code, m.index + m[0].length);
    out.push({ start: m.index, end, match: m });
    OPENER.lastIndex = end;
  }
  return out;
}

/** `code` with every loop followed by the test that it was not cut short. */
export function guardLoops(code: string): string {
  return guard(code, { loops: 0 });
}

function guard(code: string, names: { loops: number }): string {
  let out = "";
  let at = 0;
  for (const { start, end, match } of loopsIn(code)) {
    out += code.slice(at, start);
    const body = code.slice(start + match[0].length, end - 1);
    if (match[1] !== undefined) {
      // for (init; cond; step): the index lives on past the loop, in a block of its own.
      const [init, cond, step] = match[1].split(";").map((s) => s.trim()) as [string, string, string];
      const head = init === "" ? "" : `${init}; `;
      out += `{ ${head}for (; ${cond}; ${step}) {${guard(body, names)}} if (${cond}) { ${FLAG} } }`;
    } else if (match[2] !== undefined) {
      out += `{ while (${match[2]}) {${guard(body, names)}} if (${match[2]}) { ${FLAG} } }`;
    } else {
      // loop: its own breaks (those outside the loops in its body) record that it ended.
      const done = `loop_done_${names.loops++}`;
      let own = "";
      let from = 0;
      for (const inner of loopsIn(body)) {
        own += body.slice(from, inner.start).replaceAll("break;", `{ ${done} = true; break; }`);
        own += body.slice(inner.start, inner.end);
        from = inner.end;
      }
      own += body.slice(from).replaceAll("break;", `{ ${done} = true; break; }`);
      out += `{ var ${done} = false; loop {${guard(own, names)}} if (!${done}) { ${FLAG} } }`;
    }
    at = end;
  }
  return out + code.slice(at);
}
