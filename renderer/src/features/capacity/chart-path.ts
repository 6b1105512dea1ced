/** A value-to-pixel mapping (a chart axis' scale); undefined where it cannot place the value. */
export type Scale = (value: number) => number | undefined;

/**
 * Path coordinates are whole tenths of a pixel, drawn under `scale(1 / PATH_UNITS_PER_PX)`: an
 * integer becomes text several times faster than a fraction, and a 7-day view of 20 hosts is
 * 100,000 points (35 ms of the click as "45.3"-style numbers, 8 ms as "453").
 */
export const PATH_UNITS_PER_PX = 10;

/** Bytes of path text, reused by every call (grown when a line needs more). */
let scratch = new Uint8Array(64 * 1024);
const LATIN1 = new TextDecoder('latin1');
/** The path text's bytes: its two commands, and what a coordinate pair is written with. */
const MOVE_TO = 'M'.charCodeAt(0);
const LINE_TO = 'L'.charCodeAt(0);
const COMMA = ','.charCodeAt(0);
const MINUS = '-'.charCodeAt(0);
const ZERO = '0'.charCodeAt(0);
/** Coordinates past this many units are far off the plot (and clipped): kept there, not exact. */
const FAR = 1e9;

/** How many decimal digits `v` has (0 ≤ v ≤ FAR). */
function digitsOf(v: number): number {
  if (v < 10_000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
  if (v < 100_000_000) return v < 100_000 ? 5 : v < 1_000_000 ? 6 : v < 10_000_000 ? 7 : 8;
  return v < 1_000_000_000 ? 9 : 10;
}

/** Write integer `n` (|n| ≤ FAR, so 32-bit arithmetic is exact) as decimal digits at `at`; where it ends. */
function writeInt(buf: Uint8Array, at: number, n: number): number {
  let pos = at;
  let v = n | 0;
  if (v < 0) {
    buf[pos++] = MINUS;
    v = -v;
  }
  const end = pos + digitsOf(v);
  for (let i = end - 1; i >= pos; i -= 1) {
    const q = (v / 10) | 0;
    buf[i] = ZERO + v - q * 10;
    v = q;
  }
  return end;
}

const unit = (px: number): number => Math.max(-FAR, Math.min(FAR, Math.round(px * PATH_UNITS_PER_PX)));

/**
 * The SVG path of a line through the points (`times[i]`, `values[i]`), in PATH_UNITS_PER_PX units:
 * a null value (the host was down or did not report) lifts the pen, so gaps stay gaps. One string
 * per line instead of a React element per point, from the answer's own arrays (no point objects),
 * written as bytes and decoded once: concatenating 100,000 points a click (all 20 hosts, five
 * charts) made ~17 MB of short-lived strings, most of a range switch's garbage.
 */
export function linePath(times: readonly number[], values: readonly (number | null)[], x: Scale, y: Scale): string {
  const n = Math.min(times.length, values.length);
  // A point is at most 'L', two signed ten-digit numbers and a comma.
  if (scratch.length < n * 24) scratch = new Uint8Array(n * 24);
  const buf = scratch;
  let pos = 0;
  let pen = false;
  for (let i = 0; i < n; i++) {
    const v = values[i] ?? null;
    const sx = v === null ? undefined : x(times[i] as number);
    const sy = v === null ? undefined : y(v);
    if (sx === undefined || sy === undefined || !Number.isFinite(sx) || !Number.isFinite(sy)) {
      pen = false;
      continue;
    }
    buf[pos++] = pen ? LINE_TO : MOVE_TO;
    pos = writeInt(buf, pos, unit(sx));
    buf[pos++] = COMMA;
    pos = writeInt(buf, pos, unit(sy));
    pen = true;
  }
  return LATIN1.decode(buf.subarray(0, pos));
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
