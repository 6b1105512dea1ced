import type { Severity } from '../../../shared/domain';
import type { OpenFence } from '../text/fences';

/** A row of an audit section's findings table (`ID | Sev | Category | Where | Finding`). */
export interface FindingRecord {
  readonly kind: 'finding';
  readonly line: number;
  /** The heading the table sits under, e.g. `Delta audit 2026-08-22 (second pass)`. */
  readonly section: string;
  /** `R-123` (the first R-id in the ID cell; the cell as written when it has none). */
  readonly id: string;
  readonly severity: Severity | null;
  /** The severity cell as written when it says more (`P1 (contested: P0)`); absent otherwise. */
  readonly severityText?: string;
  readonly category: string | null;
  /** `file:line` as written. */
  readonly where: string | null;
  readonly text: string;
}

/** A row of an audit section's backlog table: a `REL-###` task covering some R-ids. */
export interface BacklogRecord {
  readonly kind: 'backlog';
  readonly line: number;
  readonly section: string;
  /** `REL-045` (the first REL-id in the ID cell; the cell as written when it has none). */
  readonly id: string;
  /** The R-ids the row names, in order, without duplicates (ranges are not expanded). */
  readonly findings: readonly string[];
  readonly severity: Severity | null;
  /** The fault-injection acceptance criteria, as written ('' when the row has no such cell). */
  readonly acceptance: string;
}

/** An `Audited through: <sha> on <date> — <n> new findings` line of the audit ledger. */
export interface AuditMarkRecord {
  readonly kind: 'audit-mark';
  readonly line: number;
  readonly sha: string;
  readonly date: string;
  /** `<n>`; 0 for "no new findings"; null when the line does not say. */
  readonly newFindings: number | null;
}

/** A row of RELIABILITY_LOG.md: one outcome of one backlog item. */
export interface OutcomeRecord {
  readonly kind: 'outcome';
  readonly line: number;
  /** `REL-045` (the first REL-id in the ID cell; the cell as written when it has none). */
  readonly id: string;
  readonly date: string | null;
  /** `DONE`, `BLOCKED`, `operator-only`… exactly as written ('' when the cell is missing). */
  readonly outcome: string;
  readonly red: number | null;
  readonly green: number | null;
  readonly note: string | null;
}

/** A row of an implementer log's task table. */
export interface TaskRecord {
  readonly kind: 'task';
  readonly line: number;
  readonly task: string;
  readonly date: string | null;
  /** `done` or `stopped`, as written. */
  readonly status: string;
  readonly gateRuns: string | null;
  readonly firstGate: string | null;
  readonly deviations: string | null;
  readonly notes: string | null;
  readonly model: string | null;
}

/** A row of a per-review finding table (`# | Finding | Severity | Fault`) of an implementer log. */
export interface ReviewFindingRecord {
  readonly kind: 'review-finding';
  readonly line: number;
  /** The review's heading, e.g. `v0 review — 2026-09-25 (reviewer: claude, as owner for the night)`. */
  readonly section: string;
  readonly number: string;
  readonly text: string;
  /** As written (`low`, `medium`, `process`, `—`…): reviews do not use P0..P3. */
  readonly severity: string | null;
  readonly fault: string | null;
}

/** A dated bullet of a `## Lessons` section, its continuation lines joined with spaces. */
export interface LessonRecord {
  readonly kind: 'lesson';
  /** The line the bullet starts on. */
  readonly line: number;
  readonly date: string | null;
  /** What the parenthesis after the date says: `audit`, `remediate, continuation`, `runner`… */
  readonly tag: string | null;
  readonly text: string;
}

/** Everything the ledger parser reads out of a markdown ledger. */
export type LedgerRecord =
  | FindingRecord
  | BacklogRecord
  | AuditMarkRecord
  | OutcomeRecord
  | TaskRecord
  | ReviewFindingRecord
  | LessonRecord;

/** The kinds of table the parser knows; `other` tables are skipped quietly. */
export type TableKind = 'finding' | 'backlog' | 'outcome' | 'task' | 'review-finding' | 'other';

/** What a column holds, recognised from its header name. */
export type ColumnRole =
  | 'id'
  | 'severity'
  | 'category'
  | 'where'
  | 'text'
  | 'refs'
  | 'acceptance'
  | 'outcome'
  | 'date'
  | 'redGreen'
  | 'red'
  | 'green'
  | 'note'
  | 'task'
  | 'status'
  | 'gateRuns'
  | 'firstGate'
  | 'deviations'
  | 'model'
  | 'number'
  | 'fault';

/** Which cell index holds each role (roles the header lacks are absent). Plain JSON. */
export type ColumnMap = { readonly [K in ColumnRole]?: number };

/** The table the parser is inside: its kind, the header's cell count and its columns. */
export interface TableShape {
  readonly kind: TableKind;
  readonly width: number;
  readonly cols: ColumnMap;
}

/** A lesson bullet whose end has not been seen yet. */
export interface PendingLesson {
  readonly line: number;
  readonly date: string | null;
  readonly tag: string | null;
  readonly text: string;
}

/**
 * Ledger parser state, plain JSON (persisted with the file offset): the headings in force, the
 * open code fence, a row that may be a table header, the table being read, and a pending lesson.
 */
export interface LedgerState {
  /** The current `#`, `##` and `###` headings (a heading clears the deeper ones). */
  readonly headings: readonly [string | null, string | null, string | null];
  /** The level of the `Lessons` heading we are under, if any. */
  readonly lessonsLevel: number | null;
  readonly fence: OpenFence | null;
  /** The previous line, when it could be a table header (it is one if a delimiter row follows). */
  readonly header: { readonly text: string; readonly line: number } | null;
  readonly table: TableShape | null;
  readonly lesson: PendingLesson | null;
}
