import type { Phase, PhaseStatus, Stage } from '../../../shared/domain';

// Times are shown in the operator's local time zone; tests pass `timeZone` to pin it.

// Building an Intl.DateTimeFormat costs far more than formatting with one (a first Review of a
// year's history spent ~30 ms building them), so each kind is made once per time zone and kept.
// The key '' is the local zone, fixed when first used (a zone change shows after a reload).
const CLOCK_OPTIONS: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
};
const MINUTE_OPTIONS: Intl.DateTimeFormatOptions = { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
const DAY_OPTIONS: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit' };
const CLOCKS = new Map<string, Intl.DateTimeFormat>();
const DATE_TIMES = new Map<string, Intl.DateTimeFormat>();
const MINUTES = new Map<string, Intl.DateTimeFormat>();
const DAYS = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' });

function formatterFor(cache: Map<string, Intl.DateTimeFormat>, timeZone: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { ...options, timeZone });
    cache.set(key, f);
  }
  return f;
}

function parse(iso: string | null): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `HH:MM` in local time, or null for a missing or unreadable time. */
export function formatClock(iso: string | null, timeZone?: string): string | null {
  const d = parse(iso);
  if (!d) return null;
  return formatterFor(CLOCKS, timeZone, CLOCK_OPTIONS).format(d);
}

/** `Sun 23 Aug, 00:00:04` in local time, or null. */
export function formatDateTime(iso: string | null, timeZone?: string): string | null {
  const d = parse(iso);
  if (!d) return null;
  return formatterFor(DATE_TIMES, timeZone, DATE_TIME_OPTIONS).format(d);
}

/** `Sun 23 Aug, 00:00` in local time, to the minute (what is planned to the minute), or null. */
export function formatDateMinute(iso: string | null, timeZone?: string): string | null {
  const d = parse(iso);
  if (!d) return null;
  return formatterFor(MINUTES, timeZone, MINUTE_OPTIONS).format(d);
}

/** Whether two times fall on the same local day (false when either is unreadable). */
export function sameLocalDay(a: string, b: string, timeZone?: string): boolean {
  const da = parse(a);
  const db = parse(b);
  if (!da || !db) return false;
  const f = formatterFor(DAYS, timeZone, DAY_OPTIONS);
  return f.format(da) === f.format(db);
}

/** A duration as `45s`, `41m`, `2h 05m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Weekday of a cycle's `YYYY-MM-DD` name (the date itself, not a moment, so no time zone). */
export function weekdayOf(date: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return WEEKDAY.format(d);
}

/** The time line under a phase: its duration, `since HH:MM` while running, and the file-times mark. */
export function phaseTimeLabel(phase: Phase, timeZone?: string): string {
  const start = parse(phase.startedAt);
  const end = parse(phase.endedAt);
  const files = phase.timesFrom === 'files' ? ' (file times)' : '';
  if (phase.status === 'running' && start) return `since ${formatClock(phase.startedAt, timeZone)}${files}`;
  if (start && end) return `${formatDuration(end.getTime() - start.getTime())}${files}`;
  if (start) return `started ${formatClock(phase.startedAt, timeZone)}${files}`;
  if (end) return `ended ${formatClock(phase.endedAt, timeZone)}${files}`;
  return phase.status === 'pending' ? 'not started' : 'no times';
}

/** `00:00 → 00:41` for tooltips and the detail panel, or null without times. */
export function phaseSpan(phase: Phase, timeZone?: string): string | null {
  const a = formatClock(phase.startedAt, timeZone);
  const b = formatClock(phase.endedAt, timeZone);
  if (!a && !b) return null;
  return `${a ?? '?'} → ${b ?? (phase.status === 'running' ? 'now' : '?')}`;
}

/** Where an unfinished stage stopped, for a person; null when the stage finished. */
export function stoppedAtText(stage: Stage): string | null {
  if (stage.done) return null;
  return stage.stoppedAt ? `stopped at ${stage.stoppedAt}` : 'no DONE after last step';
}

/** A finished stage's first failing step, e.g. `gates rc 2`; null when none failed. */
export function failedStepText(stage: Stage): string | null {
  const bad = stage.steps.find((s) => s.rc !== null && s.rc !== 0);
  return bad ? `${bad.name} rc ${bad.rc}` : null;
}

/** A short symbol per status so status never depends on colour alone. */
export const STATUS_GLYPH: Readonly<Record<PhaseStatus, string>> = {
  pending: '○',
  running: '◔',
  ok: '✓',
  'no-op': '–',
  ready: '●',
  incomplete: '!',
  failed: '✕',
};

/** Cycles newest first by their date name, whatever order they arrived in. */
export function newestFirst<T extends { readonly date: string }>(cycles: readonly T[]): T[] {
  return [...cycles].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** How long ago `since` was, compactly: `45s`, `12m`, `3h`, `2d`; null without a readable time. */
export function formatAge(since: string | null, now: number): string | null {
  const d = parse(since);
  if (!d) return null;
  const s = Math.max(0, Math.floor((now - d.getTime()) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
