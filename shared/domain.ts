import { z } from 'zod';
import { CapacitySchema } from './capacity-domain';
import { DrillRunSchema, DrillSchema, NoticeSchema } from './ops-domain';

/** Status of one phase of a cycle, exactly as FORMATS.md §2.4 names them. */
export const PhaseStatusSchema = z.enum(['pending', 'running', 'ok', 'no-op', 'ready', 'incomplete', 'failed']);
/** Status of one phase of a cycle. */
export type PhaseStatus = z.infer<typeof PhaseStatusSchema>;

/** A cycle's status uses the same words as its phases (the most urgent one wins). */
export const CycleStatusSchema = PhaseStatusSchema;
/** Status of a whole cycle. */
export type CycleStatus = PhaseStatus;

/** One planned step of a stage; `rc` is null while the step has not run yet. */
export const StepSchema = z.object({ name: z.string(), rc: z.number().int().nullable() }).readonly();
/** One planned step of a stage. */
export type Step = z.infer<typeof StepSchema>;

/** A long stage run inside a phase, read from its rc file (FORMATS.md §2.3). */
export const StageSchema = z
  .object({
    name: z.string(),
    /** The `DONE` sentinel was written. */
    done: z.boolean(),
    /** The first planned step without a value when the stage did not finish; null otherwise. */
    stoppedAt: z.string().nullable(),
    steps: z.array(StepSchema).readonly(),
  })
  .readonly();
/** A long stage run inside a phase. */
export type Stage = z.infer<typeof StageSchema>;

/** Kinds of verdict line a transcript can carry (FORMATS.md §2.2). */
export const VerdictKindSchema = z.enum(['no-op', 'deliver-ready', 'deliver-incomplete']);

/** A counting verdict line from a phase transcript, with the line verbatim. */
export const VerdictSchema = z
  .object({
    kind: VerdictKindSchema,
    loop: z.string(),
    phase: z.string().nullable(),
    prs: z.number().int().nullable(),
    urls: z.array(z.string()).readonly(),
    check: z.string().nullable(),
    reason: z.string().nullable(),
    line: z.string(),
  })
  .readonly();
/** A counting verdict line from a phase transcript. */
export type Verdict = z.infer<typeof VerdictSchema>;

/** Where a phase's start and end times came from: the wrapper's stamps, or file times. */
export const TimesFromSchema = z.enum(['stamps', 'files']);

/** One phase of a cycle, with its evidence summarised. */
export const PhaseSchema = z
  .object({
    name: z.string(),
    status: PhaseStatusSchema,
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
    timesFrom: TimesFromSchema.nullable(),
    /** The wrapper's detail lines under the deciding stamp, if any. */
    detail: z.array(z.string()).readonly(),
    stages: z.array(StageSchema).readonly(),
    verdict: VerdictSchema.nullable(),
    /** One sentence saying why the status is what it is (which evidence decided it). */
    reason: z.string(),
  })
  .readonly();
/** One phase of a cycle. */
export type Phase = z.infer<typeof PhaseSchema>;

/** One daily run of a loop, named by its date. */
export const CycleSchema = z
  .object({ date: z.string(), status: CycleStatusSchema, phases: z.array(PhaseSchema).readonly() })
  .readonly();
/** One daily run of a loop. */
export type Cycle = z.infer<typeof CycleSchema>;

/** Dead-man states of a loop (FORMATS.md §2.5). */
export const DeadmanStateSchema = z.enum(['ok', 'late', 'missed', 'overrun', 'stalled']);
/** A loop's dead-man state. */
export type DeadmanState = z.infer<typeof DeadmanStateSchema>;

/** Whether the loop fired when its schedule said it would. */
export const DeadmanSchema = z
  .object({
    state: DeadmanStateSchema,
    /** The next fire time the schedule expects (ISO, UTC). */
    expectedAt: z.string().nullable(),
    /** The most recent fire time the schedule expected, at or before now. */
    lastFireAt: z.string().nullable(),
    /** One sentence saying why. */
    reason: z.string(),
  })
  .readonly();
/** Whether the loop fired when its schedule said it would. */
export type Deadman = z.infer<typeof DeadmanSchema>;

/** A loop and its recent cycles, newest first. */
export const LoopStateSchema = z
  .object({
    name: z.string(),
    host: z.string(),
    cycles: z.array(CycleSchema).readonly(),
    /** Null until the loop's schedule has been evaluated. */
    deadman: DeadmanSchema.nullable(),
  })
  .readonly();
/** A loop and its recent cycles. */
export type LoopState = z.infer<typeof LoopStateSchema>;

/** Connection states of a host (local hosts are always `connected`). */
export const HostConnStateSchema = z.enum([
  'connecting',
  'connected',
  'reconnecting',
  'untrusted',
  'hostkey-mismatch',
  'auth-failed',
  'unreachable',
]);
/** Connection state of a host. */
export type HostConnState = z.infer<typeof HostConnStateSchema>;

/** A configured host and how Loopdeck reaches it. */
export const HostStateSchema = z
  .object({
    name: z.string(),
    kind: z.enum(['local', 'ssh']),
    state: HostConnStateSchema,
    error: z.string().nullable(),
    /** When the current state began (for `reconnecting`: when the link was lost). */
    since: z.string().nullable(),
    /** Failed attempts in the current outage. */
    attempt: z.number().int(),
    /** For `untrusted` and `hostkey-mismatch`: the SHA256 fingerprint the server presented. */
    fingerprint: z.string().nullable(),
    /** An identity file that needs its passphrase before this host can be reached. */
    needsPassphrase: z.string().nullable(),
    /** Whether a key for this host was trusted in Loopdeck (not known_hosts): it can be forgotten here. */
    trustedInLoopdeck: z.boolean(),
  })
  .readonly();
/** A configured host and how Loopdeck reaches it. */
export type HostState = z.infer<typeof HostStateSchema>;

/** Something that could not be read: the file (or source), the line when known, and why. */
export const ProblemSchema = z
  .object({ source: z.string(), line: z.number().int().nullable(), message: z.string() })
  .readonly();
/** Something that could not be read. */
export type Problem = z.infer<typeof ProblemSchema>;

/** Finding severities, most urgent first. */
export const SeveritySchema = z.enum(['P0', 'P1', 'P2', 'P3']);
/** A finding's severity. */
export type Severity = z.infer<typeof SeveritySchema>;

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

/** A pull request the loop delivered, one entry per URL. */
export const PullRequestSchema = z
  .object({
    loop: z.string(),
    url: z.string(),
    number: z.number().int().nullable(),
    branch: z.string().nullable(),
    status: z.enum(['ready', 'incomplete', 'pending']),
    /** The failing check, when incomplete. */
    check: z.string().nullable(),
    /** When it reached this status (ISO). */
    since: z.string().nullable(),
    /** The cycle that delivered it. */
    cycle: z.string().nullable(),
  })
  .readonly();
/** A pull request the loop delivered. */
export type PullRequest = z.infer<typeof PullRequestSchema>;

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

export * from './capacity-domain';
export * from './ops-domain';

/** The whole observable state, as `loopdeck snapshot --json` prints it. Fields are added, never renamed. */
export const SnapshotSchema = z
  .object({
    schema: z.literal(1),
    takenAt: z.string(),
    hosts: z.array(HostStateSchema).readonly(),
    loops: z.array(LoopStateSchema).readonly(),
    problems: z.array(ProblemSchema).readonly(),
    findings: z.array(FindingSchema).readonly(),
    backlog: z.array(BacklogItemSchema).readonly(),
    prs: z.array(PullRequestSchema).readonly(),
    tasks: z.array(TaskSchema).readonly(),
    lessons: z.array(LessonSchema).readonly(),
    audits: z.array(AuditMarkSchema).readonly(),
    capacity: z.array(CapacitySchema).readonly(),
    notices: z.array(NoticeSchema).readonly(),
    lastReviewedAt: z.string().nullable(),
    drills: z.array(DrillSchema).readonly(),
    drillRuns: z.array(DrillRunSchema).readonly(),
  })
  .readonly();
/** The whole observable state. */
export type Snapshot = z.infer<typeof SnapshotSchema>;

/** A snapshot with nothing in it: before a config is loaded. */
export function emptySnapshot(takenAt: string): Snapshot {
  return {
    schema: 1,
    takenAt,
    hosts: [],
    loops: [],
    problems: [],
    findings: [],
    backlog: [],
    prs: [],
    tasks: [],
    lessons: [],
    audits: [],
    capacity: [],
    notices: [],
    lastReviewedAt: null,
    drills: [],
    drillRuns: [],
  };
}
