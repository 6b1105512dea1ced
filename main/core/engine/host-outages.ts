import type { FailureCause, HostState, Phase } from '../../../shared/domain';
import { attribute, type Outage, type TroubleEpisode } from '../loops/attribution';
import { AGENT_CAUSE } from '../loops/phase-status';
import type { Store } from '../store/store';

// When each host could not be reached, as Loopdeck saw it: what failure attribution lays a bad
// phase's window against (the runner down is the runner's fault, not the agent's). Kept in the
// store's meta as one small JSON, bounded per host, written only when a host's state changes.

const META_KEY = 'hosts.outages';
/** Outages kept per host (the newest). */
export const OUTAGES_KEPT = 200;
/** States in which the host could not be reached (not the ones only the operator can fix). */
const DOWN_STATES: ReadonlySet<HostState['state']> = new Set(['reconnecting', 'unreachable']);

export class HostOutages {
  private readonly byHost: Map<string, Outage[]>;

  constructor(private readonly store: Store) {
    this.byHost = new Map(Object.entries(this.read()));
  }

  private read(): Record<string, Outage[]> {
    try {
      const raw = JSON.parse(this.store.getMeta(META_KEY) ?? '{}') as unknown;
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

  /** Note the hosts' states (as published when they change): a host going down opens an outage from its `since`, one back up closes it. */
  note(states: readonly HostState[], now: number): void {
    let changed = false;
    for (const h of states) {
      const list = this.byHost.get(h.name) ?? [];
      const open = list.at(-1)?.until === null ? list.at(-1) : undefined;
      if (DOWN_STATES.has(h.state) && !open) {
        const since = h.since ? Date.parse(h.since) : now;
        list.push({ since: Number.isNaN(since) ? now : since, until: null });
        this.byHost.set(h.name, list.slice(-OUTAGES_KEPT));
        changed = true;
      } else if (h.state === 'connected' && open) {
        list[list.length - 1] = { since: open.since, until: now };
        changed = true;
      }
    }
    if (changed) this.store.setMeta(META_KEY, JSON.stringify(Object.fromEntries(this.byHost)));
  }

  /** The host's outages, oldest first. */
  of(host: string): readonly Outage[] {
    return this.byHost.get(host) ?? [];
  }
}

/**
 * Who a bad phase is put down to: its window laid against the runner host's outages and the
 * trouble on the fleet the loop uses (main/core/loops/attribution.ts).
 */
export function phaseCause(
  loop: { readonly host: string; readonly uses?: readonly string[] | undefined },
  phase: Phase,
  now: Date,
  outages: HostOutages,
  troubleIn: (proxies: readonly string[] | null, from: number, to: number) => TroubleEpisode[],
): FailureCause {
  const local = phase.cause ?? AGENT_CAUSE;
  const start = Date.parse(phase.startedAt ?? '');
  if (Number.isNaN(start)) return local;
  const ended = Date.parse(phase.endedAt ?? '');
  const end = Number.isNaN(ended) ? now.getTime() : ended;
  return attribute({ start, end, local, runner: loop.host, outages: outages.of(loop.host), fleet: troubleIn(loop.uses ?? null, start, end) });
}
