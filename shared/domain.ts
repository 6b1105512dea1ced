import * as z from 'zod';
import { CapacitySchema } from './capacity-domain';
import { HostStateSchema, ProblemSchema } from './host-domain';
import { AuditMarkSchema, BacklogItemSchema, FindingSchema, LessonSchema, TaskSchema } from './ledger-domain';
import { LoopStateSchema, PullRequestSchema } from './loop-domain';
import { DrillRunSchema, DrillSchema, NoticeSchema } from './ops-domain';
import { PreflightSchema } from './preflight';
import { ContractBreachSchema } from './contract-breach';
import { DeskPrSchema } from './pr-desk';
import { MaintenanceWindowSchema } from './maintenance';

// The domain, one file per feature; this one re-exports them all and holds the snapshot.
export * from './loop-domain';
export * from './host-domain';
export * from './ledger-domain';
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
    /** Who marked it (absent in older saved state). */
    lastReviewedBy: z.string().nullable().optional(),
    drills: z.array(DrillSchema).readonly(),
    drillRuns: z.array(DrillRunSchema).readonly(),
    /** Each loop's pre-flight before its next fire, while one has run (absent: none, and older saved summaries). */
    preflight: z.array(PreflightSchema).readonly().optional(),
    /** Where the loops broke their manual's rules (shared/contract-breach.ts); absent in older saved summaries. */
    contract: z.array(ContractBreachSchema).readonly().optional(),
    /** The merge desk: every open PR of every loop as GitHub has it (shared/pr-desk.ts); absent without a github: section. */
    desk: z.array(DeskPrSchema).readonly().optional(),
    /** The maintenance windows not over, from the config and the console (shared/maintenance.ts); absent when there are none. */
    maintenance: z.array(MaintenanceWindowSchema).readonly().optional(),
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
    contract: [],
  };
}
