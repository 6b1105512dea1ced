import type { Cycle } from '../../../shared/domain';
import { SAMPLE_EVERY_MS, type ContentionBook } from '../loops/contention';
import type { LoadSample } from '../sources/host-load';
import type { FileSource } from '../sources/file-source';

/** A loop follower as the sampling sees it: its host, its cycles as last derived, and a way to have one derived again. */
export interface LoadedLoop {
  readonly name: string;
  readonly host: string;
  cycles(): readonly Cycle[];
  touch(date: string): void;
}

/** What the sampling is made from. */
export interface RunnerLoadOptions {
  readonly loops: readonly LoadedLoop[];
  readonly book: ContentionBook;
  readonly sourceOf: (host: string) => FileSource | null | undefined;
  readonly reachable: (host: string) => boolean;
  readonly now: () => Date;
}

/**
 * The runner hosts' load while a phase runs on them (issue "Night against night", item 3). At the
 * start of a poll each host with a running phase is asked for its load, at most once a poll and
 * once a SAMPLE_EVERY_MS, through its source: over SSH the question rides on the next request the
 * poll makes to that host anyway (no connection, channel or request of its own); on this machine
 * the OS answers at once. A host with nothing running is never asked. The answer goes to every
 * running phase of the host's loops (ContentionBook), whose cycles are then derived again.
 */
export class RunnerLoad {
  /** When each host was last asked (engine clock, ms). */
  private readonly askedAt = new Map<string, number>();
  /** Hosts whose question no request has carried yet: not asked again meanwhile. */
  private readonly waiting = new Set<string>();
  /** Whether a cycle list (as a follower returns it, rebuilt only when a cycle changed) holds a running phase. */
  private readonly running = new WeakMap<readonly Cycle[], boolean>();

  constructor(private readonly o: RunnerLoadOptions) {}

  /** A poll begins at `nowMs`: ask the hosts with a running phase whose sample is due. */
  ask(nowMs: number): void {
    for (const host of this.busyHosts()) {
      if (this.waiting.has(host) || nowMs - (this.askedAt.get(host) ?? Number.NEGATIVE_INFINITY) < SAMPLE_EVERY_MS) continue;
      const source = this.o.sourceOf(host);
      if (!source?.loadWith || !this.o.reachable(host)) continue;
      this.askedAt.set(host, nowMs);
      this.waiting.add(host);
      source.loadWith((sample) => {
        this.waiting.delete(host);
        if (sample) this.took(host, sample);
      });
    }
  }

  /** The hosts where some loop has a running phase, as last derived. */
  private busyHosts(): Set<string> {
    const hosts = new Set<string>();
    for (const loop of this.o.loops) if (!hosts.has(loop.host) && this.hasRunning(loop.cycles())) hosts.add(loop.host);
    return hosts;
  }

  private hasRunning(cycles: readonly Cycle[]): boolean {
    let known = this.running.get(cycles);
    if (known === undefined) {
      known = cycles.some((c) => c.phases.some((p) => p.status === 'running'));
      this.running.set(cycles, known);
    }
    return known;
  }

  /** A host's load came back: each running phase of its loops takes it. */
  private took(host: string, sample: LoadSample): void {
    const at = this.o.now().getTime();
    for (const loop of this.o.loops) {
      if (loop.host !== host || !this.hasRunning(loop.cycles())) continue;
      for (const c of loop.cycles()) {
        let touched = false;
        for (const p of c.phases) {
          if (p.status !== 'running') continue;
          this.o.book.record(loop.name, c.date, p.name, sample, at);
          touched = true;
        }
        if (touched) loop.touch(c.date);
      }
    }
  }

  /** Write the aggregates now (the engine closes). */
  flush(): void {
    this.o.book.flush(this.o.now().getTime());
  }
}
