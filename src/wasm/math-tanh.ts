// tanh in WebAssembly, bit for bit V8's `Math.tanh`, as ./math.ts does exp and log: V8 computes tanh with fdlibm's
// algorithm (s_tanh.c, through expm1 of s_expm1.c), IEEE arithmetic only, so the same steps here give the same bits
// (test/wasm/math.test.ts). Calling `Math.tanh` from wasm instead costs a trip into JavaScript per element, twice the
// time of the function itself.
//
// expm1: x = k ln2 + r (as exp), expm1(r) from a degree-5 rational approximation in r²/2 with a correction term c
// for the rounding of the reduction, then rescaled by 2^k in one of five ways that keep the result exact near 0.
// tanh: ±1 past |x| = 22, x itself below 2^-28, else 1 - 2 / (expm1(2|x|) + 2) or -t / (t + 2) with t = expm1(-2|x|).

import type { FunctionBuilder } from "./encoder.js";
import { call, f64, i32, i64, localGet as get, localSet as set, op } from "./instructions.js";
import { EXP, highWord, lowWord, ret, writeReduction } from "./math.js";

const EXPM1 = {
  q1: -3.33333333333331316428e-2,
  q2: 1.58730158725481460165e-3,
  q3: -7.93650757867487942473e-5,
  q4: 4.00821782732936239552e-6,
  q5: -2.01099218183624371326e-7,
} as const;

/** The f64 whose high word is `high` and low word 0 (fdlibm's INSERT_WORDS(d, high, 0)). */
const fromHighWord = (high: readonly number[]) =>
  op("f64.reinterpret_i64", op("i64.shl", op("i64.extend_i32_u", high), i64(32n)));

/** Writes expm1(x: f64) -> f64 into `fb`. */
export function writeExpm1(fb: FunctionBuilder): void {
  const x = 0;
  const [hx, xsb, k] = [fb.local("i32"), fb.local("i32"), fb.local("i32")];
  const f = () => fb.local("f64");
  const [hi, lo, c, t, e, hfx, hxs, r1, y, twopk] = [f(), f(), f(), f(), f(), f(), f(), f(), f(), f()];
  fb.emit(
    set(hx, highWord(get(x))),
    set(xsb, op("i32.shr_u", get(hx), i32(31))),
    set(hx, op("i32.and", get(hx), i32(0x7fffffff))),
    set(c, f64(0)),
  );
  // |x| >= 56 ln2: huge, infinite or NaN.
  fb.if(op("i32.ge_u", get(hx), i32(0x4043687a)));
  fb.if(op("i32.ge_u", get(hx), i32(0x40862e42)));
  fb.if(op("i32.ge_u", get(hx), i32(0x7ff00000)));
  fb.if(op("i32.or", op("i32.and", get(hx), i32(0xfffff)), lowWord(get(x))));
  fb.emit(ret(op("f64.add", get(x), get(x))));
  fb.end();
  fb.emit(ret(op("select", get(x), f64(-1), op("i32.eqz", get(xsb)))));
  fb.end();
  fb.if(op("f64.gt", get(x), f64(EXP.overflow)));
  fb.emit(ret(f64(Infinity)));
  fb.end();
  fb.end();
  fb.if(get(xsb));
  fb.emit(ret(f64(-1)));
  fb.end();
  fb.end();
  // Argument reduction.
  fb.if(op("i32.gt_u", get(hx), i32(0x3fd62e42)));
  writeReduction(fb, { x, hx, xsb, k, t, hi, lo });
  fb.emit(set(x, op("f64.sub", get(hi), get(lo))), set(c, op("f64.sub", op("f64.sub", get(hi), get(x)), get(lo))));
  fb.else();
  // |x| < 2^-54: x itself.
  fb.if(op("i32.lt_u", get(hx), i32(0x3c900000)));
  fb.emit(ret(get(x)));
  fb.end();
  fb.emit(set(k, i32(0)));
  fb.end();
  // x is now in the primary range.
  const mul = (a: readonly number[], b: readonly number[]) => op("f64.mul", a, b);
  const add = (a: readonly number[], b: readonly number[]) => op("f64.add", a, b);
  const sub = (a: readonly number[], b: readonly number[]) => op("f64.sub", a, b);
  const poly = add(
    f64(EXPM1.q1),
    mul(
      get(hxs),
      add(
        f64(EXPM1.q2),
        mul(get(hxs), add(f64(EXPM1.q3), mul(get(hxs), add(f64(EXPM1.q4), mul(get(hxs), f64(EXPM1.q5)))))),
      ),
    ),
  );
  fb.emit(
    set(hfx, mul(f64(0.5), get(x))),
    set(hxs, mul(get(x), get(hfx))),
    set(r1, add(f64(1), mul(get(hxs), poly))),
    set(t, sub(f64(3), mul(get(r1), get(hfx)))),
    set(e, mul(get(hxs), op("f64.div", sub(get(r1), get(t)), sub(f64(6), mul(get(x), get(t)))))),
  );
  fb.if(op("i32.eqz", get(k)));
  fb.emit(ret(sub(get(x), sub(mul(get(x), get(e)), get(hxs)))));
  fb.end();
  fb.emit(
    set(twopk, fromHighWord(op("i32.add", i32(0x3ff00000), op("i32.shl", get(k), i32(20))))),
    set(e, sub(mul(get(x), sub(get(e), get(c))), get(c))),
    set(e, sub(get(e), get(hxs))),
  );
  fb.if(op("i32.eq", get(k), i32(-1)));
  fb.emit(ret(sub(mul(f64(0.5), sub(get(x), get(e))), f64(0.5))));
  fb.end();
  fb.if(op("i32.eq", get(k), i32(1)));
  fb.if(op("f64.lt", get(x), f64(-0.25)));
  fb.emit(ret(mul(f64(-2), sub(get(e), add(get(x), f64(0.5))))));
  fb.end();
  fb.emit(ret(add(f64(1), mul(f64(2), sub(get(x), get(e))))));
  fb.end();
  // k <= -2 or k > 56: exp(x) - 1 suffices.
  fb.if(op("i32.or", op("i32.le_s", get(k), i32(-2)), op("i32.gt_s", get(k), i32(56))));
  fb.emit(set(y, sub(f64(1), sub(get(e), get(x)))));
  fb.if(op("i32.eq", get(k), i32(1024)));
  fb.emit(set(y, mul(mul(get(y), f64(2)), f64(EXP.two1023))));
  fb.else();
  fb.emit(set(y, mul(get(y), get(twopk))));
  fb.end();
  fb.emit(ret(sub(get(y), f64(1))));
  fb.end();
  fb.if(op("i32.lt_s", get(k), i32(20)));
  // t = 1 - 2^-k
  fb.emit(
    set(t, fromHighWord(op("i32.sub", i32(0x3ff00000), op("i32.shr_s", i32(0x200000), get(k))))),
    set(y, mul(sub(get(t), sub(get(e), get(x))), get(twopk))),
  );
  fb.else();
  // t = 2^-k
  fb.emit(
    set(t, fromHighWord(op("i32.shl", op("i32.sub", i32(0x3ff), get(k)), i32(20)))),
    set(y, mul(add(sub(get(x), add(get(e), get(t))), f64(1)), get(twopk))),
  );
  fb.end();
  fb.emit(get(y));
}

/** Writes tanh(x: f64) -> f64 into `fb`, with expm1 the index of the function ./writeExpm1 wrote. */
export function writeTanh(fb: FunctionBuilder, expm1: number): void {
  const x = 0;
  const [jx, ix] = [fb.local("i32"), fb.local("i32")];
  const [t, z] = [fb.local("f64"), fb.local("f64")];
  fb.emit(set(jx, highWord(get(x))), set(ix, op("i32.and", get(jx), i32(0x7fffffff))));
  const positive = op("i32.ge_s", get(jx), i32(0));
  // Infinities and NaN: 1/x ± 1.
  fb.if(op("i32.ge_u", get(ix), i32(0x7ff00000)));
  const inv = op("f64.div", f64(1), get(x));
  fb.emit(ret(op("select", op("f64.add", inv, f64(1)), op("f64.sub", inv, f64(1)), positive)));
  fb.end();
  fb.if(op("i32.lt_u", get(ix), i32(0x40360000)));
  fb.if(op("i32.lt_u", get(ix), i32(0x3e300000)));
  fb.emit(ret(get(x)));
  fb.end();
  fb.if(op("i32.ge_u", get(ix), i32(0x3ff00000)));
  fb.emit(
    set(t, call(expm1, op("f64.mul", f64(2), op("f64.abs", get(x))))),
    set(z, op("f64.sub", f64(1), op("f64.div", f64(2), op("f64.add", get(t), f64(2))))),
  );
  fb.else();
  fb.emit(
    set(t, call(expm1, op("f64.mul", f64(-2), op("f64.abs", get(x))))),
    set(z, op("f64.div", op("f64.neg", get(t)), op("f64.add", get(t), f64(2)))),
  );
  fb.end();
  fb.else();
  fb.emit(set(z, f64(1)));
  fb.end();
  fb.emit(op("select", get(z), op("f64.neg", get(z)), positive));
}
