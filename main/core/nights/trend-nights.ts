import type { ContractBreach } from '../../../shared/contract-breach';
import type { KeyedDelta } from '../../../shared/deltas';
import type { BacklogItem, Cycle, FailureCause, Finding, Phase } from '../../../shared/domain';
import { markHollow } from '../../../shared/hollow';
import { summarizeCycle, type NightBreaches, type NightSummary } from '../../../shared/night-summary';
import { addDays, breachCounts, nightBreaches, nightKey, sameBreaches } from '../../../shared/trends';
import type { Config } from '../config/schema';
import { isCycleFolder } from '../text/cycle-layout';
import { log } from '../logging/log';
import type { FileSource } from '../sources/file-source';
import type { Store } from '../store/store';
import { NightRows } from './night-rows';
import { roundAmount } from '../../../shared/night-cost';
import { windowCost } from '../costs/night-cost';
import { BudgetWatch } from '../costs/budget-watch';
import { OpenedIndex } from './opened-index';
import { readOldNight } from './old-night';

/** Nights older than the followed window read per loop per poll on a first start: a poll stays short. */
export const HISTORY_CHUNK = 8;

/** What the history needs of the engine. */
export interface TrendNightsOptions {
  /** Who a bad phase of an old night is put down to, as a followed one is (attribution.ts); without it, what its files tell. */
  readonly causeOf?: (loop: string, phase: Phase, now: Date) => FailureCause;
  /** Resolves once the fleet's history the causes asked for is read (Prometheus's, for a night Loopdeck slept through). */
  readonly causesSettled?: () => Promise<void>;
  readonly store: Store;
  readonly config: Config;
  readonly now: () => Date;
  readonly backlogOf: (loop: string) => readonly BacklogItem[];
}

/** A loop's older nights still to read once: listed once per process, read HISTORY_CHUNK a poll. */
interface Backfill {
  todo: string[] | null;
}

/**
 * Each loop's nights kept in the store (the `nights` table) so Trends reaches back `history`
 * nights whatever `cycles` is, across restarts. A followed cycle that changed re-writes its own
 * night's row (`note`, from the cycles the engine publishes: cost proportional to change). Nights
 * older than the followed window that have no row yet are read once (`backfill`), a chunk a poll,
 * and only their summaries kept — never their records or offsets.
 */
export class TrendNights {
  readonly rows: NightRows;
  private readonly backfills = new Map<string, Backfill>();
  private written: NightSummary[] = [];
  /** Each loop's new findings by night, once its ledgers were read. */
  private readonly opened = new Map<string, OpenedIndex>();
  /** Old nights read from the host since this object was made (tests read it). */
  oldNightsRead = 0;
  /** The Broken contract list last noted, and its items counted by night (null before the first). */
  private contract: readonly ContractBreach[] | null = null;
  private breaches: Map<string, NightBreaches> | null = null;
  /** Whether the last counts could not all be written: the next list checks every followed night. */
  private breachesStale = false;

  /** The month's spend against `costs.budget.monthly`, moved by the priced nights written (the budget notice reads it). */
  readonly budget: BudgetWatch;

  constructor(private readonly options: TrendNightsOptions) {
    this.rows = new NightRows(options.store);
    this.budget = new BudgetWatch(options.config.costs, this.rows);
  }

  /** Old nights' bad phases put down as a followed night's are (their files' own cause is the fallback). */
  private attributed(loop: string, cycles: readonly Cycle[], now: Date): Cycle[] {
    const causeOf = this.options.causeOf;
    if (!causeOf) return [...cycles];
    return cycles.map((c) => ({ ...c, phases: c.phases.map((p) => (p.cause ? { ...p, cause: causeOf(loop, p, now) } : p)) }));
  }

  /** A loop's followed cycles that changed (as published: hollow marked): keep their nights. */
  note(loop: string, cycles: readonly Cycle[]): void {
    this.keep(loop, cycles, true);
  }

  /**
   * Keep these nights' summaries. A followed night has its breaches counted from the last list
   * (before the first, the count its row already has); an older one, read once, has none (not known).
   */
  private keep(loop: string, cycles: readonly Cycle[], followed: boolean): void {
    if (cycles.length === 0 || !this.options.config.loops[loop]) return;
    const at = this.options.now().toISOString();
    try {
      const opened = this.opened.get(loop);
      const rows = followed && this.breaches === null ? new Map(this.rows.get(loop, cycles.map((c) => c.date)).map((n) => [n.date, n])) : null;
      const nights = cycles.map((c) => {
        const night = this.withTokens(summarizeCycle(loop, c, opened?.counts(c.date)));
        const breaches = nightBreaches(this.breaches, loop, c.date, followed, rows?.get(c.date));
        return breaches ? { ...night, breaches } : night;
      });
      this.written.push(...this.rows.put(nights, at));
    } catch (err) {
      // A full data folder (the store says so) must not stop the cycles being published: a night
      // not kept now is kept at its next change, or read once at the next start (it has no row).
      if (this.options.store.noteFailure(err, 'keeping nights for Trends') === null) log.warn(`Loop ${loop}: nights for Trends could not be kept.`, err);
    }
  }

  /**
   * A loop's ledgers changed (a delta, or all of them on a first read): the kept nights whose count
   * of new findings moved get it in their rows (only those rows).
   */
  ledgers(loop: string, findings: KeyedDelta<Finding>): void {
    if (findings.upserted.length === 0 && findings.removed.length === 0) return;
    let index = this.opened.get(loop);
    if (!index) this.opened.set(loop, (index = new OpenedIndex()));
    const moved = index.apply(findings);
    if (moved.size === 0) return;
    const kept = this.rows.get(loop, [...moved]);
    if (kept.length === 0) return;
    const counts = index;
    try {
      this.written.push(...this.rows.put(kept.map((n) => ({ ...n, opened: counts.counts(n.date) })), this.options.now().toISOString()));
    } catch (err) {
      if (this.options.store.noteFailure(err, 'keeping nights for Trends') === null) log.warn(`Loop ${loop}: nights for Trends could not be kept.`, err);
    }
  }

  /**
   * The Broken contract list as published (the engine calls this after each poll; the same list
   * again costs nothing): each followed night (`followedOf`: a loop's cycles in its state) whose
   * count of the list's items moved gets it in its row, only those rows, then `nights.changed`
   * carries them (takeWritten). Nights past the followed window keep the count they were last
   * written with; one never followed with a list has none.
   */
  noteContract(list: readonly ContractBreach[], followedOf: (loop: string) => readonly Pick<Cycle, 'date'>[] | undefined): void {
    if (list === this.contract && !this.breachesStale) return;
    const counts = breachCounts(list);
    const was = this.breachesStale ? null : this.breaches;
    this.contract = list;
    this.breaches = counts;
    this.breachesStale = false;
    // Only the nights whose counts moved (all followed nights on the first list, or after a failed write).
    const moved = was === null ? null : new Set([...was.keys(), ...counts.keys()].filter((k) => !sameBreaches(was.get(k), counts.get(k))));
    if (moved?.size === 0) return;
    const at = this.options.now().toISOString();
    for (const loop of Object.keys(this.options.config.loops)) {
      const dates = (followedOf(loop) ?? []).map((c) => c.date).filter((d) => moved === null || moved.has(nightKey(loop, d)));
      if (dates.length === 0) continue;
      try {
        const changed: NightSummary[] = [];
        for (const n of this.rows.get(loop, dates)) {
          const breaches = nightBreaches(counts, loop, n.date, true, n);
          if (breaches && !sameBreaches(n.breaches, breaches)) changed.push({ ...n, breaches });
        }
        this.written.push(...this.rows.put(changed, at));
      } catch (err) {
        this.breachesStale = true;
        if (this.options.store.noteFailure(err, 'keeping nights for Trends') === null) log.warn(`Loop ${loop}: the contract breaches of its nights for Trends could not be kept.`, err);
      }
    }
  }

  /**
   * Each finished phase's fleet tokens over its window (one indexed range query a phase), and what
   * the window cost when the config prices the fleet (`costs:`; main/core/costs/night-cost.ts):
   * the proxies the loop `uses`, all of them when it names none.
   */
  private withTokens(night: NightSummary): NightSummary {
    const costs = this.options.config.costs;
    const uses = this.options.config.loops[night.loop]?.uses;
    let currency: string | undefined;
    const phases = night.phases.map((p) => {
      const from = p.startedAt ? Date.parse(p.startedAt) : NaN;
      const to = p.endedAt ? Date.parse(p.endedAt) : NaN;
      if (!Number.isFinite(from) || !Number.isFinite(to) || to < from) return p;
      const tokens = this.rows.tokensBetween(from, to);
      const cost = windowCost({ store: this.options.store, now: this.options.now().getTime() }, from, to, costs, uses ? { proxies: uses } : {});
      if (cost) currency = cost.currency;
      return { ...p, ...(tokens === null ? {} : { tokens }), ...(cost ? { cost: roundAmount(cost.amount) } : {}) };
    });
    return { ...night, phases, ...(currency ? { currency } : {}) };
  }

  /** The nights written since the last call (for `nights.changed`). */
  takeWritten(): NightSummary[] {
    const out = this.written;
    this.written = [];
    if (out.length > 0) this.budget.note(out);
    return out;
  }

  /** Whether the loop's older nights are all read (or it has none): its backfill has nothing left to do. */
  caughtUp(loop: string): boolean {
    return this.backfills.get(loop)?.todo?.length === 0;
  }

  /** Whether some loop still has older nights to read (poll again soon). */
  get pending(): boolean {
    for (const b of this.backfills.values()) if (b.todo === null || b.todo.length > 0) return true;
    return false;
  }

  /**
   * Read up to HISTORY_CHUNK of a loop's older nights without a row (after its followed window,
   * `followed` newest first, is known): the first call lists the runs folder once.
   */
  async backfill(loop: string, source: FileSource | undefined, followed: readonly Cycle[]): Promise<void> {
    const config = this.options.config.loops[loop];
    const oldest = followed.at(-1)?.date;
    if (!config || !source || oldest === undefined) return;
    let b = this.backfills.get(loop);
    if (!b) this.backfills.set(loop, (b = { todo: null }));
    if (b.todo === null) b.todo = await this.olderNights(loop, source, followed[0]?.date ?? oldest, oldest);
    if (b.todo.length === 0) return;
    const now = this.options.now();
    const chunk = b.todo.splice(0, HISTORY_CHUNK);
    const read = (await Promise.all(chunk.map((d) => readOldNight(source, loop, config, d, now)))).filter((c): c is Cycle => c !== null);
    let cycles = this.attributed(loop, read, now);
    // A cause not known yet may be once the fleet's history it asked for is read: a kept night is written once.
    if (this.options.causesSettled && cycles.some((c) => c.phases.some((p) => p.cause?.kind === 'unknown'))) {
      await this.options.causesSettled();
      cycles = this.attributed(loop, read, now);
    }
    this.oldNightsRead += cycles.length;
    this.keep(loop, markHollow(cycles, this.options.backlogOf(loop)), false);
  }

  /** A loop's cycle folders older than `oldest` and within `history` nights of `newest`, with no kept row, newest first. */
  private async olderNights(loop: string, source: FileSource, newest: string, oldest: string): Promise<string[]> {
    const config = this.options.config.loops[loop];
    if (!config) return [];
    const from = addDays(newest, -(config.history - 1));
    if (from >= oldest) return [];
    const names = source.dirs ? ((await source.dirs(config.runs))?.entries ?? []) : ((await source.list(config.runs))?.entries ?? []).filter((e) => e.isDirectory).map((e) => e.name);
    const kept = this.rows.dates(loop);
    return names
      .filter((d) => isCycleFolder(d) && d >= from && d < oldest && !kept.has(d))
      .sort()
      .reverse();
  }

  /** Each configured loop's kept nights (or one loop's), its `history` nights (or `nights`, if fewer) back from its newest, oldest first. */
  list(loop?: string, nights = Infinity): NightSummary[] {
    const out: NightSummary[] = [];
    for (const [name, cfg] of Object.entries(this.options.config.loops)) {
      if (loop !== undefined && loop !== name) continue;
      const newest = this.rows.newest(name);
      if (newest !== null) out.push(...this.rows.list(name, addDays(newest, -(Math.min(cfg.history, nights) - 1))));
    }
    return out;
  }
}
