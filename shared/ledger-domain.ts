import * as z from 'zod';

// Ledgers: findings, the backlog, implementer tasks, lessons and audit marks (re-exported by domain.ts).

/** Finding severities, most urgent first. */
export const SeveritySchema = z.enum(['P0', 'P1', 'P2', 'P3']);
/** A finding's severity. */
export type Severity = z.infer<typeof SeveritySchema>;

/** Severities most urgent first (as filters offer them and lists sort them). */
export const SEVERITIES: readonly Severity[] = SeveritySchema.options;

/** Sort rank of a severity: P0 first, no severity last. */
export function severityRank(severity: Severity | null): number {
  return severity === null ? SEVERITIES.length : SEVERITIES.indexOf(severity);
}

/** Where a finding stands, from its backlog item's latest outcome in the log. */
export const FindingStatusSchema = z.enum(['open', 'done', 'blocked', 'operator-only']);
/** Where a finding stands. */
export type FindingStatus = z.infer<typeof FindingStatusSchema>;

/** One finding from a ledger (an audit section's findings table, or a review's table). */
export const FindingSchema = z
  .object({
    /** `R-123` for audit findings; `<review>#<n>` for implementer-log review findings. */
    id: z.string(),
    loop: z.string(),
    /** The ledger file it came from. */
    source: z.string(),
    /** The section heading, e.g. `Delta audit 2026-08-23 (second pass)`. */
    section: z.string(),
    severity: SeveritySchema.nullable(),
    /** The severity cell as written when it says more than the severity (`P1 (contested: P0)`). */
    severityText: z.string().optional(),
    category: z.string().nullable(),
    /** `file:line` as written. */
    where: z.string().nullable(),
    text: z.string(),
    status: FindingStatusSchema,
    /** REL ids of the backlog items covering it. */
    backlog: z.array(z.string()).readonly(),
    /** When Loopdeck first read it (ISO). */
    firstSeenAt: z.string(),
    /** The ledger line, for "show me where". */
    line: z.number().int(),
  })
  .readonly();
/** One finding from a ledger. */
export type Finding = z.infer<typeof FindingSchema>;

/** One outcome row of RELIABILITY_LOG.md. */
export const LogOutcomeSchema = z
  .object({
    date: z.string().nullable(),
    outcome: z.string(),
    red: z.number().int().nullable(),
    green: z.number().int().nullable(),
    note: z.string().nullable(),
    line: z.number().int(),
    /** When Loopdeck first read this row (ISO); absent in state saved before it was kept. */
    firstSeenAt: z.string().optional(),
  })
  .readonly();
/** One outcome row of the reliability log. */
export type LogOutcome = z.infer<typeof LogOutcomeSchema>;

/** A backlog item (`REL-###`) with its acceptance criteria and the log's outcomes. */
export const BacklogItemSchema = z
  .object({
    id: z.string(),
    loop: z.string(),
    section: z.string(),
    findings: z.array(z.string()).readonly(),
    severity: SeveritySchema.nullable(),
    acceptance: z.string(),
    status: FindingStatusSchema,
    red: z.number().int().nullable(),
    green: z.number().int().nullable(),
    outcomes: z.array(LogOutcomeSchema).readonly(),
  })
  .readonly();
/** A backlog item. */
export type BacklogItem = z.infer<typeof BacklogItemSchema>;

/** A task row of an implementer log. */
export const TaskSchema = z
  .object({
    loop: z.string(),
    source: z.string(),
    task: z.string(),
    date: z.string().nullable(),
    status: z.string(),
    gateRuns: z.string().nullable(),
    firstGate: z.string().nullable(),
    deviations: z.string().nullable(),
    notes: z.string().nullable(),
    model: z.string().nullable(),
    line: z.number().int(),
    /** When Loopdeck first read this row (ISO); absent in state saved before it was kept. */
    firstSeenAt: z.string().optional(),
  })
  .readonly();
/** A task row of an implementer log. */
export type Task = z.infer<typeof TaskSchema>;

/** A dated bullet of a `## Lessons` section. */
export const LessonSchema = z
  .object({ loop: z.string(), source: z.string(), date: z.string().nullable(), tag: z.string().nullable(), text: z.string(), line: z.number().int() })
  .readonly();
/** A dated lesson bullet. */
export type Lesson = z.infer<typeof LessonSchema>;

/** An `Audited through:` line of the audit ledger. */
export const AuditMarkSchema = z
  .object({ loop: z.string(), sha: z.string(), date: z.string(), newFindings: z.number().int().nullable(), line: z.number().int() })
  .readonly();
/** An audit-ledger line. */
export type AuditMark = z.infer<typeof AuditMarkSchema>;

/** A task's status as a rule compares it. */
export const taskStatus = (t: Pick<Task, 'status'>): string => t.status.trim().toLowerCase();

/**
 * Each task of each loop at its latest row, with how many rows it has. Implementer logs are not in
 * time order (the reference log is newest first, with older rows appended below), so "latest" is
 * the newest date, and on that date a `done` row wins over a `stopped` one (a task is not stopped
 * again once done). One rule for "Waiting on you" and the tasks table.
 */
export function latestTasks(tasks: readonly Task[]): { readonly task: Task; readonly rows: number }[] {
  const byTask = new Map<string, Task[]>();
  for (const t of tasks) {
    const k = `${t.loop}\u0000${t.task}`;
    const rows = byTask.get(k);
    if (rows) rows.push(t);
    else byTask.set(k, [t]);
  }
  const out: { task: Task; rows: number }[] = [];
  for (const rows of byTask.values()) {
    const newest = rows.reduce<string>((d, r) => (r.date !== null && r.date > d ? r.date : d), '');
    const latest = rows.filter((r) => (r.date ?? '') === newest);
    const pick = latest.find((r) => taskStatus(r) === 'done') ?? latest.find((r) => taskStatus(r) === 'stopped') ?? latest[0];
    if (pick) out.push({ task: pick, rows: rows.length });
  }
  return out;
}
