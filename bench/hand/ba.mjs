// Hand-written JavaScript for the BA projection (the ADBench model) and its Jacobian, the reference the compiled
// Smooth code is measured against. The Jacobian is forward mode written by hand: every intermediate quantity of one
// point's projection carries its 14 partial derivatives (11 camera parameters, 3 point coordinates) in a lane array.

const L = 14;

/** project: cam (11), X (N*3 row-major) -> out (N*2 row-major). */
export function projectHand(cam, X, n) {
  const out = new Float64Array(2 * n);
  for (let p = 0; p < n; p++) {
    const y0 = X[3 * p] - cam[3],
      y1 = X[3 * p + 1] - cam[4],
      y2 = X[3 * p + 2] - cam[5];
    const r0 = cam[0],
      r1 = cam[1],
      r2 = cam[2];
    const t2 = r0 * r0 + r1 * r1 + r2 * r2;
    let q0, q1, q2;
    if (t2 === 0) {
      q0 = y0 + (r1 * y2 - r2 * y1);
      q1 = y1 + (r2 * y0 - r0 * y2);
      q2 = y2 + (r0 * y1 - r1 * y0);
    } else {
      const th = Math.sqrt(t2),
        c = Math.cos(th),
        s = Math.sin(th);
      const v0 = r0 / th,
        v1 = r1 / th,
        v2 = r2 / th;
      const vy = v0 * y0 + v1 * y1 + v2 * y2;
      q0 = y0 * c + (v1 * y2 - v2 * y1) * s + v0 * vy * (1 - c);
      q1 = y1 * c + (v2 * y0 - v0 * y2) * s + v1 * vy * (1 - c);
      q2 = y2 * c + (v0 * y1 - v1 * y0) * s + v2 * vy * (1 - c);
    }
    const u0 = q0 / q2,
      u1 = q1 / q2;
    const n2 = u0 * u0 + u1 * u1;
    const d = 1 + cam[9] * n2 + cam[10] * n2 * n2;
    out[2 * p] = u0 * d * cam[6] + cam[7];
    out[2 * p + 1] = u1 * d * cam[6] + cam[8];
  }
  return out;
}

// Lane arithmetic: a dual number is [value, 14 partials] in a Float64Array of 15.
const D = () => new Float64Array(L + 1);
function cst(x) {
  const r = D();
  r[0] = x;
  return r;
}
function vari(x, k) {
  const r = D();
  r[0] = x;
  r[1 + k] = 1;
  return r;
}
function add(a, b) {
  const r = D();
  for (let i = 0; i <= L; i++) r[i] = a[i] + b[i];
  return r;
}
function sub(a, b) {
  const r = D();
  for (let i = 0; i <= L; i++) r[i] = a[i] - b[i];
  return r;
}
function mul(a, b) {
  const r = D();
  r[0] = a[0] * b[0];
  for (let i = 1; i <= L; i++) r[i] = a[i] * b[0] + a[0] * b[i];
  return r;
}
function div(a, b) {
  const r = D();
  const q = a[0] / b[0];
  r[0] = q;
  for (let i = 1; i <= L; i++) r[i] = (a[i] - q * b[i]) / b[0];
  return r;
}
function unary(a, f, df) {
  const r = D();
  r[0] = f;
  for (let i = 1; i <= L; i++) r[i] = a[i] * df;
  return r;
}

/**
 * The Jacobian of project, dense, row-major: 2N rows by 11 + 3N columns (camera columns first, then the points'
 * coordinates in row-major order), as `smooth jacobian` lays it out.
 */
export function projectJacobianHand(cam, X, n) {
  const cols = 11 + 3 * n;
  const J = new Float64Array(2 * n * cols);
  for (let p = 0; p < n; p++) {
    const c = [];
    for (let k = 0; k < 11; k++) c.push(vari(cam[k], k));
    const x = [vari(X[3 * p], 11), vari(X[3 * p + 1], 12), vari(X[3 * p + 2], 13)];
    const y = [sub(x[0], c[3]), sub(x[1], c[4]), sub(x[2], c[5])];
    const r = [c[0], c[1], c[2]];
    const t2 = add(add(mul(r[0], r[0]), mul(r[1], r[1])), mul(r[2], r[2]));
    let q;
    if (t2[0] === 0) {
      q = [
        add(y[0], sub(mul(r[1], y[2]), mul(r[2], y[1]))),
        add(y[1], sub(mul(r[2], y[0]), mul(r[0], y[2]))),
        add(y[2], sub(mul(r[0], y[1]), mul(r[1], y[0]))),
      ];
    } else {
      const th = unary(t2, Math.sqrt(t2[0]), 0.5 / Math.sqrt(t2[0]));
      const co = unary(th, Math.cos(th[0]), -Math.sin(th[0]));
      const si = unary(th, Math.sin(th[0]), Math.cos(th[0]));
      const v = [div(r[0], th), div(r[1], th), div(r[2], th)];
      const vy = add(add(mul(v[0], y[0]), mul(v[1], y[1])), mul(v[2], y[2]));
      const omc = sub(cst(1), co);
      const cross = [
        sub(mul(v[1], y[2]), mul(v[2], y[1])),
        sub(mul(v[2], y[0]), mul(v[0], y[2])),
        sub(mul(v[0], y[1]), mul(v[1], y[0])),
      ];
      q = [0, 1, 2].map((i) => add(add(mul(y[i], co), mul(cross[i], si)), mul(mul(v[i], vy), omc)));
    }
    const u0 = div(q[0], q[2]),
      u1 = div(q[1], q[2]);
    const n2 = add(mul(u0, u0), mul(u1, u1));
    const dd = add(add(cst(1), mul(c[9], n2)), mul(mul(c[10], n2), n2));
    const o = [add(mul(mul(u0, dd), c[6]), c[7]), add(mul(mul(u1, dd), c[6]), c[8])];
    for (let k = 0; k < 2; k++) {
      const row = (2 * p + k) * cols;
      for (let j = 0; j < 11; j++) J[row + j] = o[k][1 + j];
      for (let j = 0; j < 3; j++) J[row + 11 + 3 * p + j] = o[k][12 + j];
    }
  }
  return J;
}
