import type { BacklogItem, Finding } from './domain';

// The nights a finding opens and closes on, as Trends counts them (shared/trends.ts re-exports them).

const DATE_RE = /(\d{4}-\d{2}-\d{2})/;

/** The night a finding was opened: its audit section's date, else the day Loopdeck first read it. */
export function openedNight(f: Finding): string {
  return DATE_RE.exec(f.section)?.[1] ?? f.firstSeenAt.slice(0, 10);
}

/** A finding's DONE date: the newest dated DONE outcome of its backlog items; null when not done or undated. */
export function closedNight(f: Finding, backlog: ReadonlyMap<string, BacklogItem>): string | null {
  if (f.status !== 'done') return null;
  let best: string | null = null;
  for (const id of f.backlog) {
    for (const o of backlog.get(`${f.loop}\u0000${id}`)?.outcomes ?? []) {
      const d = o.date ? DATE_RE.exec(o.date)?.[1] : undefined;
      if (d && /^done\b/i.test(o.outcome.trim()) && (best === null || d > best)) best = d;
    }
  }
  return best;
}
