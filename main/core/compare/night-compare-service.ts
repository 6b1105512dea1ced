import type { CycleStatus, FailureCause, LoopState, Phase } from '../../../shared/domain';
import type { CompareNightsInput, NightComparison } from '../../../shared/night-compare';
import { HOST_NOT_REACHABLE_NOW } from '../../../shared/transcript-domain';
import { ownEntry, type Config } from '../config/schema';
import { isReachable, type HostTable } from '../hosts/host-table';
import type { QueryMaker } from '../store/query';
import { compareNights, NightCompareError, type CompareLedgers } from './compare-nights';
import { NightFleet } from './night-fleet';

/** What the service reads of the engine. */
export interface NightCompareServiceOptions {
  readonly config: Config;
  readonly hosts: Pick<HostTable, 'get'>;
  /** The data folder's store: the capacity history is read through it. */
  readonly store: QueryMaker;
  readonly now: () => Date;
  /** The loops' state as derived so far: a followed night's cycle is taken from it (causes and commits included). */
  readonly loops: () => Iterable<LoopState>;
  /** A loop's ledgers as last read; null before they are. */
  readonly ledgersOf?: (loop: string) => CompareLedgers | null;
  /** A night's status as kept for Trends, or null. */
  readonly keptStatus?: (loop: string, date: string) => CycleStatus | null;
  /** Who a bad phase of a night read from its files is put down to. */
  readonly causeOf?: (loop: string, phase: Phase, now: Date) => FailureCause;
}

/**
 * Night against night for the console (`nights.compare`) and the CLI (`loopdeck compare`):
 * resolves the loop's config and host, then compares (compare-nights.ts). One comparison at a
 * time: each streams up to two transcripts a phase from the host, and a second asked meanwhile
 * waits for the first rather than doubling what the host is asked for.
 */
export class NightCompareService {
  private readonly fleet: NightFleet;
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: NightCompareServiceOptions) {
    this.fleet = new NightFleet(o.store);
  }

  /** Compare night `a` of `loop` with night `b` (default: the last good night before `a`); a NightCompareError names what is missing. */
  compare(input: CompareNightsInput): Promise<NightComparison> {
    const run = this.last.then(() => this.run(input));
    this.last = run.catch(() => undefined);
    return run;
  }

  private async run({ loop, a, b }: CompareNightsInput): Promise<NightComparison> {
    const { config, hosts } = this.o;
    const cfg = ownEntry(config.loops, loop);
    if (!cfg) throw new NightCompareError(`Unknown loop ${JSON.stringify(loop)}: the config's loops are ${Object.keys(config.loops).join(', ') || 'none'}.`);
    const host = hosts.get(cfg.host);
    if (!host || !isReachable(host) || !host.source) {
      throw new NightCompareError(`Loop ${loop}: host ${cfg.host} ${HOST_NOT_REACHABLE_NOW}, so its nights cannot be read.`);
    }
    const followed = [...this.o.loops()].find((l) => l.name === loop)?.cycles ?? [];
    const { ledgersOf, keptStatus, causeOf } = this.o;
    return compareNights({
      loop,
      config: cfg,
      source: host.source,
      fleet: this.fleet,
      now: this.o.now(),
      a,
      ...(b !== undefined ? { b } : {}),
      cycleOf: (date) => followed.find((c) => c.date === date),
      ledgers: ledgersOf?.(loop) ?? null,
      ...(keptStatus ? { keptStatus: (date: string) => keptStatus(loop, date) } : {}),
      ...(causeOf ? { causeOf: (phase: Phase, now: Date) => causeOf(loop, phase, now) } : {}),
    });
  }
}
