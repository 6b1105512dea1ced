import type { ChartPoint } from './capacity';

/** A value-to-pixel mapping (a chart axis' scale); undefined where it cannot place the value. */
export type Scale = (value: number) => number | undefined;

const px = (n: number): number => Math.round(n * 10) / 10;

/**
 * The SVG path of a line through `points`: a null value (the host was down or did not report)
 * lifts the pen, so gaps stay gaps. One string per line instead of a React element per point.
 */
export function linePath(points: readonly ChartPoint[], x: Scale, y: Scale): string {
  const parts: string[] = [];
  let pen = false;
  for (const p of points) {
    const sx = p.v === null ? undefined : x(p.t);
    const sy = p.v === null ? undefined : y(p.v);
    if (sx === undefined || sy === undefined || !Number.isFinite(sx) || !Number.isFinite(sy)) {
      pen = false;
      continue;
    }
    parts.push(`${pen ? 'L' : 'M'}${px(sx)},${px(sy)}`);
    pen = true;
  }
  return parts.join('');
}

/** The largest value of any line, 0 when there is none. */
export function maxValue(lines: readonly { readonly points: readonly ChartPoint[] }[]): number {
  let max = 0;
  for (const l of lines) for (const p of l.points) if (p.v !== null && p.v > max) max = p.v;
  return max;
}

/**
 * A y axis from 0 to a round top at or above `max`, with at most `count` ticks at a 1-2-5 step
 * (whole numbers once the top reaches `count`, so "slots" never read 2.5).
 */
export function yAxis(max: number, count = 5): { top: number; ticks: number[] } {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, ticks: [0, 1] };
  const raw = max / (count - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = ([1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag);
  if (max >= count - 1) step = Math.max(1, Math.round(step));
  const n = Math.ceil(max / step - 1e-9);
  const ticks = Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { top: ticks[ticks.length - 1] ?? 1, ticks };
}
