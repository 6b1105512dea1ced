/**
 * Largest-Triangle-Three-Buckets (Steinarsson 2013): the indices of at most `threshold` points
 * that keep a line's visual shape. The first and last points are always kept; a null value
 * counts as 0 for the triangle areas (its index may still be picked, and its null shown).
 */
export function lttbIndices(xs: readonly number[], ys: readonly (number | null)[], threshold: number): number[] {
  const n = xs.length;
  if (threshold >= n || n <= 2) return xs.map((_, i) => i);
  if (threshold < 3) return threshold <= 1 ? [0] : [0, n - 1];
  const y = (i: number): number => ys[i] ?? 0;
  const x = (i: number): number => xs[i] ?? 0;
  const out = [0];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let b = 0; b < threshold - 2; b++) {
    // The average of the next bucket is the third corner of the triangle.
    const nextStart = Math.floor((b + 1) * every) + 1;
    const nextEnd = Math.min(Math.floor((b + 2) * every) + 1, n);
    let avgX = 0;
    let avgY = 0;
    for (let i = nextStart; i < nextEnd; i++) {
      avgX += x(i);
      avgY += y(i);
    }
    const len = Math.max(nextEnd - nextStart, 1);
    avgX /= len;
    avgY /= len;
    const start = Math.floor(b * every) + 1;
    const end = Math.floor((b + 1) * every) + 1;
    let best = start;
    let bestArea = -1;
    for (let i = start; i < end; i++) {
      const area = Math.abs((x(a) - avgX) * (y(i) - y(a)) - (x(a) - x(i)) * (avgY - y(a)));
      if (area > bestArea) {
        bestArea = area;
        best = i;
      }
    }
    out.push(best);
    a = best;
  }
  out.push(n - 1);
  return out;
}

/** Downsample (x, y) pairs with LTTB to at most `threshold` points. */
export function lttb(xs: readonly number[], ys: readonly (number | null)[], threshold: number): { x: number[]; y: (number | null)[] } {
  const idx = lttbIndices(xs, ys, threshold);
  return { x: idx.map((i) => xs[i] ?? 0), y: idx.map((i) => ys[i] ?? null) };
}
