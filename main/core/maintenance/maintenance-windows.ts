import { randomBytes } from 'node:crypto';
import { CONSOLE_WINDOWS_MAX, type MaintenanceWindow, type MaintenanceWindowInput } from '../../../shared/maintenance';
import { MaintenanceWindowEntrySchema, undeclaredMaintenanceNames, type MaintenanceWindowConfig } from '../config/maintenance-config';
import type { Store } from '../store/store';
import { fireTimes } from '../loops/deadman';
import { windowId, type MaintenanceSchedule } from './maintenance-schedule';

/**
 * 22: maintenance windows added in the console (issue "The operator's week", item 1). `spec` is the
 * window as it was sent (a `maintenance:` entry, read again with the config's rules at each start);
 * `over_at` is when it is over for good (a one-off's end, or when it was ended; NULL for a
 * recurring window in force), so a start reads only the windows not over.
 */
export const MAINTENANCE_WINDOWS_MIGRATION = `
  CREATE TABLE maintenance_windows (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    ended_by TEXT,
    ended_at TEXT,
    over_at TEXT
  );
  CREATE INDEX maintenance_windows_over ON maintenance_windows (over_at);
  `;

interface WindowRow {
  readonly id: string;
  readonly spec: string;
  readonly created_by: string;
  readonly created_at: string;
  readonly ended_at: string | null;
}

/** A console window as the schedule has it, with who added it. */
interface ConsoleWindow {
  readonly window: MaintenanceWindowConfig;
  readonly createdBy: string;
  readonly createdAt: string;
}

/** What the windows are kept against. */
export interface MaintenanceWindowsOptions {
  readonly store: Store;
  /** The schedule every part reads (the config's windows are in it already). */
  readonly schedule: MaintenanceSchedule;
  /** The config's names, which a window's scope must use. */
  readonly declared: { readonly loops: readonly string[]; readonly hosts: readonly string[]; readonly proxies: readonly string[] };
  readonly now: () => Date;
  /** The list changed (a window added or ended, one began or ended): its new value. */
  readonly publish: (list: MaintenanceWindow[]) => void;
  /** A window was added or ended: what read the schedule before must read it again. */
  readonly rescheduled: () => void;
  /** Where a stored window that no longer reads is said (with its id). */
  readonly warn?: (message: string) => void;
}

/** A stored window's text as JSON, or null (which the schema then refuses, naming it) when it is not. */
function parseSpec(spec: string): unknown {
  try {
    return JSON.parse(spec) as unknown;
  } catch {
    return null;
  }
}

/** `window.<path>: <message>` of a refused window, the form's field named. */
function issueText(path: readonly PropertyKey[], message: string): string {
  return `${['window', ...path.map(String)].join('.')}: ${message}`;
}

/**
 * The maintenance windows an operator or admin adds in the console, beside the config's: kept in
 * the store (a restart keeps them), read with the config's own rules (the same shapes, times,
 * cron and names), and handed to the one MaintenanceSchedule every part reads. Ending one cuts
 * an occurrence in force short at now and drops the rest; a config window ends only in the file.
 */
export class MaintenanceWindows {
  private readonly q;
  private consoleWindows: ConsoleWindow[] = [];
  /** The next moment an occurrence begins or ends (epoch ms): the list is published again then. */
  private boundary = Number.POSITIVE_INFINITY;

  constructor(private readonly options: MaintenanceWindowsOptions) {
    const { store } = options;
    this.q = {
      live: store.query<[now: string], WindowRow>('SELECT id, spec, created_by, created_at, ended_at FROM maintenance_windows WHERE over_at IS NULL OR over_at > ? ORDER BY created_at, id'),
      count: store.column<[now: string], number>('SELECT COUNT(*) FROM maintenance_windows WHERE over_at IS NULL OR over_at > ?'),
      insert: store.query<[id: string, spec: string, by: string, at: string, over: string | null]>('INSERT INTO maintenance_windows (id, spec, created_by, created_at, over_at) VALUES (?, ?, ?, ?, ?)'),
      end: store.query<[by: string, at: string, over: string, id: string]>('UPDATE maintenance_windows SET ended_by = ?, ended_at = ?, over_at = ? WHERE id = ?'),
    };
    this.load();
    this.boundary = this.build(options.now()).boundary;
  }

  /** The windows not over, the config's first, each with its occurrence now and the next. */
  list(now: Date = this.options.now()): MaintenanceWindow[] {
    return this.build(now).list;
  }

  /** Publish the list again once an occurrence began or ended (the notices' tick asks: two numbers compared between boundaries). */
  tick(now: Date = this.options.now()): void {
    if (now.getTime() < this.boundary) return;
    this.publish(now);
  }

  private publish(now: Date): void {
    const { list, boundary } = this.build(now);
    this.boundary = boundary;
    this.options.publish(list);
  }

  /** The list at `now`, and the next moment an occurrence in it begins or ends. */
  private build(now: Date): { list: MaintenanceWindow[]; boundary: number } {
    const nowMs = now.getTime();
    const byId = new Map(this.consoleWindows.map((c) => [windowId(c.window), c]));
    let boundary = Number.POSITIVE_INFINITY;
    const out = this.options.schedule.all().flatMap(({ window, id }): MaintenanceWindow[] => {
      const current = this.options.schedule.occurrenceAt(window, nowMs, id);
      const nextStart = window.kind === 'once' ? (window.startMs > nowMs ? window.startMs : null) : fireTimes(window.every, window.timezone, now).next;
      const nextEnd = nextStart === null ? null : window.kind === 'once' ? window.endMs : nextStart + window.forMs;
      boundary = Math.min(boundary, current?.endMs ?? Number.POSITIVE_INFINITY, nextStart ?? Number.POSITIVE_INFINITY);
      if (!current && nextStart === null) return [];
      const made = byId.get(id);
      const iso = (ms: number): string => new Date(ms).toISOString();
      const { loops, hosts, proxies } = window;
      return [
        {
          id,
          source: made ? 'console' : 'config',
          reason: window.reason,
          ...(loops ? { loops } : {}),
          ...(hosts ? { hosts } : {}),
          ...(proxies ? { proxies } : {}),
          kind: window.kind,
          ...(window.kind === 'every' ? { every: window.every, forMs: window.forMs, timezone: window.timezone } : {}),
          current: current ? { start: iso(current.startMs), end: iso(current.endMs) } : null,
          next: nextStart !== null && nextEnd !== null ? { start: iso(nextStart), end: iso(nextEnd) } : null,
          ...(made ? { createdBy: made.createdBy, createdAt: made.createdAt } : {}),
        },
      ];
    });
    return { list: out, boundary };
  }

  /** Add a window (as a `maintenance:` entry is written), for `by`; its id. A window the config's rules refuse is refused, naming the field. */
  add(input: MaintenanceWindowInput, by: string): string {
    const parsed = MaintenanceWindowEntrySchema.safeParse(input);
    if (!parsed.success) {
      throw new Error(`The maintenance window was not added: ${parsed.error.issues.map((i) => issueText(i.path, i.message)).join('; ')}.`);
    }
    const unknown = undeclaredMaintenanceNames([parsed.data], this.options.declared);
    if (unknown.length > 0) throw new Error(`The maintenance window was not added: ${unknown.map((u) => issueText(u.path.slice(1) as PropertyKey[], u.message)).join('; ')}.`);
    const now = this.options.now();
    const nowIso = now.toISOString();
    const w = parsed.data;
    if (w.kind === 'once' && w.endMs <= now.getTime()) throw new Error(`The maintenance window was not added: window.end: it is over already (${new Date(w.endMs).toISOString()} is before now, ${nowIso}).`);
    if ((this.q.count.get(nowIso) ?? 0) >= CONSOLE_WINDOWS_MAX) {
      throw new Error(`The maintenance window was not added: the console holds ${CONSOLE_WINDOWS_MAX} windows not over already; end one first.`);
    }
    const id = `c${randomBytes(6).toString('hex')}`;
    this.q.insert.run(id, JSON.stringify(input), by, nowIso, w.kind === 'once' ? new Date(w.endMs).toISOString() : null);
    this.changed();
    return id;
  }

  /**
   * End the console window `id`, for `by`: an occurrence in force ends now, a window not begun (or
   * a recurring one) is dropped. A config window, or one over or unknown, is refused with why.
   */
  end(id: string, by: string): string {
    const now = this.options.now();
    const nowIso = now.toISOString();
    const made = this.consoleWindows.find((c) => windowId(c.window) === id);
    if (!made) {
      const configured = this.options.schedule.all().some((w) => w.id === id);
      throw new Error(
        configured
          ? `Maintenance window ${id} comes from the config's maintenance: section: it ends when it is taken out of the config file.`
          : `No maintenance window ${id} that the console added is in force or planned: it may be over already, or ended by someone else.`,
      );
    }
    this.q.end.run(by, nowIso, nowIso, id);
    this.changed();
    return nowIso;
  }

  /** Read the stored windows again and hand them to the schedule; then the list and its readers. */
  private changed(): void {
    this.load();
    this.options.rescheduled();
    this.publish(this.options.now());
  }

  private load(): void {
    const now = this.options.now();
    const out: ConsoleWindow[] = [];
    for (const row of this.q.live.all(now.toISOString())) {
      const parsed = MaintenanceWindowEntrySchema.safeParse(parseSpec(row.spec));
      if (!parsed.success) {
        this.options.warn?.(`Maintenance window ${row.id} (added by ${row.created_by}) no longer reads and is left out: ${parsed.error.issues.map((i) => issueText(i.path, i.message)).join('; ')}.`);
        continue;
      }
      const w = parsed.data;
      // Ended: a recurring window is dropped; a one-off in force when it was ended ends then.
      if (row.ended_at !== null && w.kind === 'every') continue;
      const endedMs = row.ended_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.ended_at);
      const window: MaintenanceWindowConfig = w.kind === 'once' ? { ...w, id: row.id, endMs: Math.min(w.endMs, endedMs) } : { ...w, id: row.id };
      if (window.kind === 'once' && window.endMs <= window.startMs) continue;
      out.push({ window, createdBy: row.created_by, createdAt: row.created_at });
    }
    this.consoleWindows = out;
    this.options.schedule.setConsoleWindows(out.map((c) => c.window));
  }
}
