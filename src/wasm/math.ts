// exp and log in WebAssembly, bit for bit V8's `Math.exp` and `Math.log`: V8 computes both with the algorithms of
// fdlibm (Sun's freely distributable libm: e_exp.c and e_log.c), which use only IEEE arithmetic, so the same steps in
// wasm give the same bits on every input — the wasm back end then agrees with the JavaScript back end and the
// interpreter exactly, not within an ulp. (V8 returns Math.E for exp(1), a last-bit correction fdlibm lacks: done here
// too.) test/wasm/math.test.ts compares them with Math on millions of inputs and the edge cases.
//
// exp: x = k ln2 + r with |r| <= ln2/2 (ln2 split in a high part exact in k ln2_hi and a low part), exp(r) from a
// degree-5 minimax polynomial R with exp(r) = 1 + 2r / (R(r) - r), then 2^k. log: x = 2^k (1 + f) with
// sqrt(2)/2 < 1 + f < sqrt(2), log(1 + f) = f - s (f - R) with s = f / (2 + f) and R a degree-14 polynomial in s
// (even terms only), then k ln2 in two parts. The scalar versions below follow fdlibm's branches; the vector ones
// (f64x2, ./simd-math.ts) compute every branch's value and select lane by lane.

import type { FunctionBuilder } from "./encoder.js";
import { f64, i32, i64, localGet as get, localSet as set, op } from "./instructions.js";

export const EXP = {
  ln2Hi: 6.9314718036912381649e-1,
  ln2Lo: 1.90821492927058770002e-10,
  invLn2: 1.442695040888963387,
  p1: 1.66666666666666019037e-1,
  p2: -2.77777777770155933842e-3,
  p3: 6.61375632143793436117e-5,
  p4: -1.6533902205465251539e-6,
  p5: 4.13813679705723846039e-8,
  overflow: 7.09782712893383973096e2,
  underflow: -7.4513321910194110842e2,
  twoM1000: 9.3326361850321887899e-302,
  two1023: 8.988465674311579539e307,
} as const;

export const LOG = {
  ln2Hi: 6.9314718036912381649e-1,
  ln2Lo: 1.90821492927058770002e-10,
  two54: 1.8014398509481984e16,
  lg1: 6.66666666666673513e-1,
  lg2: 3.999999999940941908e-1,
  lg3: 2.857142874366239149e-1,
  lg4: 2.222219843214978396e-1,
  lg5: 1.818357216161805012e-1,
  lg6: 1.531383769920937332e-1,
  lg7: 1.479819860511658591e-1,
} as const;

export const ret = (code: readonly number[]) => op("return", code);

/** The high 32 bits of an f64 (as fdlibm's GET_HIGH_WORD). */
export const highWord = (x: readonly number[]) =>
  op("i32.wrap_i64", op("i64.shr_u", op("i64.reinterpret_f64", x), i64(32n)));
export const lowWord = (x: readonly number[]) => op("i32.wrap_i64", op("i64.reinterpret_f64", x));

/** Writes exp(x: f64) -> f64 into `fb`. */
export function writeExp(fb: FunctionBuilder): void {
  const x = 0;
  const [hx, xsb, k] = [fb.local("i32"), fb.local("i32"), fb.local("i32")];
  const [hi, lo, t, c, y, twopk] = [
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
  ];
  fb.emit(
    set(hx, highWord(get(x))),
    set(xsb, op("i32.shr_u", get(hx), i32(31))),
    set(hx, op("i32.and", get(hx), i32(0x7fffffff))),
  );
  // |x| >= 709.78...: overflow, underflow, infinities and NaN.
  fb.if(op("i32.ge_u", get(hx), i32(0x40862e42)));
  fb.if(op("i32.ge_u", get(hx), i32(0x7ff00000)));
  fb.if(op("i32.or", op("i32.and", get(hx), i32(0xfffff)), lowWord(get(x))));
  fb.emit(ret(op("f64.add", get(x), get(x))));
  fb.end();
  fb.emit(ret(op("select", get(x), f64(0), op("i32.eqz", get(xsb)))));
  fb.end();
  fb.if(op("f64.gt", get(x), f64(EXP.overflow)));
  fb.emit(ret(f64(Infinity)));
  fb.end();
  fb.if(op("f64.lt", get(x), f64(EXP.underflow)));
  fb.emit(ret(f64(0)));
  fb.end();
  fb.end();
  // Argument reduction: x = k ln2 + (hi - lo).
  fb.if(op("i32.gt_u", get(hx), i32(0x3fd62e42)));
  writeReduction(fb, { x, hx, xsb, k, t, hi, lo }, () => {
    fb.if(op("f64.eq", get(x), f64(1)));
    fb.emit(ret(f64(Math.E)));
    fb.end();
  });
  fb.emit(set(x, op("f64.sub", get(hi), get(lo))));
  fb.else();
  fb.if(op("i32.lt_u", get(hx), i32(0x3e300000)));
  fb.emit(ret(op("f64.add", f64(1), get(x))));
  fb.end();
  fb.emit(set(k, i32(0)));
  fb.end();
  // exp(x) = 2^k (1 + 2x / (R - x)), written as fdlibm writes it.
  fb.emit(set(t, op("f64.mul", get(x), get(x))));
  const pow2 = (e: readonly number[]) =>
    op("f64.reinterpret_i64", op("i64.shl", op("i64.extend_i32_s", op("i32.add", e, i32(1023))), i64(52n)));
  fb.emit(
    set(twopk, op("select", pow2(get(k)), pow2(op("i32.add", get(k), i32(1000))), op("i32.ge_s", get(k), i32(-1021)))),
  );
  // p1 + t (p2 + t (p3 + t (p4 + t p5)))
  const full = op("f64.add", f64(EXP.p1), op("f64.mul", get(t), polyFrom(get(t))));
  fb.emit(set(c, op("f64.sub", get(x), op("f64.mul", get(t), full))));
  const xc = op("f64.mul", get(x), get(c));
  fb.if(op("i32.eqz", get(k)));
  fb.emit(ret(op("f64.sub", f64(1), op("f64.sub", op("f64.div", xc, op("f64.sub", get(c), f64(2))), get(x)))));
  fb.end();
  fb.emit(
    set(
      y,
      op(
        "f64.sub",
        f64(1),
        op("f64.sub", op("f64.sub", get(lo), op("f64.div", xc, op("f64.sub", f64(2), get(c)))), get(hi)),
      ),
    ),
  );
  fb.if(op("i32.ge_s", get(k), i32(-1021)));
  fb.if(op("i32.eq", get(k), i32(1024)));
  fb.emit(ret(op("f64.mul", op("f64.mul", get(y), f64(2)), f64(EXP.two1023))));
  fb.end();
  fb.emit(ret(op("f64.mul", get(y), get(twopk))));
  fb.end();
  fb.emit(op("f64.mul", op("f64.mul", get(y), get(twopk)), f64(EXP.twoM1000)));
}

/**
 * fdlibm's argument reduction for |x| > ln2/2 (exp and expm1): x = k ln2 + (hi - lo), with k = ±1 below 1.5 ln2
 * (after `near`, exp's exp(1) correction) and k = x / ln2 rounded otherwise; ln2 in a high part exact in k ln2_hi and a
 * low part. Writes k, hi and lo (t is scratch); hx is |x|'s high word, xsb x's sign bit.
 */
export function writeReduction(
  fb: FunctionBuilder,
  l: { x: number; hx: number; xsb: number; k: number; t: number; hi: number; lo: number },
  near?: () => void,
): void {
  const { x, hx, xsb, k, t, hi, lo } = l;
  fb.if(op("i32.lt_u", get(hx), i32(0x3ff0a2b2)));
  near?.();
  const signed = (v: number) => op("select", f64(-v), f64(v), get(xsb));
  fb.emit(
    set(hi, op("f64.sub", get(x), signed(EXP.ln2Hi))),
    set(lo, signed(EXP.ln2Lo)),
    set(k, op("i32.sub", op("i32.sub", i32(1), get(xsb)), get(xsb))),
  );
  fb.else();
  fb.emit(
    set(k, op("i32.trunc_f64_s", op("f64.add", op("f64.mul", f64(EXP.invLn2), get(x)), signed(0.5)))),
    set(t, op("f64.convert_i32_s", get(k))),
    set(hi, op("f64.sub", get(x), op("f64.mul", get(t), f64(EXP.ln2Hi)))),
    set(lo, op("f64.mul", get(t), f64(EXP.ln2Lo))),
  );
  fb.end();
}

/** p2 + t (p3 + t (p4 + t p5)) for the local t. */
function polyFrom(t: readonly number[]): readonly number[] {
  const inner = op("f64.add", f64(EXP.p4), op("f64.mul", t, f64(EXP.p5)));
  const mid = op("f64.add", f64(EXP.p3), op("f64.mul", t, inner));
  return op("f64.add", f64(EXP.p2), op("f64.mul", t, mid));
}

/** Writes log(x: f64) -> f64 into `fb`. */
export function writeLog(fb: FunctionBuilder): void {
  const x = 0;
  const [hx, k, i, j] = [fb.local("i32"), fb.local("i32"), fb.local("i32"), fb.local("i32")];
  const [f, s, z, w, r, dk, hfsq] = [
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
    fb.local("f64"),
  ];
  fb.emit(set(hx, highWord(get(x))), set(k, i32(0)));
  // x < 2^-1022: zero (-inf), negative (NaN), or subnormal (scaled up by 2^54).
  fb.if(op("i32.lt_s", get(hx), i32(0x00100000)));
  fb.if(op("i32.eqz", op("i32.or", op("i32.and", get(hx), i32(0x7fffffff)), lowWord(get(x)))));
  fb.emit(ret(f64(-Infinity)));
  fb.end();
  fb.if(op("i32.lt_s", get(hx), i32(0)));
  fb.emit(ret(f64(NaN)));
  fb.end();
  fb.emit(set(k, i32(-54)), set(x, op("f64.mul", get(x), f64(LOG.two54))), set(hx, highWord(get(x))));
  fb.end();
  fb.if(op("i32.ge_s", get(hx), i32(0x7ff00000)));
  fb.emit(ret(op("f64.add", get(x), get(x))));
  fb.end();
  fb.emit(
    set(k, op("i32.add", get(k), op("i32.sub", op("i32.shr_s", get(hx), i32(20)), i32(1023)))),
    set(hx, op("i32.and", get(hx), i32(0xfffff))),
    set(i, op("i32.and", op("i32.add", get(hx), i32(0x95f64)), i32(0x100000))),
  );
  // Normalise x or x/2 into [sqrt(2)/2, sqrt(2)): replace the high word.
  const high = op(
    "i64.shl",
    op("i64.extend_i32_u", op("i32.or", get(hx), op("i32.xor", get(i), i32(0x3ff00000)))),
    i64(32n),
  );
  const low = op("i64.and", op("i64.reinterpret_f64", get(x)), i64(0xffffffffn));
  fb.emit(
    set(x, op("f64.reinterpret_i64", op("i64.or", high, low))),
    set(k, op("i32.add", get(k), op("i32.shr_s", get(i), i32(20)))),
    set(f, op("f64.sub", get(x), f64(1))),
    set(dk, op("f64.convert_i32_s", get(k))),
  );
  const kIsZero = op("i32.eqz", get(k));
  // |f| < 2^-20: a shorter series.
  fb.if(op("i32.lt_s", op("i32.and", op("i32.add", get(hx), i32(2)), i32(0xfffff)), i32(3)));
  fb.if(op("f64.eq", get(f), f64(0)));
  fb.if(kIsZero);
  fb.emit(ret(f64(0)));
  fb.end();
  fb.emit(ret(op("f64.add", op("f64.mul", get(dk), f64(LOG.ln2Hi)), op("f64.mul", get(dk), f64(LOG.ln2Lo)))));
  fb.end();
  fb.emit(
    set(r, op("f64.mul", op("f64.mul", get(f), get(f)), op("f64.sub", f64(0.5), op("f64.mul", f64(1 / 3), get(f))))),
  );
  fb.if(kIsZero);
  fb.emit(ret(op("f64.sub", get(f), get(r))));
  fb.end();
  fb.emit(
    ret(
      op(
        "f64.sub",
        op("f64.mul", get(dk), f64(LOG.ln2Hi)),
        op("f64.sub", op("f64.sub", get(r), op("f64.mul", get(dk), f64(LOG.ln2Lo))), get(f)),
      ),
    ),
  );
  fb.end();
  fb.emit(
    set(s, op("f64.div", get(f), op("f64.add", f64(2), get(f)))),
    set(z, op("f64.mul", get(s), get(s))),
    set(i, op("i32.sub", get(hx), i32(0x6147a))),
    set(w, op("f64.mul", get(z), get(z))),
    set(j, op("i32.sub", i32(0x6b851), get(hx))),
  );
  const mulAdd = (a: number, x2: readonly number[], rest: readonly number[]) =>
    op("f64.add", f64(a), op("f64.mul", x2, rest));
  const t1 = op("f64.mul", get(w), mulAdd(LOG.lg2, get(w), mulAdd(LOG.lg4, get(w), f64(LOG.lg6))));
  const t2 = op(
    "f64.mul",
    get(z),
    mulAdd(LOG.lg1, get(w), mulAdd(LOG.lg3, get(w), mulAdd(LOG.lg5, get(w), f64(LOG.lg7)))),
  );
  fb.emit(set(i, op("i32.or", get(i), get(j))), set(r, op("f64.add", t2, t1)));
  const dkHi = op("f64.mul", get(dk), f64(LOG.ln2Hi));
  const dkLo = op("f64.mul", get(dk), f64(LOG.ln2Lo));
  fb.if(op("i32.gt_s", get(i), i32(0)));
  fb.emit(set(hfsq, op("f64.mul", op("f64.mul", f64(0.5), get(f)), get(f))));
  const sTimes = op("f64.mul", get(s), op("f64.add", get(hfsq), get(r)));
  fb.if(kIsZero);
  fb.emit(ret(op("f64.sub", get(f), op("f64.sub", get(hfsq), sTimes))));
  fb.end();
  fb.emit(ret(op("f64.sub", dkHi, op("f64.sub", op("f64.sub", get(hfsq), op("f64.add", sTimes, dkLo)), get(f)))));
  fb.end();
  const sfr = op("f64.mul", get(s), op("f64.sub", get(f), get(r)));
  fb.if(kIsZero);
  fb.emit(ret(op("f64.sub", get(f), sfr)));
  fb.end();
  fb.emit(op("f64.sub", dkHi, op("f64.sub", op("f64.sub", sfr, dkLo), get(f))));
}
