import type { FailureCause, HostState, Phase } from '../../../shared/domain';
import type { FleetWindow } from '../capacity/history/fleet-windows';
import { attribute, type Outage } from '../loops/attribution';
import { AGENT_CAUSE } from '../loops/phase-status';
import type { Span } from '../state/spans';
import type { Store } from '../store/store';
import type { WatchedTime } from '../state/watched-time';

// When each host could not be reached, as Loopdeck saw it: what failure attribution lays a bad
// phase's window against (the runner down is the runner's fault, not the agent's); and when a
// host was in a state that shows nothing of it (its key not trusted, its login refused, a first
// connect): then Loopdeck did not watch it. Kept in the store's meta as small JSON, bounded per
// host, written only when a host's state changes.

const OUTAGES_KEY = 'hosts.outages';
const BLIND_KEY = 'hosts.blind';
/** Outages (and blind stretches) kept per host (the newest). */
export const OUTAGES_KEPT = 200;
/** States in which the host could not be reached (not the ones only the operator can fix). */
const DOWN_STATES: ReadonlySet<HostState['state']> = new Set(['reconnecting', 'unreachable']);
/** States in which Loopdeck saw the host: up, or trying and failing to reach it. Any other shows nothing. */
const SEEN_STATES: ReadonlySet<HostState['state']> = new Set(['connected', ...DOWN_STATES]);

/** Per host, stretches opened and closed by its state, kept in one meta value. */
class HostStretches {
  private readonly byHost: Map<string, Outage[]>;

  constructor(
    private readonly store: Store,
    private readonly key: string,
  ) {
    this.byHost = new Map(Object.entries(this.read()));
  }

  private read(): Record<string, Outage[]> {
    try {
      const raw = JSON.parse(this.store.getMeta(this.key) ?? '{}') as unknown;
      if (!raw || typeof raw !== 'object') return {};
      const out: Record<string, Outage[]> = {};
      for (const [host, list] of Object.entries(raw as Record<string, unknown>)) {
        if (!Array.isArray(list)) continue;
        out[host] = list.filter((o): o is Outage => !!o && typeof o.since === 'number' && (o.until === null || typeof o.until === 'number'));
      }
      return out;
    } catch {
      return {};
    }
  }

  /** Open a stretch at `since` when `inside` and none is open, close the open one at `now` when not; true when it moved. */
  note(host: string, inside: boolean, since: number, now: number): boolean {
    const list = this.byHost.get(host) ?? [];
    const open = list.at(-1)?.until === null ? list.at(-1) : undefined;
    if (inside && !open) {
      list.push({ since, until: null });
      this.byHost.set(host, list.slice(-OUTAGES_KEPT));
      return true;
    }
    if (!inside && open) {
      list[list.length - 1] = { since: open.since, until: now };
      return true;
    }
    return false;
  }

  save(): void {
    this.store.setMeta(this.key, JSON.stringify(Object.fromEntries(this.byHost)));
  }

  of(host: string): readonly Outage[] {
    return this.byHost.get(host) ?? [];
  }
}

/** When each host was down, and when it was in a state that shows nothing of it, as Loopdeck saw its states. */
export class HostOutages {
  private readonly down: HostStretches;
  private readonly blind: HostStretches;

  constructor(store: Store) {
    this.down = new HostStretches(store, OUTAGES_KEY);
    this.blind = new HostStretches(store, BLIND_KEY);
  }

  /**
   * Note the hosts' states (as published when they change): a host going down opens an outage
   * from its `since`, one back up closes it; a state that shows nothing opens a blind stretch.
   */
  note(states: readonly HostState[], now: number): void {
    let down = false;
    let blind = false;
    for (const h of states) {
      const since = h.since ? Date.parse(h.since) : now;
      const from = Number.isNaN(since) ? now : since;
      if (DOWN_STATES.has(h.state)) down = this.down.note(h.name, true, from, now) || down;
      else if (h.state === 'connected') down = this.down.note(h.name, false, from, now) || down;
      blind = this.blind.note(h.name, !SEEN_STATES.has(h.state), from, now) || blind;
    }
    if (down) this.down.save();
    if (blind) this.blind.save();
  }

  /** The host's outages, oldest first. */
  of(host: string): readonly Outage[] {
    return this.down.of(host);
  }

  /** The host's stretches in a state that shows nothing of it, oldest first (`until` null: still). */
  blindOf(host: string): readonly Outage[] {
    return this.blind.of(host);
  }
}

/** The parts of `from`–`to` Loopdeck did not watch `host`: not running, or the host in a state that shows nothing. */
export function runnerUnwatched(host: string, from: number, to: number, outages: HostOutages, watched: WatchedTime): Span[] {
  const blind = outages.blindOf(host).map((b) => ({ since: Math.max(b.since, from), until: Math.min(b.until ?? to, to) }));
  return [...watched.unwatched(from, to), ...blind.filter((b) => b.until > b.since)];
}

/**
 * Who a bad phase is put down to: its window laid against the runner host's outages and the
 * trouble on the fleet the loop uses, the runner's load while it ran (the phase's `contention`),
 * and what Loopdeck did not watch of either (main/core/loops/attribution.ts).
 */
export function phaseCause(
  loop: { readonly host: string; readonly uses?: readonly string[] | undefined },
  phase: Phase,
  now: Date,
  seen: { readonly outages: HostOutages; readonly watched: WatchedTime },
  fleetIn: (proxies: readonly string[] | null, from: number, to: number) => FleetWindow,
): FailureCause {
  const local = phase.cause ?? AGENT_CAUSE;
  const start = Date.parse(phase.startedAt ?? '');
  if (Number.isNaN(start)) return local;
  const ended = Date.parse(phase.endedAt ?? '');
  const end = Number.isNaN(ended) ? now.getTime() : ended;
  const fleet = fleetIn(loop.uses ?? null, start, end);
  return attribute({
    start,
    end,
    local,
    runner: loop.host,
    outages: seen.outages.of(loop.host),
    fleet: fleet.episodes,
    runnerUnwatched: runnerUnwatched(loop.host, start, end, seen.outages, seen.watched),
    fleetUnwatched: fleet.unwatched,
    contention: phase.contention ?? null,
  });
}
