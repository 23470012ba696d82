// exp and log of two f64 lanes at once (f64x2 -> f64x2), bit for bit the scalar ./math.ts (fdlibm's algorithms,
// V8's Math.exp and Math.log). The scalar functions branch on the range of x; here every branch's value is computed
// for both lanes and the lane's own is selected, so the arithmetic each lane sees is exactly the scalar function's.
// Where the scalar code skips a step (k = 0 below |x| = ln2/2, the k = 0 forms of log), the step is done with a zero
// that changes no bit: x - 0·ln2_hi is x, 0·ln2_hi - (y - 0) is -y (the derivations are in the comments below).
// test/wasm/math.test.ts checks both against Math on millions of inputs.

import type { Code, FunctionBuilder } from "./encoder.js";
import { f64x2, i64x2, localGet as get, localSet as set, op, shuffle } from "./instructions.js";
import { EXP, LOG } from "./math.js";

const splat = (x: number): Code => f64x2(x, x);
const sel = (ifSet: Code, otherwise: Code, mask: Code): Code => op("v128.bitselect", ifSet, otherwise, mask);
const add = (a: Code, b: Code) => op("f64x2.add", a, b);
const sub = (a: Code, b: Code) => op("f64x2.sub", a, b);
const mul = (a: Code, b: Code) => op("f64x2.mul", a, b);
const div = (a: Code, b: Code) => op("f64x2.div", a, b);
/** The f64 whose bits are `hi` << 32: |x| < boundary(H) is fdlibm's test on the high word, hx < H. */
const boundary = (hi: number): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, hi);
  return view.getFloat64(0);
};

/** 2^k for each lane's integral k with k + 1023 in [1, 2046], without a float-to-int conversion: k + 1.5·2^52 holds
 * k in its low bits (the exponent of 1.5·2^52 is 52), so its bits minus those of 1.5·2^52, plus 1023, shifted, are
 * the bits of 2^k. */
const MAGIC = 6755399441055744; // 1.5 * 2^52
const pow2 = (k: Code) =>
  op("i64x2.shl", op("i64x2.add", add(k, splat(MAGIC)), i64x2(1023n - 0x4338000000000000n)), [0x41, 52]);

/**
 * Writes exp of `groups` v128 parameters (two f64 lanes each) into `fb`, with as many v128 results: a lane loop's
 * groups of lanes (./lane-loops.ts) call it once per step. When every lane has |x| <= 708 (k within [-1021, 1021], no
 * overflow, underflow or NaN) a shorter form runs, without the selects for those cases: one test for all the groups.
 */
export function writeExpF64x2(fb: FunctionBuilder, groups = 1): void {
  eitherForm(
    fb,
    groups,
    (x) => op("v128.not", op("f64x2.le", op("f64x2.abs", get(x)), splat(708))),
    (x, full) => expLanes(fb, x, full),
  );
}

/**
 * The results of parameters 0 .. groups - 1 on the stack, each by `lanes` (which leaves a v128 on the stack): the
 * full form when any lane of any group is in `rare`'s mask, else the short one.
 */
function eitherForm(
  fb: FunctionBuilder,
  groups: number,
  rare: (x: number) => Code,
  lanes: (x: number, full: boolean) => void,
): void {
  const xs = Array.from({ length: groups }, (_, g) => g);
  const outs = xs.map(() => fb.local("v128"));
  fb.if(
    op(
      "v128.any_true",
      xs.map(rare).reduce((a, b) => op("v128.or", a, b)),
    ),
  );
  for (const full of [true, false]) {
    if (!full) fb.else();
    for (const x of xs) {
      lanes(x, full);
      fb.emit(set(outs[x]!, []));
    }
  }
  fb.end();
  fb.emit(...outs.map((o) => get(o)));
}

function expLanes(fb: FunctionBuilder, x: number, full: boolean): void {
  const v = () => fb.local("v128");
  const [ax, neg, k, hi, lo, r, t, c, y] = [v(), v(), v(), v(), v(), v(), v(), v(), v()];
  const signed = (value: number) => sel(splat(-value), splat(value), get(neg));
  // fdlibm's tests of |x|'s high word, as comparisons of |x| (false for NaN lanes, which are replaced at the end).
  const below = (hiWord: number) => op("f64x2.lt", get(ax), splat(boundary(hiWord)));
  fb.emit(
    set(ax, op("f64x2.abs", get(x))),
    set(neg, op("f64x2.lt", get(x), splat(0))),
    // k: round(x / ln2) above ln2/2 (x·invln2 ± 1/2, truncated), ±1 below 1.5 ln2, 0 below ln2/2 (no reduction).
    set(k, op("f64x2.trunc", add(mul(splat(EXP.invLn2), get(x)), signed(0.5)))),
    set(k, sel(signed(1), get(k), below(0x3ff0a2b2))),
    set(k, sel(splat(0), get(k), below(0x3fd62e43))),
    // x = k ln2 + (hi - lo): with k = ±1 this is fdlibm's x ∓ ln2_hi, ±ln2_lo exactly; with k = 0, x and +0.
    set(hi, sub(get(x), mul(get(k), splat(EXP.ln2Hi)))),
    set(lo, mul(get(k), splat(EXP.ln2Lo))),
    set(r, sub(get(hi), get(lo))),
    set(t, mul(get(r), get(r))),
  );
  const poly = [EXP.p4, EXP.p3, EXP.p2, EXP.p1].reduce<Code>(
    (acc, p) => add(splat(p), mul(get(t), acc)),
    splat(EXP.p5),
  );
  // y = 1 - ((lo - r c / (2 - c)) - hi): with k = 0 (lo = 0, hi = x) fdlibm's 1 - (r c / (c - 2) - r), since
  // 0 - a / (2 - c) is a / (c - 2) bit for bit whenever a = r c is not zero (r = 0 is the tiny case).
  fb.emit(
    set(c, sub(get(r), mul(get(t), poly))),
    set(y, sub(splat(1), sub(sub(get(lo), div(mul(get(r), get(c)), sub(splat(2), get(c)))), get(hi)))),
  );
  // 2^k: directly for -1021 <= k <= 1023; k < -1021 as 2^(k+1000) then 2^-1000, k = 1024 as 2^1023 then 2 (one
  // rounding each way, as fdlibm's y·twopk·twom1000 and y·2·two1023).
  if (full) {
    const low = op("f64x2.lt", get(k), splat(-1021));
    const top = op("f64x2.eq", get(k), splat(1024));
    const kScaled = sel(add(get(k), splat(1000)), sel(splat(1023), get(k), top), low);
    const extra = sel(splat(EXP.twoM1000), sel(splat(2), splat(1), top), low);
    fb.emit(set(y, mul(mul(get(y), pow2(kScaled)), extra)));
  } else fb.emit(set(y, mul(get(y), pow2(get(k)))));
  // The cases fdlibm returns early for, latest first: NaN, overflow, underflow, exp(1) = e, tiny |x| (1 + x).
  let result = get(y);
  result = sel(add(splat(1), get(x)), result, below(0x3e300000));
  result = sel(splat(Math.E), result, op("f64x2.eq", get(x), splat(1)));
  if (full) {
    result = sel(splat(0), result, op("f64x2.lt", get(x), splat(EXP.underflow)));
    result = sel(splat(Infinity), result, op("f64x2.gt", get(x), splat(EXP.overflow)));
    result = sel(add(get(x), get(x)), result, op("f64x2.ne", get(x), get(x)));
  }
  fb.emit(result);
}

/**
 * Writes log of `groups` v128 parameters (two f64 lanes each) into `fb`, with as many v128 results. When every lane is
 * normal, positive and finite a shorter form runs, without the scaling of subnormals and the selects of special values.
 */
export function writeLogF64x2(fb: FunctionBuilder, groups = 1): void {
  eitherForm(
    fb,
    groups,
    (x) =>
      op(
        "v128.not",
        op("v128.and", op("f64x2.ge", get(x), splat(2 ** -1022)), op("f64x2.lt", get(x), splat(Infinity))),
      ),
    (x, full) => logLanes(fb, x, full),
  );
}

function logLanes(fb: FunctionBuilder, x: number, full: boolean): void {
  const v = () => fb.local("v128");
  const [sub54, xs, hx, k, i, m, f] = [v(), v(), v(), v(), v(), v(), v()];
  const [dk, s, z, w, r, hfsq, small] = [v(), v(), v(), v(), v(), v(), v()];
  // Subnormal x (0 < x < 2^-1022): scaled by 2^54, k starts at -54.
  if (full)
    fb.emit(
      set(sub54, op("v128.and", op("f64x2.lt", get(x), splat(2 ** -1022)), op("f64x2.gt", get(x), splat(0)))),
      set(xs, sel(mul(get(x), splat(LOG.two54)), get(x), get(sub54))),
    );
  else fb.emit(set(xs, get(x)));
  fb.emit(
    // The high word (x > 0 here: lanes of other x are replaced at the end).
    set(hx, op("i64x2.shr_u", get(xs), [0x41, 32])),
    // k = k0 + exponent - 1023 (+1 when the significand is normalised into [sqrt(2)/2, sqrt(2)) by halving).
    set(k, op("i64x2.sub", op("i64x2.shr_u", get(hx), [0x41, 20]), i64x2(1023n))),
    ...(full ? [set(k, op("i64x2.add", get(k), sel(i64x2(-54n), i64x2(0n), get(sub54))))] : []),
    set(hx, op("v128.and", get(hx), i64x2(0xfffffn))),
    set(i, op("v128.and", op("i64x2.add", get(hx), i64x2(0x95f64n)), i64x2(0x100000n))),
    set(k, op("i64x2.add", get(k), op("i64x2.shr_u", get(i), [0x41, 20]))),
    // x with its high word replaced by hx | (i ^ 0x3ff00000): the normalised significand.
    set(
      m,
      op(
        "v128.or",
        op("i64x2.shl", op("v128.or", get(hx), op("v128.xor", get(i), i64x2(0x3ff00000n))), [0x41, 32]),
        op("v128.and", get(xs), i64x2(0xffffffffn)),
      ),
    ),
    set(f, sub(get(m), splat(1))),
    // The low 32 bits of each i64 lane into i32 lanes 0 and 1, then converted (|k| < 1100).
    set(
      dk,
      op("f64x2.convert_low_i32x4_s", shuffle(get(k), get(k), [0, 1, 2, 3, 8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11])),
    ),
  );
  // |f| < 2^-20: dk ln2_hi - ((R - dk ln2_lo) - f) with R = f² (1/2 - f/3): fdlibm's k = 0 form f - R is the same
  // bits with dk = 0 (0 - (R - f) = f - R), and its f = 0 form dk ln2_hi + dk ln2_lo too.
  fb.emit(
    set(small, op("i64x2.lt_s", op("v128.and", op("i64x2.add", get(hx), i64x2(2n)), i64x2(0xfffffn)), i64x2(3n))),
    set(r, mul(mul(get(f), get(f)), sub(splat(0.5), mul(splat(1 / 3), get(f))))),
    set(
      small,
      sel(
        sub(mul(get(dk), splat(LOG.ln2Hi)), sub(sub(get(r), mul(get(dk), splat(LOG.ln2Lo))), get(f))),
        splat(0),
        get(small),
      ),
    ),
  );
  // Otherwise s = f / (2 + f), R = the polynomial in s², then one of two forms (by fdlibm's i > 0), again with the
  // k = 0 forms equal to the general ones at dk = 0.
  const lg = (a: number, b: Code) => add(splat(a), mul(get(w), b));
  fb.emit(
    set(s, div(get(f), add(splat(2), get(f)))),
    set(z, mul(get(s), get(s))),
    set(w, mul(get(z), get(z))),
    set(
      r,
      add(
        mul(get(z), lg(LOG.lg1, lg(LOG.lg3, lg(LOG.lg5, splat(LOG.lg7))))),
        mul(get(w), lg(LOG.lg2, lg(LOG.lg4, splat(LOG.lg6)))),
      ),
    ),
    set(
      i,
      op(
        "i64x2.gt_s",
        op("v128.or", op("i64x2.sub", get(hx), i64x2(0x6147an)), op("i64x2.sub", i64x2(0x6b851n), get(hx))),
        i64x2(0n),
      ),
    ),
    set(hfsq, mul(mul(splat(0.5), get(f)), get(f))),
  );
  const dkHi = mul(get(dk), splat(LOG.ln2Hi));
  const dkLo = mul(get(dk), splat(LOG.ln2Lo));
  const withHfsq = sub(dkHi, sub(sub(get(hfsq), add(mul(get(s), add(get(hfsq), get(r))), dkLo)), get(f)));
  const withoutHfsq = sub(dkHi, sub(sub(mul(get(s), sub(get(f), get(r))), dkLo), get(f)));
  let result = sel(withHfsq, withoutHfsq, get(i));
  result = sel(
    get(small),
    result,
    op("i64x2.lt_s", op("v128.and", op("i64x2.add", get(hx), i64x2(2n)), i64x2(0xfffffn)), i64x2(3n)),
  );
  // Special values, as fdlibm returns them: +inf and NaN give x + x, negative x NaN, zero -inf.
  if (full) {
    result = sel(
      add(get(x), get(x)),
      result,
      op("v128.or", op("f64x2.ne", get(x), get(x)), op("f64x2.eq", get(x), splat(Infinity))),
    );
    result = sel(splat(NaN), result, op("f64x2.lt", get(x), splat(0)));
    result = sel(splat(-Infinity), result, op("f64x2.eq", get(x), splat(0)));
  }
  fb.emit(result);
}
