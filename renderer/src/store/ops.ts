import type { EventPayload } from '../../../shared/contract';
import { NOTICE_LIST_LIMIT, type Drill, type DrillRun, type Notice, type Snapshot } from '../../../shared/domain';

// The operator-facing parts of the state: notices (and the toasts they raise), drills, their runs
// and the output of the runs being watched. Kept apart from reducers.ts so the rest stays small.

/** A notice shown as a toast; `notice` is the event's own object, so a replayed event is recognised. */
export interface Toast {
  readonly notice: Notice;
  readonly repeat: boolean;
  /** Increases with every toast raised, so a repeat of the same key is seen as new. */
  readonly seq: number;
}

/** The output of one drill run held in memory: the last ~1 MB, and where it ends in the run's log. */
export interface DrillOutput {
  readonly text: string;
  /** Byte offset just past `text` in the run's output (what to ask `drills.output` for next). */
  readonly next: number;
  /** Bytes known to exist beyond `next` (an event arrived past a gap); the gap must be fetched. */
  readonly behind: number;
  /** Earlier output was dropped to stay within the bound. */
  readonly truncated: boolean;
}

/** The notices, drills and runs, as plain data. */
export interface OpsData {
  /** Notices in main's order. */
  readonly notices: readonly Notice[];
  /** Toasts on screen, oldest first. */
  readonly toasts: readonly Toast[];
  readonly toastSeq: number;
  readonly drills: readonly Drill[];
  readonly drillRuns: readonly DrillRun[];
  /** Output of the runs that were watched or streamed, keyed by run id. */
  readonly drillOutput: Readonly<Record<string, DrillOutput>>;
}

/** Nothing yet. */
export const emptyOpsData: OpsData = { notices: [], toasts: [], toastSeq: 0, drills: [], drillRuns: [], drillOutput: {} };

/** How much output text one run keeps (characters, about a megabyte). */
export const MAX_OUTPUT_CHARS = 1_000_000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 length of a string, as the run's byte offsets count it. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function bounded(text: string): { text: string; cut: boolean } {
  if (text.length <= MAX_OUTPUT_CHARS) return { text, cut: false };
  let rest = text.slice(text.length - MAX_OUTPUT_CHARS);
  const nl = rest.indexOf('\n');
  if (nl >= 0 && nl < 4096) rest = rest.slice(nl + 1);
  return { text: rest, cut: true };
}

/**
 * Merge a chunk that starts at byte `from` and ends at byte `end`: bytes already held are skipped,
 * a chunk past the end is not appended but recorded in `behind` so the gap gets fetched.
 */
export function appendOutput(entry: DrillOutput | undefined, from: number, text: string, end: number): DrillOutput {
  const cur = entry ?? { text: '', next: 0, behind: 0, truncated: false };
  if (from > cur.next) return { ...cur, behind: Math.max(cur.behind, end) };
  if (end <= cur.next) return cur;
  const skip = cur.next - from;
  const fresh = skip === 0 ? text : decoder.decode(encoder.encode(text).subarray(skip));
  const { text: kept, cut } = bounded(cur.text + fresh);
  return { text: kept, next: end, behind: Math.max(cur.behind, end), truncated: cur.truncated || cut };
}

/** Toasts whose notice is now acknowledged are taken down. */
function liveToasts(toasts: readonly Toast[], notices: readonly Notice[]): readonly Toast[] {
  if (toasts.length === 0) return toasts;
  const acked = new Set(notices.filter((n) => n.acknowledgedAt !== null).map((n) => n.key));
  const kept = toasts.filter((t) => !acked.has(t.notice.key));
  return kept.length === toasts.length ? toasts : kept;
}

/** The most toasts on screen at once: a burst of notices must not bury the console (the Notices view lists them all). */
export const MAX_TOASTS = 5;

/** Keep the newest toasts, emergencies before the rest, at most MAX_TOASTS. */
export function capToasts(toasts: readonly Toast[]): readonly Toast[] {
  if (toasts.length <= MAX_TOASTS) return toasts;
  const ranked = [...toasts].sort((a, b) => Number(b.notice.priority === 2) - Number(a.notice.priority === 2) || b.seq - a.seq);
  const keep = new Set(ranked.slice(0, MAX_TOASTS));
  return toasts.filter((t) => keep.has(t));
}

/** The ops fields a snapshot carries; toasts and watched output are kept. */
export function opsFromSnapshot(data: OpsData, snapshot: Pick<Snapshot, 'notices' | 'drills' | 'drillRuns'>): Partial<OpsData> {
  return {
    notices: snapshot.notices,
    drills: snapshot.drills,
    drillRuns: snapshot.drillRuns,
    toasts: liveToasts(data.toasts, snapshot.notices),
  };
}

/**
 * `notices.changed`: the notices that changed, merged into the list (newest first, as main keeps
 * it, and no longer than main's), each replacing its older self.
 */
export function withChangedNotices(data: OpsData, changed: readonly Notice[]): Partial<OpsData> {
  if (changed.length === 0) return {};
  const byKey = new Map(data.notices.map((n) => [n.key, n]));
  for (const n of changed) byKey.set(n.key, n);
  const notices = [...byKey.values()]
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, NOTICE_LIST_LIMIT);
  return { notices, toasts: liveToasts(data.toasts, notices) };
}

/** `notice.raised`: the notice joins (or replaces its older self in) the list, and is toasted unless it is list-only. */
export function withRaisedNotice(data: OpsData, { notice, repeat }: EventPayload<'notice.raised'>): Partial<OpsData> {
  const notices = data.notices.some((n) => n.key === notice.key) ? data.notices.map((n) => (n.key === notice.key ? notice : n)) : [notice, ...data.notices];
  // −2 is "list only": no toast. A replay of the same event object (over a snapshot) changes nothing.
  if (notice.priority === -2 || data.toasts.some((t) => t.notice === notice)) return { notices };
  const seq = data.toastSeq + 1;
  return { notices, toastSeq: seq, toasts: capToasts([...data.toasts.filter((t) => t.notice.key !== notice.key), { notice, repeat, seq }]) };
}

/** `drill.output`: a chunk of a run's output merged into what is held of it. */
export function withDrillOutput(data: OpsData, { runId, from, text }: EventPayload<'drill.output'>): Partial<OpsData> {
  const before = data.drillOutput[runId];
  const after = appendOutput(before, from, text, from + byteLength(text));
  return after === before ? {} : { drillOutput: { ...data.drillOutput, [runId]: after } };
}

/** Take a toast down (closed, or its time is up). */
export function withoutToast(data: OpsData, key: string): Partial<OpsData> {
  return { toasts: data.toasts.filter((t) => t.notice.key !== key) };
}

/** Record an acknowledgement or snooze, and who made it, locally, ahead of main's `notices.changed`. */
export function withNoticeChange(
  data: OpsData,
  key: string,
  change: Partial<Pick<Notice, 'acknowledgedAt' | 'acknowledgedBy' | 'snoozedUntil' | 'snoozedBy'>>,
): Partial<OpsData> {
  const notices = data.notices.map((n) => (n.key === key ? { ...n, ...change } : n));
  return { notices, toasts: change.acknowledgedAt ? data.toasts.filter((t) => t.notice.key !== key) : data.toasts };
}
