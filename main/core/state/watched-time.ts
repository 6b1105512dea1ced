import { mergeSpans, uncovered, type Span } from './spans';
import type { Store } from '../store/store';

// When Loopdeck was running and watching, as stretches of time kept in the store: what failure
// attribution needs to tell a night it watched from one it slept through (a laptop closed
// overnight is the desktop app's normal case). Every poll says "still here" in memory; the store
// is written when a stretch opens and at most once a PERSIST_MS, so a crash or a sleep loses at
// most that much of what was watched, never claims more.

const META_KEY = 'engine.watched';
/** Stretches kept (the newest): at one a day, more than a year. */
export const WATCHED_KEPT = 400;
/** A poll later than this after the last is a new stretch: Loopdeck was not running (or asleep) in between. */
export const WATCH_GAP_MS = 3 * 60_000;
/** How often an open stretch's end is written (ms). */
export const PERSIST_MS = 60_000;

/** The stretches of time Loopdeck was running, kept across restarts. */
export class WatchedTime {
  private spans: Span[];
  private persistedUntil: number;

  constructor(private readonly store: Store) {
    this.spans = read(store.getMeta(META_KEY));
    this.persistedUntil = this.spans.at(-1)?.until ?? Number.NEGATIVE_INFINITY;
  }

  /** Loopdeck is running at `now` (each poll): the open stretch grows, or a new one opens after a gap. */
  tick(now: number): void {
    const last = this.spans.at(-1);
    if (last && now >= last.since && now - last.until <= WATCH_GAP_MS) {
      if (now <= last.until) return;
      this.spans[this.spans.length - 1] = { since: last.since, until: now };
      if (now - this.persistedUntil < PERSIST_MS) return;
    } else {
      this.spans.push({ since: now, until: now });
      if (this.spans.length > WATCHED_KEPT) this.spans = this.spans.slice(-WATCHED_KEPT);
    }
    this.persist(now);
  }

  /** Record a stretch Loopdeck watched (tests, and an import of another install's record). */
  add(span: Span): void {
    this.spans = mergeSpans([...this.spans, span]).slice(-WATCHED_KEPT);
    this.persist(this.spans.at(-1)?.until ?? span.until);
  }

  /** The parts of `from`–`to` Loopdeck was not running. */
  unwatched(from: number, to: number): Span[] {
    return uncovered(this.spans, from, to);
  }

  private persist(until: number): void {
    this.persistedUntil = until;
    // A full data folder is the store's to say; what was watched stays in memory meanwhile.
    try {
      this.store.setMeta(META_KEY, JSON.stringify(this.spans.map((s) => [s.since, s.until])));
    } catch {
      this.persistedUntil = Number.NEGATIVE_INFINITY;
    }
  }
}

/** The stored stretches; anything else (an older or damaged value) is none: nothing claimed. */
function read(raw: string | null): Span[] {
  try {
    const v = JSON.parse(raw ?? '[]') as unknown;
    if (!Array.isArray(v)) return [];
    const spans = v.filter((p): p is [number, number] => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1])).map(([since, until]) => ({ since, until }));
    return mergeSpans(spans).slice(-WATCHED_KEPT);
  } catch {
    return [];
  }
}
