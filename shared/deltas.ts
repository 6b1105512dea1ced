import * as z from 'zod';
import type { AuditMark, BacklogItem, Cycle, Finding, Lesson, Task } from './domain';

/**
 * Deltas: what an event carries instead of a whole slice. Main sends the items that changed and
 * the keys of those that went away; the renderer applies them to what it holds. The keys are
 * declared here, once, so both sides agree on what "the same item" is.
 */

const SEP = '\u0001';

/** A finding's identity: its loop, ledger file, id and line (review ids can repeat across lines). */
export const findingKey = (f: Pick<Finding, 'loop' | 'source' | 'id' | 'line'>): string => [f.loop, f.source, f.id, f.line].join(SEP);
/** A backlog item's identity: ids are unique within a loop's ledgers. */
export const backlogKey = (b: Pick<BacklogItem, 'loop' | 'id'>): string => [b.loop, b.id].join(SEP);
/** A task row's identity: its file and line. */
export const taskKey = (t: Pick<Task, 'loop' | 'source' | 'line'>): string => [t.loop, t.source, t.line].join(SEP);
/** A lesson's identity: its file and line. */
export const lessonKey = (l: Pick<Lesson, 'loop' | 'source' | 'line'>): string => [l.loop, l.source, l.line].join(SEP);
/** An audit mark's identity: its line in the loop's audit ledger. */
export const auditKey = (a: Pick<AuditMark, 'loop' | 'line'>): string => [a.loop, a.line].join(SEP);

/** Items added or changed, and the keys of items removed. */
export interface KeyedDelta<T> {
  readonly upserted: readonly T[];
  readonly removed: readonly string[];
}

/** The schema of a keyed delta of `item`s. */
export function keyedDeltaSchema<T extends z.ZodType>(item: T) {
  return z.object({ upserted: z.array(item).readonly(), removed: z.array(z.string()).readonly() });
}

/**
 * The most rows one `ledgers.changed` event carries. A bigger change (the first poll after a
 * restart reports everything stored; a 60,000-finding ledger rewritten) is sent as a
 * `ledgers.reset` instead, and clients read the rows again in pages: no event of tens of MB.
 */
export const LEDGER_DELTA_MAX_ROWS = 2000;

/** How many rows (added, changed or removed) these deltas hold together. */
export function deltaRows(...deltas: readonly KeyedDelta<unknown>[]): number {
  return deltas.reduce((n, d) => n + d.upserted.length + d.removed.length, 0);
}

/** Whether a delta changes nothing. */
export function isEmptyDelta(d: KeyedDelta<unknown> | undefined): boolean {
  return d === undefined || (d.upserted.length === 0 && d.removed.length === 0);
}

/**
 * Apply a keyed delta to a list: changed items replace theirs in place, new ones are appended (a
 * ledger grows at its end), removed ones are dropped. Returns the same array when nothing applies.
 */
export function applyKeyedDelta<T>(items: readonly T[], delta: KeyedDelta<T>, key: (item: T) => string): readonly T[] {
  if (delta.upserted.length === 0 && delta.removed.length === 0) return items;
  const upserts = new Map(delta.upserted.map((u) => [key(u), u]));
  const removed = new Set(delta.removed);
  const out: T[] = [];
  for (const item of items) {
    const k = key(item);
    if (removed.has(k)) continue;
    const u = upserts.get(k);
    if (u !== undefined) {
      out.push(u);
      upserts.delete(k);
    } else out.push(item);
  }
  for (const u of upserts.values()) out.push(u);
  return out;
}

/**
 * Diff two versions of a list by key: what `applyKeyedDelta` needs to turn `before` into `after`
 * (up to order). Items are compared by their JSON only where `mayDiffer` says they can have changed
 * (all of them when it is omitted), so a 60,000-finding ledger that grew by one section compares
 * only the rows the section touched.
 */
export function diffKeyed<T>(before: readonly T[], after: readonly T[], key: (item: T) => string, mayDiffer?: (item: T) => boolean): KeyedDelta<T> {
  const old = new Map<string, T>();
  for (const item of before) old.set(key(item), item);
  const upserted: T[] = [];
  const seen = new Set<string>();
  for (const item of after) {
    const k = key(item);
    seen.add(k);
    const prev = old.get(k);
    if (prev === undefined) upserted.push(item);
    else if (prev !== item && (mayDiffer === undefined || mayDiffer(item)) && JSON.stringify(prev) !== JSON.stringify(item)) upserted.push(item);
  }
  const removed: string[] = [];
  for (const k of old.keys()) if (!seen.has(k)) removed.push(k);
  return { upserted, removed };
}

/** Merge changed cycles into a loop's cycles (newest first), dropping removed dates. */
export function applyCycleDelta(cycles: readonly Cycle[], upserted: readonly Cycle[], removed: readonly string[]): readonly Cycle[] {
  if (upserted.length === 0 && removed.length === 0) return cycles;
  const byDate = new Map(cycles.map((c) => [c.date, c]));
  for (const d of removed) byDate.delete(d);
  for (const c of upserted) byDate.set(c.date, c);
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}
