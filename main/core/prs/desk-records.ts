import { DeskPrSchema, type DeskMerge, type DeskPr } from '../../../shared/pr-desk';
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
  card: string | null;
}

/** A merge made from the console, with the PR's card as it was merged (null when unreadable). */
export interface MergeRecord {
  readonly loop: string;
  readonly number: number;
  readonly merge: DeskMerge;
  readonly card: DeskPr | null;
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
  private merges: Map<string, MergeRecord> | null = null;

  constructor(store: Store) {
    this.q = {
      ticks: store.query<[], TickRow>('SELECT * FROM pr_next_done'),
      tick: store.query<[loop: string, number: number, step: number, text: string, by: string, at: string]>(
        'INSERT OR REPLACE INTO pr_next_done (loop, number, step, text, done_by, done_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      merges: store.query<[], MergeRow>('SELECT * FROM pr_merges'),
      merge: store.query<[loop: string, number: number, sha: string, method: string, by: string, at: string, card: string]>(
        'INSERT OR REPLACE INTO pr_merges (loop, number, sha, method, merged_by, merged_at, card) VALUES (?, ?, ?, ?, ?, ?, ?)',
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
    return this.allMerges().get(key(loop, number))?.merge ?? null;
  }

  /** Every merge made from the console, with its PR's card as merged. */
  allMerged(): readonly MergeRecord[] {
    return [...this.allMerges().values()];
  }

  /** Record a merge made from the console, with the card of the PR merged (`card.merged` is this merge). */
  merged(card: DeskPr, merge: DeskMerge): void {
    const { loop, number } = card;
    const kept: DeskPr = { ...card, merged: merge };
    this.q.merge.run(loop, number, merge.sha, merge.method, merge.by, merge.at, JSON.stringify(kept));
    this.allMerges().set(key(loop, number), { loop, number, merge, card: kept });
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

  private allMerges(): Map<string, MergeRecord> {
    if (this.merges) return this.merges;
    const all = new Map<string, MergeRecord>();
    for (const r of this.q.merges.all()) {
      const merge: DeskMerge = { by: r.merged_by, at: r.merged_at, sha: r.sha, method: r.method };
      all.set(key(r.loop, r.number), { loop: r.loop, number: r.number, merge, card: readCard(r.card) });
    }
    return (this.merges = all);
  }
}

/** A stored card, or null when absent or not a card (written by another version): the merge still counts. */
function readCard(text: string | null): DeskPr | null {
  if (text === null) return null;
  try {
    const parsed = DeskPrSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
