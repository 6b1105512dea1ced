import type { BacklogItem, Cycle, LogOutcome, Phase } from './domain';
import { finalOutcome } from './waiting';

// The remediate contract, checked (reliability-loop-skill.txt, "Mode: remediate"): every backlog
// item ends DONE, BLOCKED (with a root cause) or operator-only (with an exact action); DEFERRED is
// not an allowed outcome, and verified findings left without an implementation are a failed
// remediate. A remediate phase that ended `ok` or `no-op` with such items left is hollow.

/** The phase the check applies to. */
export const REMEDIATE_PHASE = 'remediate';

/** The first YYYY-MM-DD in a text (an audit section's heading), or null. */
function dateIn(text: string): string | null {
  return /\b(\d{4}-\d{2}-\d{2})\b/.exec(text)?.[1] ?? null;
}

/**
 * The backlog items a remediate of cycle `date` (ended at `endedAt`) left without a final outcome:
 * items from an audit section dated on or before the cycle (items from a section without a date
 * are not placed, so not counted), whose latest log row dated on or before the phase's end day
 * (UTC; an undated row counts) is missing or is not DONE, BLOCKED or operator-only (DEFERRED or
 * anything else). Their ids in backlog order.
 */
export function unresolvedItems(date: string, endedAt: string | null, backlog: readonly BacklogItem[]): string[] {
  const endDay = endedAt ? endedAt.slice(0, 10) : date;
  const counts = (o: LogOutcome): boolean => o.date === null || o.date.slice(0, 10) <= endDay;
  const out: string[] = [];
  for (const item of backlog) {
    const from = dateIn(item.section);
    if (from === null || from > date) continue;
    const latest = item.outcomes.filter(counts).at(-1);
    if (!latest || finalOutcome(latest.outcome) === null) out.push(item.id);
  }
  return out;
}

/** The phase's `hollow` mark: set on a remediate that ended ok or no-op with unresolved items, else null. */
export function hollowOf(date: string, phase: Phase, backlog: readonly BacklogItem[]): Phase['hollow'] {
  if (phase.name !== REMEDIATE_PHASE || (phase.status !== 'ok' && phase.status !== 'no-op')) return null;
  const items = unresolvedItems(date, phase.endedAt, backlog);
  return items.length ? { items } : null;
}

/** A loop's cycles with each phase's `hollow` mark from the loop's backlog; the same objects where nothing changed. */
export function markHollow(cycles: readonly Cycle[], backlog: readonly BacklogItem[]): Cycle[] {
  return cycles.map((c) => {
    let changed = false;
    const phases = c.phases.map((p) => {
      const hollow = hollowOf(c.date, p, backlog);
      if (sameHollow(p.hollow ?? null, hollow ?? null)) return p;
      changed = true;
      const { hollow: _old, ...rest } = p;
      return hollow ? { ...rest, hollow } : rest;
    });
    return changed ? { ...c, phases } : c;
  });
}

function sameHollow(a: Phase['hollow'] | null, b: Phase['hollow'] | null): boolean {
  if (!a || !b) return !a && !b;
  return a.items.length === b.items.length && a.items.every((id, i) => id === b.items[i]);
}
