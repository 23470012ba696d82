// Writes moons.csv: 200 points of two interleaving half circles ("moons") with Gaussian noise (sd 0.15), labels 0/1.
// Deterministic (a fixed-seed xorshift generator), so the file can be regenerated exactly: node make-moons.mjs
import { writeFileSync } from "node:fs";

let s = 20240611;
const uniform = () => {
  s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
  return (s + 0.5) / 2 ** 32;
};
const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());

const rows = ["x1,x2,label"];
for (let i = 0; i < 200; i++) {
  const label = i % 2;
  const t = Math.PI * uniform();
  const [x, y] = label === 0 ? [Math.cos(t), Math.sin(t)] : [1 - Math.cos(t), 0.5 - Math.sin(t)];
  rows.push(`${(x + 0.15 * gaussian()).toFixed(4)},${(y + 0.15 * gaussian()).toFixed(4)},${label}`);
}
writeFileSync(new URL("./moons.csv", import.meta.url), rows.join("\n") + "\n");
