import * as z from 'zod';

// Maintenance windows (issue "The operator's week", item 1): the config's `maintenance:` declares
// when a loop, host or proxy is expected to be down or disturbed. What falls inside a window in
// its scope carries this mark: a notice held back (`silenced`), a dead-man fire that was not
// missed, a pre-flight that is not at risk, a fleet incident that is planned.

/** The window something fell in: why (the config's `reason`) and until when (ISO, UTC). */
export const MaintenanceMarkSchema = z
  .object({
    reason: z.string(),
    until: z.string(),
  })
  .readonly();
/** The window something fell in. */
export type MaintenanceMark = z.infer<typeof MaintenanceMarkSchema>;

/**
 * A notice raised inside a window: `held` while the window lasts (recorded, delivered to no sink),
 * then `delivered` once if its condition still held when the window ended, `cleared` if it did not
 * (never delivered), or `acknowledged` if someone acknowledged it meanwhile (never delivered).
 */
export const NoticeSilenceSchema = z
  .object({
    reason: z.string(),
    until: z.string(),
    state: z.enum(['held', 'delivered', 'cleared', 'acknowledged']),
  })
  .readonly();
/** How a notice raised inside a maintenance window was handled. */
export type NoticeSilence = z.infer<typeof NoticeSilenceSchema>;

/** "in maintenance (<reason>)": how every view and message says it. */
export function maintenanceText(mark: Pick<MaintenanceMark, 'reason'>): string {
  return `in maintenance (${mark.reason})`;
}
