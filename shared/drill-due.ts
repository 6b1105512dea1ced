import type { Drill, DrillRun } from './ops-domain';

// Drill cadence (issue 29, item 6): `drills.<name>.every: 30d` makes a drill due when its last
// successful run (status `ok`) is older than that, or when it has never succeeded. A failed,
// timed-out, cancelled or lost run does not count; a run still going does not either.

/** Where a drill with a cadence stands. */
export interface DrillCadence {
  readonly drill: string;
  readonly everyMs: number;
  /** When its last successful run started (ISO), or null: never succeeded (in the runs known). */
  readonly lastOkAt: string | null;
  /** When it is (or was) due (ISO): the last success plus `every`; null when it never succeeded. */
  readonly dueAt: string | null;
  /** Whether it is due now: never succeeded, or `every` has passed since the last success. */
  readonly due: boolean;
  /** How long past its due time (ms): 0 when not due or never succeeded. */
  readonly overdueMs: number;
}

/** A drill's cadence against its runs at `now`, or null when it has no `every`. */
export function drillCadence(drill: Pick<Drill, 'name'> & { readonly everyMs?: number | null | undefined }, runs: readonly DrillRun[], now: number): DrillCadence | null {
  const everyMs = drill.everyMs;
  if (everyMs === undefined || everyMs === null) return null;
  let lastOk: string | null = null;
  for (const r of runs) {
    if (r.drill !== drill.name || r.status !== 'ok') continue;
    if (Number.isNaN(Date.parse(r.startedAt))) continue;
    if (lastOk === null || Date.parse(r.startedAt) > Date.parse(lastOk)) lastOk = r.startedAt;
  }
  if (lastOk === null) return { drill: drill.name, everyMs, lastOkAt: null, dueAt: null, due: true, overdueMs: 0 };
  const dueMs = Date.parse(lastOk) + everyMs;
  const due = now >= dueMs;
  return { drill: drill.name, everyMs, lastOkAt: lastOk, dueAt: new Date(dueMs).toISOString(), due, overdueMs: due ? now - dueMs : 0 };
}

/** A cadence or delay for a person, in days and hours (`30d`, `1d 2h`, `5h`), minutes under an hour. */
export function daysText(ms: number): string {
  const d = Math.floor(ms / 86_400_000);
  const h = Math.floor((ms % 86_400_000) / 3_600_000);
  if (d > 0) return h ? `${d}d ${h}h` : `${d}d`;
  return h > 0 ? `${h}h` : `${Math.max(0, Math.floor(ms / 60_000))}m`;
}
