import * as z from 'zod';
import { MaintenanceMarkSchema } from './maintenance';

// The inference fleet's part of the domain (re-exported by domain.ts).

/** One loaded model on an inference host. */
export const ModelCapacitySchema = z
  .object({
    id: z.string(),
    nCtx: z.number().int().nullable(),
    slots: z.number().int().nullable(),
    inflight: z.number().int().nullable(),
    queued: z.number().int().nullable(),
  })
  .readonly();
/** One loaded model on an inference host. */
export type ModelCapacity = z.infer<typeof ModelCapacitySchema>;

/**
 * Server failures over the recent window, from the stored counter deltas: `errors` counts 5xx and
 * the non-numeric statuses (`shed`), `requests` every request, over the last `windowMs`.
 */
export const ErrorShareSchema = z
  .object({
    errors: z.number().nonnegative(),
    requests: z.number().nonnegative(),
    windowMs: z.number().positive(),
  })
  .readonly();
/** Server failures over the recent window. */
export type ErrorShare = z.infer<typeof ErrorShareSchema>;

/**
 * A proxy's fleet-incident thresholds, from its `incidents:` config block (see
 * `shared/fleet-incidents.ts`, which holds the defaults for a Capacity without them).
 */
export const IncidentLimitsSchema = z
  .object({
    /** An error burst: more than this percentage of the window's requests failed with a server error… */
    errorPct: z.number(),
    /** …out of at least this many requests. */
    errorMinRequests: z.number(),
    /** A gateway's shed threshold above this many times the capacity it has shown is a finding. */
    shedFactor: z.number(),
    /** A gateway's heap above this percentage of its limit. */
    heapPct: z.number(),
    /** The proxy whose hosts' slots are the gateway's real capacity, or null. */
    fleet: z.string().nullable(),
  })
  .readonly();
/** A proxy's fleet-incident thresholds. */
export type IncidentLimits = z.infer<typeof IncidentLimitsSchema>;

/** The capacity of one inference host (behind a proxy, or polled directly), as last polled. */
export const CapacitySchema = z
  .object({
    proxy: z.string(),
    kind: z.enum(['crossbar', 'llama-server', 'vllm', 'gateway', 'prometheus']),
    /** The inference host's name (a crossbar backend, a Prometheus `instance`), or the proxy's own name. */
    host: z.string(),
    up: z.boolean(),
    /** Since when it has been up (or down). */
    since: z.string().nullable(),
    slotsTotal: z.number().int().nullable(),
    slotsBusy: z.number().int().nullable(),
    inflight: z.number().int().nullable(),
    queued: z.number().int().nullable(),
    nCtx: z.number().int().nullable(),
    models: z.array(ModelCapacitySchema).readonly(),
    /**
     * Generated tokens per second: the rate of `llamacpp:tokens_predicted_total` or
     * `vllm:generation_tokens_total` (Prometheus: over its last two scrapes; polled: since the
     * previous poll); absent where unknown.
     */
    tokensPerSecond: z.number().nullable().optional(),
    /**
     * KV-cache in use, 0–100 %: vLLM's `vllm:kv_cache_usage_perc` (older `vllm:gpu_cache_usage_perc`),
     * llama.cpp's `llamacpp:kv_cache_usage_ratio` where the build exposes it; absent where not exposed.
     */
    kvCachePct: z.number().nullable().optional(),
    /** Gateway: the configured shed threshold, the in-flight high-water mark, requests shed so far. */
    shedThreshold: z.number().nullable(),
    highWater: z.number().nullable(),
    totalShed: z.number().nullable(),
    /** Gateway: heap in use as a percentage of its limit, and the limit (MB); absent for other kinds. */
    heapUtilizationPct: z.number().nullable().optional(),
    heapSizeLimitMb: z.number().nullable().optional(),
    /** Server failures over the recent window; null while no counters cover it, absent in older summaries. */
    errorShare: ErrorShareSchema.nullable().optional(),
    /** The proxy's incident thresholds; absent (older summaries): the defaults. */
    limits: IncidentLimitsSchema.optional(),
    /** Expected fields the server did not expose. */
    missing: z.array(z.string()).readonly(),
    /** Why the last poll failed, naming the proxy and URL. */
    error: z.string().nullable(),
    /** When this was polled. */
    polledAt: z.string().nullable(),
    /** The maintenance window its proxy was in when polled (the config's `maintenance:`): its incidents are planned. Absent outside one. */
    maintenance: MaintenanceMarkSchema.optional(),
  })
  .readonly();
/** The capacity of one inference host. */
export type Capacity = z.infer<typeof CapacitySchema>;

/** The capacity charts' ranges (the `capacity.history` command's and the Capacity view's). */
export const CapacityRangeSchema = z.enum(['1h', '24h', '7d', '30d']);
export type CapacityRange = z.infer<typeof CapacityRangeSchema>;
export const CAPACITY_RANGES: readonly CapacityRange[] = CapacityRangeSchema.options;

/** How full a host's slots are, 0..1; null when either number is unknown. */
export function slotFraction(c: Pick<Capacity, 'slotsBusy' | 'slotsTotal'>): number | null {
  if (c.slotsBusy === null || c.slotsTotal === null || c.slotsTotal <= 0) return null;
  return Math.max(0, Math.min(1, c.slotsBusy / c.slotsTotal));
}

/**
 * Saturated: every slot busy, or requests queued. One rule for the capacity meters, the Review's
 * fleet incidents (and the Markdown summary) and the tray.
 */
export function isSaturated(c: Pick<Capacity, 'slotsBusy' | 'slotsTotal' | 'queued'>): boolean {
  return (c.queued ?? 0) > 0 || slotFraction(c) === 1;
}
