// Hand-written JavaScript for bench/recursion.bench.mjs: what a programmer would write for sum of sin v[i] * v[i] and
// its gradient cos v[i] * v[i] + sin v[i]. The linear recursion as a loop (a JavaScript recursion 10^5 deep
// overflows the stack), the divide and conquer as a recursion (depth log n).

export function linear(v) {
  let s = 0;
  for (let i = v.length - 1; i >= 0; i--) s = Math.sin(v[i]) * v[i] + s;
  return s;
}

export function treeSum(v) {
  const go = (lo, hi) => {
    if (hi - lo === 1) return Math.sin(v[lo]) * v[lo];
    const mid = (lo + hi) >> 1;
    return go(lo, mid) + go(mid, hi);
  };
  return go(0, v.length);
}

export function gradient(v) {
  const g = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) g[i] = Math.cos(v[i]) * v[i] + Math.sin(v[i]);
  return g;
}
