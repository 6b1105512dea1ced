/** A value-to-pixel mapping (a chart axis' scale); undefined where it cannot place the value. */
export type Scale = (value: number) => number | undefined;

/**
 * Path coordinates are whole tenths of a pixel, drawn under `scale(1 / PATH_UNITS_PER_PX)`: an
 * integer becomes text several times faster than a fraction, and a 7-day view of 20 hosts is
 * 100,000 points (35 ms of the click as "45.3"-style numbers, 8 ms as "453").
 */
export const PATH_UNITS_PER_PX = 10;

/**
 * The SVG path of a line through the points (`times[i]`, `values[i]`), in PATH_UNITS_PER_PX units:
 * a null value (the host was down or did not report) lifts the pen, so gaps stay gaps. One string
 * per line instead of a React element per point, from the answer's own arrays (no point objects:
 * 100,000 of them a click were most of the garbage of a range switch).
 */
export function linePath(times: readonly number[], values: readonly (number | null)[], x: Scale, y: Scale): string {
  let d = '';
  let pen = false;
  const n = Math.min(times.length, values.length);
  for (let i = 0; i < n; i++) {
    const v = values[i] ?? null;
    const sx = v === null ? undefined : x(times[i] as number);
    const sy = v === null ? undefined : y(v);
    if (sx === undefined || sy === undefined || !Number.isFinite(sx) || !Number.isFinite(sy)) {
      pen = false;
      continue;
    }
    d += (pen ? 'L' : 'M') + Math.round(sx * PATH_UNITS_PER_PX) + ',' + Math.round(sy * PATH_UNITS_PER_PX);
    pen = true;
  }
  return d;
}

/** The largest value of any line, 0 when there is none. */
export function maxValue(lines: readonly { readonly values: readonly (number | null)[] }[]): number {
  let max = 0;
  for (const l of lines) for (const v of l.values) if (v !== null && v > max) max = v;
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
