import * as z from 'zod';
import { SuiteResultSchema } from './suite-summary';
import { MaintenanceMarkSchema } from './maintenance';

// Loops: phases, cycles, verdicts, the dead-man, and the pull requests a loop delivered (re-exported by domain.ts).

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
    /** When it wrote its `DONE` (its rc file's time, ISO); absent while it runs and in older saved state. */
    endedAt: z.string().optional(),
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
    /** Where it is in the phase's transcript (1-based), for a link to it; absent in older saved state. */
    lineNumber: z.number().int().positive().nullable().optional(),
  })
  .readonly();
/** A counting verdict line from a phase transcript. */
export type Verdict = z.infer<typeof VerdictSchema>;

/** Where a phase's start and end times came from: the wrapper's stamps, or file times. */
export const TimesFromSchema = z.enum(['stamps', 'files']);

/** What a running phase's transcript tells (see main/core/loops/phase-signal.ts). */
export const PhaseSignalKindSchema = z.enum(['hung', 'spinning', 'watchdog']);
/** What a running phase's transcript tells. */
export type PhaseSignalKind = z.infer<typeof PhaseSignalKindSchema>;

/**
 * A running phase's transcript says something is wrong: no output and no rc step for the loop's
 * `silence` (hung), output that repeats itself while no rc step advances (spinning), or the stream
 * watchdog's kill line (watchdog). Never on a finished phase.
 */
export const PhaseSignalSchema = z
  .object({
    kind: PhaseSignalKindSchema,
    /** The transcript line (1-based) it is about; null when the transcript has no line yet. */
    line: z.number().int().nullable(),
    /** Since when (ISO): the last output (hung), the repetition's start (spinning), the kill (watchdog). */
    since: z.string(),
    /** One sentence for a person. */
    detail: z.string(),
  })
  .readonly();
/** What a running phase's transcript tells. */
export type PhaseSignal = z.infer<typeof PhaseSignalSchema>;

/**
 * Who a phase that failed, went incomplete or hung is put down to (issue 30, item 1); `unknown`
 * when Loopdeck did not watch the runner or has no fleet history for part of its window and what
 * it did see shows no fault (issue 40, item 3): then nothing is claimed.
 */
export const FailureCauseKindSchema = z.enum(['fleet', 'runner', 'agent', 'unknown']);
/** Who a bad phase is put down to. */
export type FailureCauseKind = z.infer<typeof FailureCauseKindSchema>;

/**
 * Why a `failed`, `incomplete` or hung phase went wrong: the inference fleet it uses (a host down,
 * saturated or shedding, or the proxy's server errors above the burst threshold, during the
 * phase's window), the runner (its SSH host unreachable, its disk full, the phase's cap hit), the
 * agent (none of those, over a window Loopdeck watched whole), or unknown (part of the window was
 * not watched: the detail names what and when). See main/core/loops/attribution.ts.
 */
export const FailureCauseSchema = z
  .object({
    kind: FailureCauseKindSchema,
    /** What it was: `down`, `saturated`, `shedding`, `error-burst` (fleet); `unreachable`, `disk-full`, `cap`, `contention` (runner); `fleet-unwatched`, `runner-unwatched`, `unwatched` (both; unknown); null (agent). */
    what: z.string().nullable(),
    /** The fleet host (`proxy/host`) or runner host it names; null for the agent and unknown. */
    subject: z.string().nullable(),
    /** When it started and ended inside the phase's window (ISO); null when not known. */
    since: z.string().nullable(),
    until: z.string().nullable(),
    /** One sentence for a person: which, when and for how long. */
    detail: z.string(),
  })
  .readonly();
/** Why a bad phase went wrong. */
export type FailureCause = z.infer<typeof FailureCauseSchema>;

/** The most commits a phase lists (a night's branch is a few dozen; the rest are counted in the breach). */
export const PHASE_COMMITS_MAX = 50;

/** One commit of the nightly branch inside a phase's window. */
export const PhaseCommitSchema = z
  .object({ sha: z.string(), at: z.string(), message: z.string(), ids: z.array(z.string()).readonly() })
  .readonly();
/** One commit a phase made. */
export type PhaseCommit = z.infer<typeof PhaseCommitSchema>;
/** Commits of the nightly branch that came after a full suite ran (see Phase.uncertified). */
export const UncertifiedSchema = z
  .object({
    /** When the suite stage ended (its DONE), ISO. */
    suiteEndedAt: z.string(),
    /** The stage and step that ran it (`battery › suite`). */
    suite: z.string(),
    commits: z.array(PhaseCommitSchema).readonly(),
    /** Commits past the first PHASE_COMMITS_MAX. */
    more: z.number().int().nonnegative(),
  })
  .readonly();
/** Commits no suite ran on. */
export type Uncertified = z.infer<typeof UncertifiedSchema>;

/**
 * The runner's load while a phase ran, sampled in the requests Loopdeck already makes to its host
 * (main/core/loops/contention.ts), aggregated: how many samples, the peak 1-minute load per core,
 * the cores, the lowest free memory (bytes; null when the host does not say), how long the load
 * was above 2 per core and how long it was sampled at all (ms), and whether that was contended
 * (above 2 per core for at least a quarter of the sampled time).
 */
export const PhaseContentionSchema = z
  .object({
    samples: z.number().int().nonnegative(),
    peakLoadPerCore: z.number(),
    cores: z.number().int().positive(),
    minFreeBytes: z.number().nullable(),
    contendedMs: z.number(),
    watchedMs: z.number(),
    contended: z.boolean(),
  })
  .readonly();
/** The runner's load while a phase ran. */
export type PhaseContention = z.infer<typeof PhaseContentionSchema>;

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
    /** What the transcript tells of a running phase; absent (older summaries) or null when nothing. */
    signal: PhaseSignalSchema.nullable().optional(),
    /**
     * A remediate that ended `ok` or `no-op` while backlog items of its cycle's audit or earlier
     * had no final outcome (see shared/hollow.ts): their ids. Optional: older saved state has none.
     */
    hollow: z.object({ items: z.array(z.string()).readonly() }).readonly().nullable().optional(),
    /** How many STARTED stamps the phase has (continuation rounds), when more than one; absent otherwise. */
    rounds: z.number().int().min(2).optional(),
    /**
     * The deciding wrapper stamp is `FAILED 75`: exit code 75, an incomplete the next fire resumes
     * (FORMATS.md §2.1), as opposed to a plain `INCOMPLETE`. Absent otherwise and in older saved state.
     */
    resumable: z.literal(true).optional(),
    /** Why it failed, went incomplete or hung (see FailureCauseSchema); absent or null otherwise, and in older saved state. */
    cause: FailureCauseSchema.nullable().optional(),
    /**
     * A deliver stamped `OK` (exit 0) whose transcript does not end with a READY or INCOMPLETE
     * verdict line: `incomplete`, as the manual says (FORMATS.md §2.2). Absent otherwise.
     */
    noVerdict: z.literal(true).optional(),
    /**
     * The commits the phase made: the nightly branch's moves inside its window, from the clone's
     * reflog (FORMATS.md §2.7), oldest first, with the REL/R ids their messages name (at most
     * PHASE_COMMITS_MAX). Absent without a clone, a reflog, or a commit.
     */
    commits: z.array(PhaseCommitSchema).readonly().optional(),
    /** The runner's load while it ran (see PhaseContentionSchema); absent when it was never sampled, and in older saved state. */
    contention: PhaseContentionSchema.optional(),
    /**
     * The nightly branch moved after the phase's last full suite stage (a done stage with a `suite`
     * step) ended: the commits no suite ran on (at most PHASE_COMMITS_MAX, `more` the rest), from the
     * reflog. A green suite of this phase does not certify them. Absent when none, or without a reflog.
     */
    uncertified: UncertifiedSchema.optional(),
    /**
     * The suites its transcript ran, as their summaries and gate lines say (FORMATS.md §2.8;
     * shared/suite-summary.ts), in transcript order, at most MAX_SUITE_RESULTS. Absent when none.
     */
    suites: z.array(SuiteResultSchema).readonly().optional(),
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
    /**
     * The maintenance window the last fire fell in, when no cycle came of it: then the state is
     * `ok` (neither `late` nor `missed`) and the reason says "in maintenance (<reason>)". Absent otherwise.
     */
    maintenance: MaintenanceMarkSchema.optional(),
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
    /** The config's `knownFailures`: failures its suites have on this runner whatever the code (shared/night-suites.ts). Absent when not declared. */
    knownFailures: z.number().int().nonnegative().optional(),
  })
  .readonly();
/** A loop and its recent cycles. */
export type LoopState = z.infer<typeof LoopStateSchema>;

/** What GitHub says about a PR, when the config has a `github:` section (main/core/prs/github). */
export const PrRemoteSchema = z
  .object({
    /** Null until GitHub has answered once. */
    state: z.enum(['open', 'merged', 'closed']).nullable(),
    /** Who merged it (a login) and when (ISO), once merged. */
    mergedBy: z.string().nullable(),
    mergedAt: z.string().nullable(),
    /** When it was closed (merged or not). */
    closedAt: z.string().nullable(),
    /** Its head commit's checks (commit statuses and check runs together); `none` when it has none. */
    checks: z.enum(['passing', 'failing', 'pending', 'none']).nullable(),
    /** The checks that fail or are still pending, by name (a few). */
    checkNames: z.array(z.string()).readonly(),
    /** The operator actions of the body's `Next` section (bounded); null when the body has none. */
    next: z.array(z.string()).readonly().nullable(),
    /** Its head branch, as GitHub names it (absent before GitHub answered, and in older saved state). */
    head: z.string().optional(),
    /** When GitHub last answered with something new about it (ISO); a 304 changes nothing. */
    answeredAt: z.string().nullable(),
    /** Why the last fetch of this PR failed (not visible with the token, no answer in time), else null. */
    problem: z.string().nullable(),
  })
  .readonly();
/** What GitHub says about a PR. */
export type PrRemote = z.infer<typeof PrRemoteSchema>;

/** A pull request the loop delivered, one entry per URL. */
export const PullRequestSchema = z
  .object({
    loop: z.string(),
    url: z.string(),
    number: z.number().int().nullable(),
    branch: z.string().nullable(),
    /** From the loop's evidence; `merged` and `closed` only from GitHub (then `since` is when). */
    status: z.enum(['ready', 'incomplete', 'pending', 'merged', 'closed']),
    /** The failing check, when incomplete. */
    check: z.string().nullable(),
    /** When it reached this status (ISO). */
    since: z.string().nullable(),
    /** The cycle that delivered it. */
    cycle: z.string().nullable(),
    /** GitHub's view of it; absent without a `github:` section (and in summaries saved before it). */
    github: PrRemoteSchema.optional(),
    /** Commits of its branch after the night's last full suite (Phase.uncertified): no suite ran on them. Absent when none. */
    uncertified: UncertifiedSchema.optional(),
  })
  .readonly();
/** A pull request the loop delivered. */
export type PullRequest = z.infer<typeof PullRequestSchema>;
