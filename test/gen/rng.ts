// Random choices for the program generator, drawn from a list of numbers.
//
// fast-check generates and shrinks the list (`fc.array(fc.nat())`); the generator reads it front to back. Reading
// past the end gives 0, and every choice puts its simplest option at 0, so a shrunk (shorter, smaller) list gives a
// smaller program that is still well-typed. The same list always gives the same program, so a counterexample replays.

export interface Rng {
  /** An integer from min to max, both included (min when the choices run out). */
  int(min: number, max: number): number;
  /** True with probability about `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty list (the first when the choices run out). */
  pick<T>(items: readonly T[]): T;
  /** One of the options, with probability proportional to its weight (the first when the choices run out). */
  weighted<T>(options: readonly (readonly [number, T])[]): T;
}

export class ChoiceRng implements Rng {
  private at = 0;

  constructor(private readonly choices: readonly number[]) {}

  private next(): number {
    return this.at < this.choices.length ? this.choices[this.at++]! : 0;
  }

  int(min: number, max: number): number {
    if (max < min) throw new Error(`ChoiceRng.int: empty range ${min}..${max}`);
    return min + (this.next() % (max - min + 1));
  }

  chance(p: number): boolean {
    // 0 (the shrunk choice) is "no": optional extras disappear when shrinking.
    return this.int(0, 999) >= 1000 - Math.round(p * 1000);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("ChoiceRng.pick: no items");
    return items[this.int(0, items.length - 1)]!;
  }

  weighted<T>(options: readonly (readonly [number, T])[]): T {
    const live = options.filter(([w]) => w > 0);
    if (live.length === 0) throw new Error("ChoiceRng.weighted: no option with a positive weight");
    const total = live.reduce((s, [w]) => s + w, 0);
    // Weights may be fractional: scale to integers of a fixed resolution.
    let r = this.int(0, 9999) * (total / 10000);
    for (const [w, v] of live) {
      if (r < w) return v;
      r -= w;
    }
    return live[live.length - 1]![1];
  }
}

/** A reproducible pseudo-random choice list (mulberry32), for generating programs outside fast-check. */
export function seededChoices(seed: number, length = 2000): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(((t ^ (t >>> 14)) >>> 0) % 65536);
  }
  return out;
}
