import { z } from 'zod';

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

/** A loop and its recent cycles, newest first. */
export const LoopStateSchema = z
  .object({ name: z.string(), host: z.string(), cycles: z.array(CycleSchema).readonly() })
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

/** The whole observable state, as `loopdeck snapshot --json` prints it. Fields are added, never renamed. */
export const SnapshotSchema = z
  .object({
    schema: z.literal(1),
    takenAt: z.string(),
    hosts: z.array(HostStateSchema).readonly(),
    loops: z.array(LoopStateSchema).readonly(),
    problems: z.array(ProblemSchema).readonly(),
  })
  .readonly();
/** The whole observable state. */
export type Snapshot = z.infer<typeof SnapshotSchema>;
