import * as z from 'zod';

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

/** The capacity of one inference host (behind a proxy, or polled directly), as last polled. */
export const CapacitySchema = z
  .object({
    proxy: z.string(),
    kind: z.enum(['crossbar', 'llama-server', 'gateway', 'prometheus']),
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
    /** Generated tokens per second (Prometheus source: the rate of `llamacpp:tokens_predicted_total`); absent where unknown. */
    tokensPerSecond: z.number().nullable().optional(),
    /** Gateway: the configured shed threshold, the in-flight high-water mark, requests shed so far. */
    shedThreshold: z.number().nullable(),
    highWater: z.number().nullable(),
    totalShed: z.number().nullable(),
    /** Expected fields the server did not expose. */
    missing: z.array(z.string()).readonly(),
    /** Why the last poll failed, naming the proxy and URL. */
    error: z.string().nullable(),
    /** When this was polled. */
    polledAt: z.string().nullable(),
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
