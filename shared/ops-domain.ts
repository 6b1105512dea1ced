import * as z from 'zod';
import { NoticeSilenceSchema } from './maintenance';

// Notices and drills: the operator's side of the domain (re-exported by domain.ts).

/** Pushover priorities: −2 list only, −1 quiet, 0 normal, 1 high (bypasses quiet hours), 2 emergency. */
export const NoticePrioritySchema = z.union([z.literal(-2), z.literal(-1), z.literal(0), z.literal(1), z.literal(2)]);
/** A notice's priority. */
export type NoticePriority = z.infer<typeof NoticePrioritySchema>;

/** How many notices the list holds (newest first): the snapshot's, and the renderer's after deltas. */
export const NOTICE_LIST_LIMIT = 500;

/** A notification with Pushover's semantics, raised once per stable key. */
export const NoticeSchema = z
  .object({
    key: z.string(),
    priority: NoticePrioritySchema,
    /** What raised it: `loop:<name>`, `host:<name>`, `proxy:<name>`, `drill:<name>`. */
    source: z.string(),
    title: z.string(),
    message: z.string().max(1024),
    url: z.string().nullable(),
    urlTitle: z.string().nullable(),
    createdAt: z.string(),
    acknowledgedAt: z.string().nullable(),
    /** Who acknowledged it: a user, or `Pushover` for an acknowledgement on the phone. Absent in older saved state. */
    acknowledgedBy: z.string().nullable().optional(),
    snoozedUntil: z.string().nullable(),
    snoozedBy: z.string().nullable().optional(),
    /** Raised inside a maintenance window in its scope: held back from every sink, then delivered once or cleared. Absent or null otherwise. */
    silenced: NoticeSilenceSchema.nullable().optional(),
    /** Sent on (`escalate:`) because nobody acknowledged it within `afterMs`: when, the sinks it reached, those still failing. Absent otherwise. */
    escalated: z
      .object({ at: z.string(), afterMs: z.number().int().nonnegative(), to: z.array(z.string()).readonly(), failed: z.array(z.string()).readonly() })
      .readonly()
      .optional(),
  })
  .readonly();
/** A notification. */
export type Notice = z.infer<typeof NoticeSchema>;

/** A drill declared in the config, as the UI may see it (never its command). */
export const DrillSchema = z
  .object({
    name: z.string(),
    host: z.string(),
    timeoutMs: z.number().int(),
    args: z.record(z.string(), z.array(z.string()).readonly()).readonly(),
    /** Its cadence (`every`, ms): due when its last successful run is older. Absent: no cadence (and older saved state). */
    everyMs: z.number().int().positive().optional(),
  })
  .readonly();
/** A declared drill. */
export type Drill = z.infer<typeof DrillSchema>;

/** Outcomes of a drill run. */
export const DrillRunStatusSchema = z.enum(['running', 'ok', 'failed', 'timeout', 'cancelled', 'lost']);

/** One run of a drill, as the audit trail records it. */
export const DrillRunSchema = z
  .object({
    id: z.string(),
    drill: z.string(),
    host: z.string(),
    args: z.record(z.string(), z.string()).readonly(),
    /** The local user who started it. */
    user: z.string(),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    rc: z.number().int().nullable(),
    status: DrillRunStatusSchema,
    /** The operator confirmed running it while a loop phase on the host was running. */
    override: z.boolean(),
    /** Where its output is on the host. */
    logPath: z.string(),
    durationMs: z.number().int().nullable(),
  })
  .readonly();
/** One run of a drill. */
export type DrillRun = z.infer<typeof DrillRunSchema>;
