// The transcript view's scrollbar means position in the file at any size: a file of 10 million
// lines would need a 180-million-pixel spacer, past what a browser lays out (~33 million), so the
// spacer is capped and scrolling maps linearly between its range and the file's lines.

/** A row's height in CSS pixels (the view's monospace line). */
export const ROW_PX = 18;

/** The tallest spacer the view lays out: below Chromium's and Firefox's limits with room to spare. */
export const MAX_SPACER_PX = 8_000_000;

/** How many rows fit in a viewport of this height (at least one). */
export function rowsIn(viewportPx: number): number {
  return Math.max(1, Math.floor(viewportPx / ROW_PX));
}

/** The spacer's height for a file of `lines` lines. */
export function spacerPx(lines: number, viewportPx: number): number {
  return Math.max(viewportPx, Math.min(MAX_SPACER_PX, lines * ROW_PX));
}

/** The highest first line (1-based) a viewport of `visible` rows can show. */
export function lastTop(lines: number, visible: number): number {
  return Math.max(1, lines - visible + 1);
}

/** The first line shown (1-based) at a scroll position. */
export function topLineAt(scrollTop: number, lines: number, viewportPx: number): number {
  const range = spacerPx(lines, viewportPx) - viewportPx;
  const last = lastTop(lines, rowsIn(viewportPx));
  if (range <= 0 || last <= 1) return 1;
  const f = Math.max(0, Math.min(1, scrollTop / range));
  return 1 + Math.round(f * (last - 1));
}

/** The scroll position that shows `top` (1-based) as the first line. */
export function scrollTopFor(top: number, lines: number, viewportPx: number): number {
  const range = spacerPx(lines, viewportPx) - viewportPx;
  const last = lastTop(lines, rowsIn(viewportPx));
  if (range <= 0 || last <= 1) return 0;
  const t = Math.max(1, Math.min(last, top));
  return ((t - 1) / (last - 1)) * range;
}

/** Where a line sits on the scrollbar, 0..1 (for the markers). */
export function markFraction(line: number, lines: number): number {
  return lines <= 1 ? 0 : Math.max(0, Math.min(1, (line - 1) / (lines - 1)));
}
