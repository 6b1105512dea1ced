import type { PhaseContention } from '../../../shared/domain';
import type { LoadSample } from '../sources/host-load';
import type { Store } from '../store/store';

// The runner's load over each running phase (issue "Night against night", item 3): samples of the
// host's load average, cores and free memory, taken with requests the poll makes anyway, folded
// into one small aggregate per phase (never the samples themselves). Kept in the store's meta as
// small JSON, written at most once a PERSIST_MS (and on close), so a restart keeps what a phase
// was seen to suffer; the meta table needs no migration.

/** Load per core above which the runner is contended: twice as many runnable tasks as cores. */
export const CONTENDED_LOAD_PER_CORE = 2;
/** The share of a phase's sampled time the runner must be contended for the phase to count as contended. */
export const CONTENDED_SHARE = 0.25;
/** The least contended time that counts (ms): one sample above the line in a short window is a blip. */
export const MIN_CONTENDED_MS = 2 * 60_000;
/**
 * The longest stretch between two samples counted as watched (ms): a host read whole only every few
 * minutes (a large fleet, see watch-scope.ts) is still sampled; past this, Loopdeck was not
 * running or could not reach the host, and that stretch is not claimed.
 */
export const MAX_SAMPLE_GAP_MS = 10 * 60_000;
/** A host is asked for its load at most this often while a phase runs on it (ms): the 1-minute average moves slowly. */
export const SAMPLE_EVERY_MS = 30_000;
/** Phases whose aggregate is kept (the newest sampled): a few months of a handful of loops. */
export const CONTENTION_KEPT = 500;
/** How often the aggregates are written to the store at most (ms). */
export const PERSIST_MS = 60_000;

const META_KEY = 'loops.contention';

/** One phase's aggregate as kept: the figures shown, and when it was last sampled (ms). */
interface Kept {
  samples: number;
  peak: number;
  cores: number;
  minFree: number | null;
  contendedMs: number;
  watchedMs: number;
  lastAt: number;
}

/** Whether a phase's sampled window was contended: above the line for MIN_CONTENDED_MS and CONTENDED_SHARE of it. */
export function isContended(contendedMs: number, watchedMs: number): boolean {
  return contendedMs >= MIN_CONTENDED_MS && contendedMs >= CONTENDED_SHARE * watchedMs;
}

const key = (loop: string, date: string, phase: string): string => `${loop}\u0000${date}\u0000${phase}`;

/** Each phase's load aggregate, by loop, cycle date and phase, kept across restarts. */
export class ContentionBook {
  private readonly byPhase: Map<string, Kept>;
  private persistedAt = Number.NEGATIVE_INFINITY;
  private dirty = false;

  constructor(private readonly store: Store) {
    this.byPhase = read(store.getMeta(META_KEY));
  }

  /**
   * A sample of the phase's host at `at` (ms): the stretch since the phase's previous sample
   * (up to MAX_SAMPLE_GAP_MS) counts as watched, and as contended when this sample is above the line
   * (the 1-minute average trails: it speaks for the minute before it).
   */
  record(loop: string, date: string, phase: string, sample: LoadSample, at: number): void {
    const k = key(loop, date, phase);
    const perCore = sample.load1 / sample.cores;
    const kept = this.byPhase.get(k);
    if (!kept) {
      this.byPhase.set(k, { samples: 1, peak: perCore, cores: sample.cores, minFree: sample.freeBytes, contendedMs: 0, watchedMs: 0, lastAt: at });
      this.prune();
    } else {
      const gap = at - kept.lastAt;
      if (gap > 0 && gap <= MAX_SAMPLE_GAP_MS) {
        kept.watchedMs += gap;
        if (perCore > CONTENDED_LOAD_PER_CORE) kept.contendedMs += gap;
      }
      kept.samples++;
      kept.peak = Math.max(kept.peak, perCore);
      kept.cores = sample.cores;
      if (sample.freeBytes !== null) kept.minFree = kept.minFree === null ? sample.freeBytes : Math.min(kept.minFree, sample.freeBytes);
      kept.lastAt = Math.max(kept.lastAt, at);
    }
    this.dirty = true;
    if (at - this.persistedAt >= PERSIST_MS) this.flush(at);
  }

  /** The phase's aggregate as a Phase shows it; undefined when it was never sampled. */
  of(loop: string, date: string, phase: string): PhaseContention | undefined {
    const kept = this.byPhase.get(key(loop, date, phase));
    if (!kept) return undefined;
    return {
      samples: kept.samples,
      peakLoadPerCore: Math.round(kept.peak * 100) / 100,
      cores: kept.cores,
      minFreeBytes: kept.minFree,
      contendedMs: kept.contendedMs,
      watchedMs: kept.watchedMs,
      contended: isContended(kept.contendedMs, kept.watchedMs),
    };
  }

  /** Write what changed since the last write (each PERSIST_MS, and when the engine closes). */
  flush(at = Date.now()): void {
    if (!this.dirty) return;
    try {
      this.store.setMeta(META_KEY, JSON.stringify([...this.byPhase].map(([k, v]) => [k, v.samples, v.peak, v.cores, v.minFree, v.contendedMs, v.watchedMs, v.lastAt])));
      this.dirty = false;
      this.persistedAt = at;
    } catch {
      // A full data folder is the store's to say; the aggregates stay in memory meanwhile.
    }
  }

  /** Keep the CONTENTION_KEPT phases sampled last. */
  private prune(): void {
    if (this.byPhase.size <= CONTENTION_KEPT) return;
    const oldest = [...this.byPhase].sort((a, b) => a[1].lastAt - b[1].lastAt).slice(0, this.byPhase.size - CONTENTION_KEPT);
    for (const [k] of oldest) this.byPhase.delete(k);
  }
}

/** The stored aggregates; anything else (an older or damaged value) is none. */
function read(raw: string | null): Map<string, Kept> {
  const out = new Map<string, Kept>();
  try {
    const v = JSON.parse(raw ?? '[]') as unknown;
    if (!Array.isArray(v)) return out;
    for (const row of v) {
      if (!Array.isArray(row) || typeof row[0] !== 'string') continue;
      const [k, samples, peak, cores, minFree, contendedMs, watchedMs, lastAt] = row as unknown[];
      const nums = [samples, peak, cores, contendedMs, watchedMs, lastAt];
      if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n)) || (minFree !== null && typeof minFree !== 'number')) continue;
      if ((cores as number) < 1 || !Number.isInteger(cores)) continue;
      out.set(k as string, { samples: samples as number, peak: peak as number, cores: cores as number, minFree: minFree as number | null, contendedMs: contendedMs as number, watchedMs: watchedMs as number, lastAt: lastAt as number });
    }
  } catch {
    return out;
  }
  return out;
}
