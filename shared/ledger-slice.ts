import * as z from 'zod';
import {
  AuditMarkSchema,
  BacklogItemSchema,
  FindingSchema,
  LessonSchema,
  SnapshotSchema,
  TaskSchema,
  type AuditMark,
  type BacklogItem,
  type Finding,
  type Lesson,
  type Snapshot,
  type Task,
} from './domain';

/**
 * The renderer's first load, split in two: a summary (the snapshot without the ledgers' rows, so
 * the Review paints at once whatever the history) and the ledger rows after it, in pages read from
 * one frozen copy (a cursor) so a ledger that changes between two pages cannot shift a row out of
 * both. `snapshot --json` and `state.snapshot` still carry everything.
 */

/** The ledgers' row lists, in the order pages walk them. */
export const LEDGER_KINDS = ['findings', 'backlog', 'tasks', 'lessons', 'audits'] as const;
/** One of the ledgers' row lists. */
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** Every ledger row list of every loop (what a snapshot carries and the pages deliver). */
export interface LedgerRows {
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  readonly tasks: readonly Task[];
  readonly lessons: readonly Lesson[];
  readonly audits: readonly AuditMark[];
}

const count = z.number().int().min(0);

/** How many rows each ledger list holds. */
export const LedgerCountsSchema = z.object({ findings: count, backlog: count, tasks: count, lessons: count, audits: count }).readonly();
/** How many rows each ledger list holds. */
export type LedgerCounts = z.infer<typeof LedgerCountsSchema>;

/** The state without the ledgers' rows: bounded by the loops' windows, not by the ledgers' history. */
export const SummarySchema = SnapshotSchema.unwrap()
  .omit({ findings: true, backlog: true, tasks: true, lessons: true, audits: true })
  .extend({
    /** The rows the ledger pages will deliver (as of `takenAt`). */
    ledgerRows: LedgerCountsSchema,
    /**
     * True: the state as saved when the app last ran (as of `takenAt`), answered while the first
     * read after a start catches up; its rows are not served. A `state.reset` follows once the
     * state is read afresh.
     */
    restored: z.boolean().optional(),
    /**
     * True: there was no saved state, and the first read after a start has not caught up yet, so
     * this may be incomplete (even empty); its rows are not served. A `state.reset` follows once
     * the state is read.
     */
    reading: z.boolean().optional(),
  })
  .readonly();
/** The state without the ledgers' rows. */
export type Summary = z.infer<typeof SummarySchema>;

/** The ledger rows of a snapshot. */
export function ledgerRowsOf(s: LedgerRows): LedgerRows {
  return { findings: s.findings, backlog: s.backlog, tasks: s.tasks, lessons: s.lessons, audits: s.audits };
}

/** How many rows each list holds. */
export function ledgerCounts(rows: LedgerRows): LedgerCounts {
  return { findings: rows.findings.length, backlog: rows.backlog.length, tasks: rows.tasks.length, lessons: rows.lessons.length, audits: rows.audits.length };
}

/** A snapshot without its ledger rows (their counts instead). */
export function summaryOf(s: Snapshot): Summary {
  const { findings: _f, backlog: _b, tasks: _t, lessons: _l, audits: _a, ...rest } = s;
  return { ...rest, ledgerRows: ledgerCounts(s) };
}

/** Rows in a page unless the client asks for fewer: ~2.5 MB of JSON at most. */
export const DEFAULT_PAGE_ROWS = 5000;
/** The most rows one page may carry. */
export const MAX_PAGE_ROWS = 20_000;

/** A page request: `cursor` null opens a new frozen copy of the ledgers (page 0 of it). */
export const LedgerPageInputSchema = z
  .object({
    cursor: z.string().min(1).max(64).nullable().default(null),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(MAX_PAGE_ROWS).default(DEFAULT_PAGE_ROWS),
  })
  .strict();

/** One page: the rows from `offset` of the lists laid end to end (findings, backlog, tasks, lessons, audits). */
export const LedgerPageSchema = z.object({
  ready: z.literal(true),
  cursor: z.string(),
  offset: z.number().int().min(0),
  /** Where the next page starts; null after the last. */
  next: z.number().int().min(0).nullable(),
  /** Rows of all lists in the copy. */
  total: z.number().int().min(0),
  rows: z.object({
    findings: z.array(FindingSchema).readonly(),
    backlog: z.array(BacklogItemSchema).readonly(),
    tasks: z.array(TaskSchema).readonly(),
    lessons: z.array(LessonSchema).readonly(),
    audits: z.array(AuditMarkSchema).readonly(),
  }),
});
/** One page of ledger rows. */
export type LedgerPage = z.infer<typeof LedgerPageSchema>;

/**
 * The answer while the first read after a start has not caught up (the summary answered is the
 * saved one, or marked reading): there are no rows to page yet, which is not the same as none.
 * `state.reset` follows once they are read; ask again then.
 */
export const LedgerNotReadySchema = z.object({ ready: z.literal(false), reason: z.string() });
/** The ledgers' rows are not read yet. */
export type LedgerNotReady = z.infer<typeof LedgerNotReadySchema>;

/** What `ledgers.page` answers: a page, or that the rows are not read yet. */
export const LedgerPageAnswerSchema = z.discriminatedUnion('ready', [LedgerPageSchema, LedgerNotReadySchema]);
/** A page, or not ready. */
export type LedgerPageAnswer = z.infer<typeof LedgerPageAnswerSchema>;

/** The rows `[offset, offset + limit)` of the lists laid end to end, as a page of `cursor`. */
export function pageOf(rows: LedgerRows, cursor: string, offset: number, limit: number): LedgerPage {
  const total = LEDGER_KINDS.reduce((n, k) => n + rows[k].length, 0);
  const end = Math.min(total, offset + limit);
  let start = 0;
  const out: Record<LedgerKind, readonly unknown[]> = { findings: [], backlog: [], tasks: [], lessons: [], audits: [] };
  for (const k of LEDGER_KINDS) {
    const list = rows[k];
    const from = Math.max(offset, start);
    const to = Math.min(end, start + list.length);
    if (to > from) out[k] = list.slice(from - start, to - start);
    start += list.length;
  }
  return { ready: true, cursor, offset, next: end < total ? end : null, total, rows: out as unknown as LedgerPage['rows'] };
}

/** Append a page's rows to what earlier pages gave. */
export function appendPage(into: LedgerRows, page: LedgerPage): LedgerRows {
  const add = <T>(a: readonly T[], b: readonly T[]): readonly T[] => (b.length === 0 ? a : a.length === 0 ? b : [...a, ...b]);
  return {
    findings: add(into.findings, page.rows.findings),
    backlog: add(into.backlog, page.rows.backlog),
    tasks: add(into.tasks, page.rows.tasks),
    lessons: add(into.lessons, page.rows.lessons),
    audits: add(into.audits, page.rows.audits),
  };
}

/** No rows at all. */
export const emptyLedgerRows: LedgerRows = { findings: [], backlog: [], tasks: [], lessons: [], audits: [] };
