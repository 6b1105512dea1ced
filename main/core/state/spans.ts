// Stretches of time (ms since the epoch) and what is left of a window outside them: how failure
// attribution tells the part of a phase's window Loopdeck watched from the part it did not.

/** A stretch of time, `since` to `until` (ms since the epoch, `until` excluded). */
export interface Span {
  readonly since: number;
  readonly until: number;
}

/** The spans sorted and joined where they touch or overlap; empty ones dropped. */
export function mergeSpans(spans: Iterable<Span>): Span[] {
  const sorted = [...spans].filter((s) => s.until > s.since).sort((a, b) => a.since - b.since);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.since <= last.until) out[out.length - 1] = { since: last.since, until: Math.max(last.until, s.until) };
    else out.push(s);
  }
  return out;
}

/** The parts of `from`–`to` that no span covers, in time order. */
export function uncovered(covered: Iterable<Span>, from: number, to: number): Span[] {
  const out: Span[] = [];
  let at = from;
  for (const s of mergeSpans(covered)) {
    if (s.until <= at) continue;
    if (s.since >= to) break;
    if (s.since > at) out.push({ since: at, until: Math.min(s.since, to) });
    at = Math.max(at, s.until);
    if (at >= to) break;
  }
  if (at < to) out.push({ since: at, until: to });
  return out;
}

/** The total length (ms) of the spans, joined first. */
export function spanTotal(spans: Iterable<Span>): number {
  return mergeSpans(spans).reduce((n, s) => n + s.until - s.since, 0);
}
