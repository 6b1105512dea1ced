import { CONTRACT_KINDS, CONTRACT_LABEL, type ContractBreach, type ContractKind } from './contract-breach';
import type { NightBreaches, NightSummary } from './night-summary';

// Breaches per night in Trends (issue 43): how many items of the Broken contract list a loop's
// night had, by kind. One rule for the rows main keeps (main/core/nights/trend-nights.ts) and the
// nights the Trends view draws (shared/trends.ts), re-exported by shared/trends.ts.

/** A night's key (`loop` NUL `date`), as the trends memo and breachCounts key them. */
export const nightKey = (loop: string, date: string): string => `${loop}\u0000${date}`;

/** A followed night with no item in the list. */
export const NO_BREACHES: NightBreaches = Object.freeze({ total: 0, kinds: Object.freeze({}) });

/** The list's items counted by loop and night (nightKey), in all and by kind; an item without a date is no night's. */
export function breachCounts(list: readonly ContractBreach[]): Map<string, NightBreaches> {
  const out = new Map<string, { total: number; kinds: Record<string, number> }>();
  for (const b of list) {
    if (b.date === null) continue;
    const key = nightKey(b.loop, b.date);
    let c = out.get(key);
    if (!c) out.set(key, (c = { total: 0, kinds: {} }));
    c.total += 1;
    c.kinds[b.kind] = (c.kinds[b.kind] ?? 0) + 1;
  }
  return out;
}

/**
 * A night's breaches: a followed night (its cycle is in the loop's state) has the list's items of
 * its loop and date (none: 0), once the list is known (`counts`, from breachCounts); any other
 * night has what its kept row was last written with; null when neither knows (shown "—", never 0).
 */
export function nightBreaches(counts: ReadonlyMap<string, NightBreaches> | null, loop: string, date: string, followed: boolean, kept: Pick<NightSummary, 'breaches'> | null | undefined): NightBreaches | null {
  if (followed && counts) return counts.get(nightKey(loop, date)) ?? NO_BREACHES;
  return kept?.breaches ?? null;
}

/** Whether two nights' breaches say the same (both unknown, or the same counts). */
export function sameBreaches(a: NightBreaches | null | undefined, b: NightBreaches | null | undefined): boolean {
  if (a === b || (!a && !b)) return true;
  if (!a || !b || a.total !== b.total) return false;
  const ka = Object.keys(a.kinds);
  return ka.length === Object.keys(b.kinds).length && ka.every((k) => a.kinds[k] === b.kinds[k]);
}

/** Add a night's breaches to a sum (in place). */
export function addBreaches(into: { total: number; kinds: Record<string, number> }, b: NightBreaches): void {
  into.total += b.total;
  for (const [k, v] of Object.entries(b.kinds)) into.kinds[k] = (into.kinds[k] ?? 0) + v;
}

const rank = (k: string): number => {
  const i = CONTRACT_KINDS.indexOf(k as ContractKind);
  return i < 0 ? CONTRACT_KINDS.length : i;
};

/** A night's kinds for a person, in the list's order (CONTRACT_KINDS), each with its label: `2 × stage unfinished`. */
export function breachKindsText(b: NightBreaches | null): string[] {
  if (!b) return [];
  return Object.entries(b.kinds)
    .sort(([x], [y]) => rank(x) - rank(y) || x.localeCompare(y))
    .map(([k, n]) => `${n} × ${CONTRACT_LABEL[k as ContractKind] ?? k}`);
}

/** A night's count for a cell: the total, or "—" when it is not known (never 0 for that). */
export const breachTotalText = (b: NightBreaches | null): string => (b === null ? '—' : String(b.total));
