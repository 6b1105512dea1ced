import type { EventPayload } from '../../../shared/contract';
import { deltaRows, LEDGER_DELTA_MAX_ROWS } from '../../../shared/deltas';
import type { LedgerCounts } from '../../../shared/ledger-slice';
import type { LedgerPoll, LoopLedgers } from './ledger-follower';

/** What one loop's ledger poll publishes: its deltas, or a reset when they are too many rows. */
export type LedgerEvent =
  | { readonly event: 'ledgers.changed'; readonly payload: EventPayload<'ledgers.changed'> }
  | { readonly event: 'ledgers.reset'; readonly payload: EventPayload<'ledgers.reset'> };

/**
 * Every loop's ledgers as last read, and what a poll of one of them publishes. The snapshot lists
 * them in config order; a change of more than LEDGER_DELTA_MAX_ROWS rows (the first poll after a
 * restart reports everything stored) goes out as one `ledgers.reset`, not as every row.
 */
export class LedgerBook {
  private readonly byLoop = new Map<string, LoopLedgers>();

  constructor(private readonly order: () => Iterable<string>) {}

  /** Keep what a loop's poll left in its ledgers; the event to publish, or null when no row changed. */
  take(loop: string, ledgers: LoopLedgers, read: LedgerPoll): LedgerEvent | null {
    if (!read.changed) {
      if (read.deliverChanged) this.byLoop.set(loop, ledgers);
      return null;
    }
    this.byLoop.set(loop, ledgers);
    const rows = deltaRows(read.findings, read.backlog, read.tasks, read.lessons, read.audits);
    if (rows > LEDGER_DELTA_MAX_ROWS) return { event: 'ledgers.reset', payload: { loop, rows } };
    return { event: 'ledgers.changed', payload: { loop, findings: read.findings, backlog: read.backlog, tasks: read.tasks, lessons: read.lessons, audits: read.audits } };
  }

  /** One loop's ledgers, if read. */
  get(loop: string): LoopLedgers | undefined {
    return this.byLoop.get(loop);
  }

  /** How many rows each list holds over every loop, without joining them (for the summary). */
  counts(): LedgerCounts {
    const n = { findings: 0, backlog: 0, tasks: 0, lessons: 0, audits: 0 };
    for (const l of this.byLoop.values()) {
      n.findings += l.findings.length;
      n.backlog += l.backlog.length;
      n.tasks += l.tasks.length;
      n.lessons += l.lessons.length;
      n.audits += l.audits.length;
    }
    return n;
  }

  /** Every loop's rows, in config order, as one list each (for the snapshot). */
  all(): Omit<LoopLedgers, 'deliverRecord'> {
    const all = [...this.order()].map((name) => this.byLoop.get(name)).filter((l): l is LoopLedgers => l !== undefined);
    return {
      findings: all.flatMap((l) => l.findings),
      backlog: all.flatMap((l) => l.backlog),
      tasks: all.flatMap((l) => l.tasks),
      lessons: all.flatMap((l) => l.lessons),
      audits: all.flatMap((l) => l.audits),
    };
  }
}
