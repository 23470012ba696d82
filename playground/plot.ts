// The plot of f and f' for a function of Doubles: two polylines on a canvas, axes at zero, a legend.

import type { Curve } from "./compute.js";

const COLORS = { f: "#1f5fbf", df: "#c2410c" } as const;

export function drawCurve(canvas: HTMLCanvasElement, c: Curve): void {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  const { width, height } = canvas;
  const pad = 28;
  ctx.clearRect(0, 0, width, height);
  const ys = [...c.f, ...c.df].filter(Number.isFinite);
  let lo = Math.min(0, ...ys);
  let hi = Math.max(0, ...ys);
  if (hi - lo < 1e-12) [lo, hi] = [lo - 1, hi + 1];
  const x0 = c.xs[0]!;
  const x1 = c.xs[c.xs.length - 1]!;
  const px = (x: number) => pad + ((x - x0) / (x1 - x0)) * (width - 2 * pad);
  const py = (y: number) => height - pad - ((y - lo) / (hi - lo)) * (height - 2 * pad);
  ctx.strokeStyle = "#999";
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(pad, py(0));
  ctx.lineTo(width - pad, py(0));
  if (x0 <= 0 && x1 >= 0) {
    ctx.moveTo(px(0), pad);
    ctx.lineTo(px(0), height - pad);
  }
  ctx.stroke();
  ctx.fillStyle = "#555";
  ctx.font = "11px sans-serif";
  ctx.fillText(`x from ${x0.toPrecision(3)} to ${x1.toPrecision(3)}`, pad, height - 8);
  ctx.fillText(`y from ${lo.toPrecision(3)} to ${hi.toPrecision(3)}`, pad, 14);
  const line = (vs: readonly number[], color: string, label: string, row: number) => {
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    let pen = false;
    vs.forEach((y, i) => {
      if (!Number.isFinite(y)) return void (pen = false);
      const [x, yy] = [px(c.xs[i]!), py(y)];
      if (pen) ctx.lineTo(x, yy);
      else ctx.moveTo(x, yy);
      pen = true;
    });
    ctx.stroke();
    ctx.fillStyle = color;
    ctx.fillText(label, width - pad - 40, pad + 14 * row);
  };
  line(c.f, COLORS.f, "f", 0);
  line(c.df, COLORS.df, "f′", 1);
}
