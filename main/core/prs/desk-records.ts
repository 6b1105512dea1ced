import type { DeskMerge } from '../../../shared/pr-desk';
import type { Store } from '../store/store';

interface TickRow {
  loop: string;
  number: number;
  step: number;
  text: string;
  done_by: string;
  done_at: string;
}

interface MergeRow {
  loop: string;
  number: number;
  sha: string;
  method: DeskMerge['method'];
  merged_by: string;
  merged_at: string;
}

/** A Next step ticked done. */
export interface StepTick {
  readonly text: string;
  readonly by: string;
  readonly at: string;
}

const key = (loop: string, number: number): string => `${loop}\u0000${number}`;

/**
 * The desk's records in the store (tables `pr_next_done`, `pr_merges`): who ticked each Next step
 * and who merged what. Held in memory after one read at the start; each change is written through.
 */
export class DeskRecords {
  private readonly q;
  private ticks: Map<string, Map<number, StepTick>> | null = null;
  private merges: Map<string, DeskMerge> | null = null;

  constructor(store: Store) {
    this.q = {
      ticks: store.query<[], TickRow>('SELECT * FROM pr_next_done'),
      tick: store.query<[loop: string, number: number, step: number, text: string, by: string, at: string]>(
        'INSERT OR REPLACE INTO pr_next_done (loop, number, step, text, done_by, done_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      merges: store.query<[], MergeRow>('SELECT * FROM pr_merges'),
      merge: store.query<[loop: string, number: number, sha: string, method: string, by: string, at: string]>(
        'INSERT OR REPLACE INTO pr_merges (loop, number, sha, method, merged_by, merged_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  /** The ticks of one PR, by step index. */
  ticksOf(loop: string, number: number): ReadonlyMap<number, StepTick> {
    return this.allTicks().get(key(loop, number)) ?? new Map();
  }

  /** Record that `by` did step `step` (whose text is `text`) at `at`. */
  tick(loop: string, number: number, step: number, text: string, by: string, at: string): void {
    this.q.tick.run(loop, number, step, text, by, at);
    const all = this.allTicks();
    const k = key(loop, number);
    const of = all.get(k) ?? new Map<number, StepTick>();
    of.set(step, { text, by, at });
    all.set(k, of);
  }

  /** The console's merge of a PR, or null. */
  mergeOf(loop: string, number: number): DeskMerge | null {
    return this.allMerges().get(key(loop, number)) ?? null;
  }

  /** Every merge made from the console, with its PR. */
  allMerged(): { readonly loop: string; readonly number: number; readonly merge: DeskMerge }[] {
    return [...this.allMerges()].map(([k, merge]) => {
      const [loop = '', number = '0'] = k.split('\u0000');
      return { loop, number: Number(number), merge };
    });
  }

  /** Record a merge made from the console. */
  merged(loop: string, number: number, merge: DeskMerge): void {
    this.q.merge.run(loop, number, merge.sha, merge.method, merge.by, merge.at);
    this.allMerges().set(key(loop, number), merge);
  }

  private allTicks(): Map<string, Map<number, StepTick>> {
    if (this.ticks) return this.ticks;
    const all = new Map<string, Map<number, StepTick>>();
    for (const r of this.q.ticks.all()) {
      const k = key(r.loop, r.number);
      const of = all.get(k) ?? new Map<number, StepTick>();
      of.set(r.step, { text: r.text, by: r.done_by, at: r.done_at });
      all.set(k, of);
    }
    return (this.ticks = all);
  }

  private allMerges(): Map<string, DeskMerge> {
    if (this.merges) return this.merges;
    return (this.merges = new Map(this.q.merges.all().map((r) => [key(r.loop, r.number), { by: r.merged_by, at: r.merged_at, sha: r.sha, method: r.method }])));
  }
}
