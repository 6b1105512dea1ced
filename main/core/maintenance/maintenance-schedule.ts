import { createHash } from 'node:crypto';
import type { MaintenanceMark } from '../../../shared/maintenance';
import type { MaintenanceWindowConfig } from '../config/maintenance-config';
import { ownEntry } from '../config/schema';
import { fireTimes } from '../loops/deadman';

/** One occurrence of a window: a one-off window's only one, or one fire of a recurring window's cron. */
export interface MaintenanceOccurrence {
  /** `<window id>@<start ISO>`: stable across restarts and config reloads that keep the window as written. */
  readonly id: string;
  readonly window: MaintenanceWindowConfig;
  readonly startMs: number;
  readonly endMs: number;
}

/** What a window can cover: a loop, host, proxy or drill by its config name, or something else (a budget). */
export type MaintenanceTarget =
  | { readonly kind: 'loop' | 'host' | 'proxy' | 'drill'; readonly name: string }
  | { readonly kind: 'other' };

/** What the schedule needs of the config besides the windows: where each loop, proxy and drill runs. */
export interface MaintenanceTopology {
  readonly loops: Readonly<Record<string, { readonly host: string }>>;
  readonly proxies: Readonly<Record<string, { readonly host?: string | undefined }>>;
  readonly drills: Readonly<Record<string, { readonly host: string }>>;
}

/** A notice's source (`loop:<name>`, `host:<name>`, `proxy:<name>`, `drill:<name>`) as a target. */
export function targetOfSource(source: string): MaintenanceTarget {
  const m = /^(loop|host|proxy|drill):(.+)$/.exec(source);
  return m ? { kind: m[1] as 'loop' | 'host' | 'proxy' | 'drill', name: m[2] ?? '' } : { kind: 'other' };
}

/** A window's stable id: a console window's own, a config window's a hash of it as written (times, cron, reason, scope). */
export function windowId(w: MaintenanceWindowConfig): string {
  return w.id ?? createHash('sha256').update(JSON.stringify(w)).digest('hex').slice(0, 12);
}

/**
 * The configured maintenance windows, asked when something happens: which occurrence (if any) of
 * which window covers a loop, host or proxy at a moment. A recurring window's occurrences begin at
 * its cron's fire times read on the wall clock of its `timezone` (the dead-man's own evaluation,
 * loops/deadman.ts: a 02:00 that does not exist on the spring-forward night begins at 03:00, a
 * 02:00 that happens twice in the autumn begins at the first) and last `for` of elapsed time.
 *
 * Scope: a window naming nothing covers everything; otherwise a loop is covered when it is named
 * under `loops` or its host under `hosts`, a proxy when named under `proxies` or the host it is
 * reached through under `hosts`, a host when named under `hosts`, a drill when its host is. A
 * proxy's window does not cover the loops that use the proxy: the scope says what it names.
 */
export class MaintenanceSchedule {
  private readonly configured: readonly { readonly window: MaintenanceWindowConfig; readonly id: string }[];
  private windows: readonly { readonly window: MaintenanceWindowConfig; readonly id: string }[];

  constructor(
    windows: readonly MaintenanceWindowConfig[],
    /** Where each loop, proxy and drill runs (what a host's window takes in). */
    readonly topology: MaintenanceTopology,
  ) {
    this.configured = windows.map((window) => ({ window, id: windowId(window) }));
    this.windows = this.configured;
  }

  /** Counts the changes of the windows: an answer kept for a fixed moment holds while it stays the same. */
  private changes = 0;

  /** The windows the console added (maintenance-windows.ts), in force from now on beside the config's. */
  setConsoleWindows(windows: readonly MaintenanceWindowConfig[]): void {
    this.windows = [...this.configured, ...windows.map((window) => ({ window, id: windowId(window) }))];
    this.changes += 1;
  }

  /** Which set of windows this is: it moves each time the console's windows change. */
  get version(): number {
    return this.changes;
  }

  /** Every window with its id, the config's first. */
  all(): readonly { readonly window: MaintenanceWindowConfig; readonly id: string }[] {
    return this.windows;
  }

  /** No window is configured: every question answers nothing at once. */
  get empty(): boolean {
    return this.windows.length === 0;
  }

  /** The occurrence of `window` covering `atMs` (start inclusive, end exclusive), or null. */
  occurrenceAt(window: MaintenanceWindowConfig, atMs: number, id = windowId(window)): MaintenanceOccurrence | null {
    if (window.kind === 'once') {
      return atMs >= window.startMs && atMs < window.endMs ? { id: `${id}@${new Date(window.startMs).toISOString()}`, window, startMs: window.startMs, endMs: window.endMs } : null;
    }
    // The latest start at or before the moment ends last of those begun: if it has ended, all have.
    const start = fireTimes(window.every, window.timezone, new Date(atMs)).last;
    if (start === null || atMs >= start + window.forMs) return null;
    return { id: `${id}@${new Date(start).toISOString()}`, window, startMs: start, endMs: start + window.forMs };
  }

  /** Every occurrence in force at `atMs`, in config order. */
  active(atMs: number): MaintenanceOccurrence[] {
    return this.windows.flatMap(({ window, id }) => {
      const o = this.occurrenceAt(window, atMs, id);
      return o ? [o] : [];
    });
  }

  /** The occurrence covering `target` at `atMs` (the one ending last, when several do), or null. */
  covering(target: MaintenanceTarget, atMs: number): MaintenanceOccurrence | null {
    let best: MaintenanceOccurrence | null = null;
    for (const { window, id } of this.windows) {
      if (!this.covers(window, target)) continue;
      const o = this.occurrenceAt(window, atMs, id);
      if (o && (best === null || o.endMs > best.endMs)) best = o;
    }
    return best;
  }

  /** The mark for what `target` does at `atMs`, or null outside every window in its scope. */
  markAt(target: MaintenanceTarget, atMs: number): MaintenanceMark | null {
    const o = this.empty ? null : this.covering(target, atMs);
    return o ? markOf(o) : null;
  }

  /** Whether `window`'s scope takes in `target`. */
  covers(window: MaintenanceWindowConfig, target: MaintenanceTarget): boolean {
    const { loops, hosts, proxies } = window;
    if (loops === undefined && hosts === undefined && proxies === undefined) return true;
    const onHost = (host: string | undefined): boolean => host !== undefined && (hosts ?? []).includes(host);
    switch (target.kind) {
      case 'loop':
        return (loops ?? []).includes(target.name) || onHost(ownEntry(this.topology.loops, target.name)?.host);
      case 'proxy':
        return (proxies ?? []).includes(target.name) || onHost(ownEntry(this.topology.proxies, target.name)?.host);
      case 'host':
        return onHost(target.name);
      case 'drill':
        return onHost(ownEntry(this.topology.drills, target.name)?.host);
      default:
        return false;
    }
  }
}

/** The mark of an occurrence: its window's reason and its end. */
export function markOf(o: MaintenanceOccurrence): MaintenanceMark {
  return { reason: o.window.reason, until: new Date(o.endMs).toISOString() };
}
