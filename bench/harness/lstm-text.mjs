// GradBench's lstm eval reads its characters from evals/lstm/data/lstm_full.txt, a large file that partial clones of
// the suite (and of ADBench, where the same file comes from) leave out. ADBench's lstm_l2_c1024.txt holds the first
// 1024 of those characters, written by its gen_data.py as the rows of the text matrix: one row of `b` bits per
// character (ord(c) in binary, most significant bit first). This writes them back as text, which is all that the
// eval's `-c 1024` reads (run.py: `open(file, encoding="utf8").read(max(c))`).
//   node bench/harness/lstm-text.mjs <ADBench data/lstm/lstm_l2_c1024.txt> <gradbench>/evals/lstm/data/lstm_full.txt

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** The characters of an ADBench LSTM data file: its last block (after the params and the state) of 0/1 rows. */
export function lstmText(adbenchFile) {
  // Blocks separated by blank lines: the header `l c b`, the parameters, the extra parameters, the state, the text.
  const blocks = readFileSync(adbenchFile, "utf8")
    .split(/\n\s*\n/)
    .map((block) => block.trim().split("\n"));
  const [layers, chars, bits] = (blocks[0]?.[0] ?? "").trim().split(/\s+/).map(Number);
  const rows = blocks[4] ?? [];
  if (blocks[1]?.length !== 2 * layers) throw new Error(`${adbenchFile}: not an ADBench LSTM file (l = ${layers})`);
  const text = rows.map((row, i) => {
    const digits = row.trim().split(/\s+/);
    if (digits.length !== bits || digits.some((d) => d !== "0" && d !== "1"))
      throw new Error(`${adbenchFile}: text row ${i + 1} is not ${bits} bits`);
    return String.fromCodePoint(parseInt(digits.join(""), 2));
  });
  if (text.length !== chars) throw new Error(`${adbenchFile}: ${text.length} characters, expected ${chars}`);
  // run.py's bit width is ceil(log2(max code point)): the same text gives the same `b` as ADBench's file.
  const width = Math.ceil(Math.log2(Math.max(...text.map((c) => c.codePointAt(0)))));
  if (width !== bits) throw new Error(`${adbenchFile}: the characters need ${width} bits, the file says ${bits}`);
  return text.join("");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [from, to] = process.argv.slice(2);
  if (from === undefined || to === undefined) {
    console.error(
      "usage: node bench/harness/lstm-text.mjs <ADBench lstm_l2_c1024.txt> <evals/lstm/data/lstm_full.txt>",
    );
    process.exit(1);
  }
  const text = lstmText(from);
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, text);
  console.log(`wrote ${[...text].length} characters to ${to}`);
}
