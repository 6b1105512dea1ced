import type { FailureCause, HostState, Phase } from '../../../shared/domain';
import type { FleetWindow } from '../capacity/history/fleet-windows';
import { ownEntry, type Config } from '../config/schema';
import { AGENT_CAUSE } from '../loops/phase-status';
import type { Store } from '../store/store';
import { HostOutages, phaseCause } from './host-outages';
import { WatchedTime } from '../state/watched-time';

/**
 * Who bad phases are put down to, from what Loopdeck watched: the runner hosts' outages and blind
 * stretches, when Loopdeck ran at all, and the fleet's history over each window. The engine tells
 * it of each poll and of the hosts' states; followed and old nights ask it alike.
 */
export class PhaseCauses {
  private readonly outages: HostOutages;
  private readonly watched: WatchedTime;

  constructor(
    store: Store,
    private readonly config: Config,
    private readonly fleetIn: (proxies: readonly string[] | null, from: number, to: number) => FleetWindow,
  ) {
    this.outages = new HostOutages(store);
    this.watched = new WatchedTime(store);
  }

  /** Loopdeck is running at `now` (each poll). */
  tick(now: number): void {
    this.watched.tick(now);
  }

  /** The hosts' states as published. */
  noteHosts(states: readonly HostState[], now: number): void {
    this.outages.note(states, now);
  }

  /** The cause of a bad phase of `loop`. */
  of(loop: Config['loops'][string], phase: Phase, now: Date): FailureCause {
    return phaseCause(loop, phase, now, { outages: this.outages, watched: this.watched }, this.fleetIn);
  }

  /** The same by loop name (an old night's); a name not in the config keeps what its files tell. */
  ofLoop(name: string, phase: Phase, now: Date): FailureCause {
    const loop = ownEntry(this.config.loops, name);
    return loop ? this.of(loop, phase, now) : (phase.cause ?? AGENT_CAUSE);
  }
}
