import { SEVERITIES, type Finding } from '../../../shared/domain';
import type { LiveState } from '../state/live-state';
import type { SignalSink } from '../state/event-bus';

/** What the exporter reads, and where it reports a port it cannot bind (the core's signals). */
export interface MetricsSource {
  liveState(): LiveState;
  readonly signals: SignalSink;
}

/** The severities a loop always reports (0 when none is open); findings without one count as `none`. */
export { SEVERITIES };

const openCounts = new WeakMap<readonly Finding[], ReadonlyMap<string, number>>();

/**
 * Open findings by severity (`none` for a finding without one). Cached per findings array: the
 * engine replaces a loop's array when its ledgers change, so a scrape between changes is a lookup.
 */
export function openFindingsBySeverity(findings: readonly Finding[]): ReadonlyMap<string, number> {
  const cached = openCounts.get(findings);
  if (cached) return cached;
  const counts = new Map<string, number>(SEVERITIES.map((s) => [s, 0]));
  for (const f of findings) {
    if (f.status !== 'open') continue;
    const key = f.severity ?? 'none';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  openCounts.set(findings, counts);
  return counts;
}
