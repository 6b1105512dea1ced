import type { Finding } from '../../../shared/domain';
import { findingKey, type KeyedDelta } from '../../../shared/deltas';
import { openedNight, type TrendSeverity } from '../../../shared/trends';

/** New findings of one night by severity bucket (as Trends counts them). */
export type OpenedCounts = Record<TrendSeverity, number>;

/**
 * A loop's new findings counted by the night they opened (shared/trends.ts openedNight), kept up
 * to date from the ledgers' deltas: a section of 50 findings moves one night's counts, with no walk
 * over the rest, so a kept night's row can say how many findings it opened.
 */
export class OpenedIndex {
  private readonly byKey = new Map<string, { readonly night: string; readonly sev: TrendSeverity }>();
  private readonly byNight = new Map<string, OpenedCounts>();

  /** Apply one ledgers delta's findings; the nights whose counts moved. */
  apply(delta: KeyedDelta<Finding>): Set<string> {
    const moved = new Set<string>();
    const drop = (key: string): void => {
      const was = this.byKey.get(key);
      if (!was) return;
      this.byKey.delete(key);
      const c = this.byNight.get(was.night);
      if (c) c[was.sev] -= 1;
      moved.add(was.night);
    };
    for (const key of delta.removed) drop(key);
    for (const f of delta.upserted) {
      const key = findingKey(f);
      const night = openedNight(f);
      const sev: TrendSeverity = f.severity ?? 'none';
      const was = this.byKey.get(key);
      if (was?.night === night && was.sev === sev) continue;
      drop(key);
      this.byKey.set(key, { night, sev });
      let c = this.byNight.get(night);
      if (!c) this.byNight.set(night, (c = { P0: 0, P1: 0, P2: 0, P3: 0, none: 0 }));
      c[sev] += 1;
      moved.add(night);
    }
    return moved;
  }

  /** A night's counts (all zero when it opened none). */
  counts(night: string): OpenedCounts {
    return { ...(this.byNight.get(night) ?? { P0: 0, P1: 0, P2: 0, P3: 0, none: 0 }) };
  }
}
