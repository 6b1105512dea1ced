import type { Capacity, HostState } from '../../../../shared/domain';
import type { MaintenanceWindow, MaintenanceWindowInput } from '../../../../shared/maintenance';
import { formatClock, formatDateMinute, sameLocalDay } from '../../ui/format';

// The "Plan a window" form as plain data, how it becomes the `maintenance:` entry main reads with
// the config's own rules, and how a listed window's times are said. Only the shape is made here:
// whether the times, the cron, the duration and the names are right is main's to say (its refusal
// names the field), so the form and the config file can never disagree.

/** What a scope may name: the loops, hosts and proxies the console knows, in the console's order. */
export interface ScopeChoices {
  readonly loops: readonly string[];
  readonly hosts: readonly string[];
  readonly proxies: readonly string[];
}

/** One kind of name in a scope. */
export type ScopeKind = keyof ScopeChoices;

/** The kinds, in the order the form shows them. */
export const SCOPE_KINDS: readonly ScopeKind[] = ['loops', 'hosts', 'proxies'];

/** The form as typed: `from`/`until` are `<input type="datetime-local">` values (the browser's wall clock). */
export interface MaintenanceDraft {
  readonly reason: string;
  readonly kind: 'once' | 'every';
  readonly from: string;
  readonly until: string;
  /** A five-field cron, read in `timezone`. */
  readonly every: string;
  /** How long each occurrence lasts, as the config writes it ("2h", "90m"). */
  readonly for: string;
  readonly timezone: string;
  /** The names ticked; none of any kind: everything. */
  readonly scope: ScopeChoices;
}

/** How long a one-off window lasts unless the operator says otherwise. */
export const DEFAULT_SPAN_MS = 2 * 60 * 60 * 1000;

const pad = (n: number): string => String(n).padStart(2, '0');

/** A moment as a datetime-local value (`2026-11-29T01:00`) on this browser's wall clock, to the minute. */
export function localInputValue(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const LOCAL_VALUE = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?$/;

/**
 * A datetime-local value as an ISO time with its offset (UTC), the value read on this browser's
 * wall clock; null when it is not one (empty, or a date the browser cannot read).
 */
export function isoFromLocalInput(value: string): string | null {
  if (!LOCAL_VALUE.test(value)) return null;
  // A date-time without an offset is local time (ECMA-262 Date.parse), as the input shows it.
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** This browser's IANA time zone (UTC when it does not say). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** A fresh form: one-off, from now until two hours later, recurring nightly at 03:00 for 1h in `timezone`, scope everything. */
export function draftDefaults(nowMs: number, timezone: string): MaintenanceDraft {
  return {
    reason: '',
    kind: 'once',
    from: localInputValue(nowMs),
    until: localInputValue(nowMs + DEFAULT_SPAN_MS),
    every: '0 3 * * *',
    for: '1h',
    timezone,
    scope: { loops: [], hosts: [], proxies: [] },
  };
}

/**
 * The window as main takes it (`maintenance.add`): a one-off's times as ISO with their offset, a
 * recurring one's cron, duration and time zone, the reason, and the names ticked of each kind (a
 * kind with none left out: none at all means everything). A time the browser cannot read is sent
 * as typed, for main to refuse naming its field.
 */
export function windowInput(draft: MaintenanceDraft): MaintenanceWindowInput {
  const scope = Object.fromEntries(SCOPE_KINDS.filter((k) => draft.scope[k].length > 0).map((k) => [k, [...draft.scope[k]]])) as Pick<
    MaintenanceWindowInput,
    ScopeKind
  >;
  const reason = draft.reason.trim();
  if (draft.kind === 'once') {
    return { start: isoFromLocalInput(draft.from) ?? draft.from, end: isoFromLocalInput(draft.until) ?? draft.until, reason, ...scope };
  }
  const timezone = draft.timezone.trim();
  return { every: draft.every.trim().split(/\s+/).join(' '), for: draft.for.trim(), ...(timezone ? { timezone } : {}), reason, ...scope };
}

/** `names` with `name` ticked or unticked, kept in the order of `order` (the console's). */
export function toggledName(names: readonly string[], name: string, on: boolean, order: readonly string[]): string[] {
  const next = new Set(names);
  if (on) next.add(name);
  else next.delete(name);
  return order.filter((n) => next.has(n));
}

/** What a scope may name: the loops (configured order), the hosts, and the proxies of the capacity rows (each once). */
export function scopeChoices(loopNames: readonly string[], hosts: readonly Pick<HostState, 'name'>[], capacity: readonly Pick<Capacity, 'proxy'>[]): ScopeChoices {
  return {
    loops: [...new Set(loopNames)],
    hosts: [...new Set(hosts.map((h) => h.name))],
    proxies: [...new Set(capacity.map((c) => c.proxy))],
  };
}

/** A duration as the config writes it: `1h`, `1h30m`, `45m`, `30s`. */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  const text = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${rest ? `${rest}s` : ''}`;
  return text || '0s';
}

/** How a window's times are said: in force until, and the next occurrence. */
export interface WindowWhen {
  /** "in force until …", while an occurrence is in force. */
  readonly current: string | null;
  /** "from … to …" of the next occurrence ("next from …" after one in force). */
  readonly next: string | null;
}

/** `Sun 13 Dec, 03:30` in the console's time zone (`timeZone` pins it, for tests); an unreadable time as given. */
export function windowTime(iso: string, timeZone?: string): string {
  return formatDateMinute(iso, timeZone) ?? iso;
}

/** `from Sun 13 Dec, 03:30 to 05:00`: windows are planned to the minute, and the end's day is said only when it is another. */
function spanFrom(start: string, end: string, timeZone: string | undefined): string {
  const to = sameLocalDay(start, end, timeZone) ? (formatClock(end, timeZone) ?? end) : windowTime(end, timeZone);
  return `from ${windowTime(start, timeZone)} to ${to}`;
}

/** A window's times as sentences, in the console's time zone (`timeZone` pins it, for tests). */
export function windowWhen(w: MaintenanceWindow, timeZone?: string): WindowWhen {
  const next = w.next ? spanFrom(w.next.start, w.next.end, timeZone) : null;
  return {
    current: w.current ? `in force until ${windowTime(w.current.end, timeZone)}` : null,
    next: next && w.current ? `next ${next}` : next,
  };
}

/** Windows in force first, then by when they next begin. */
export function windowsInOrder(windows: readonly MaintenanceWindow[]): MaintenanceWindow[] {
  const begins = (w: MaintenanceWindow): string => w.current?.start ?? w.next?.start ?? '';
  return [...windows].sort((a, b) => Number(b.current !== null) - Number(a.current !== null) || begins(a).localeCompare(begins(b)) || a.id.localeCompare(b.id));
}
