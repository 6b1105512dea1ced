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

// Windows from the console (an operator or admin plans one beside the config's): the window is
// written as a `maintenance:` entry is, and the core reads it with the config's own rules
// (main/core/config/maintenance-config.ts); here only its shape and bounds cross the boundary.

/** How many windows the console may hold that have not ended: past them, adding one is refused. */
export const CONSOLE_WINDOWS_MAX = 100;

const ScopeNames = z.array(z.string().min(1).max(100)).max(200);

/** A window as the console sends it: a `maintenance:` entry (ISO times with their offset, a cron and a duration such as "2h"). */
export const MaintenanceWindowInputSchema = z
  .object({
    start: z.string().max(64).optional(),
    end: z.string().max(64).optional(),
    every: z.string().max(200).optional(),
    for: z.string().max(32).optional(),
    timezone: z.string().max(64).optional(),
    reason: z.string().max(500),
    loops: ScopeNames.optional(),
    hosts: ScopeNames.optional(),
    proxies: ScopeNames.optional(),
  })
  .strict();
/** A window as the console sends it. */
export type MaintenanceWindowInput = z.infer<typeof MaintenanceWindowInputSchema>;

const Occurrence = z.object({ start: z.string(), end: z.string() }).readonly();

/**
 * A maintenance window as the console lists it: from the config (ended only by editing the file)
 * or added in the console (by whom, when; an operator or admin may end it). `current` is its
 * occurrence in force now, `next` the one after now; both null once it is over.
 */
export const MaintenanceWindowSchema = z
  .object({
    id: z.string(),
    source: z.enum(['config', 'console']),
    reason: z.string(),
    loops: z.array(z.string()).readonly().optional(),
    hosts: z.array(z.string()).readonly().optional(),
    proxies: z.array(z.string()).readonly().optional(),
    kind: z.enum(['once', 'every']),
    /** A recurring window's cron, read in `timezone`, and how long each occurrence lasts. */
    every: z.string().optional(),
    forMs: z.number().int().nonnegative().optional(),
    timezone: z.string().optional(),
    current: Occurrence.nullable(),
    next: Occurrence.nullable(),
    createdBy: z.string().optional(),
    createdAt: z.string().optional(),
  })
  .readonly();
/** A maintenance window as the console lists it. */
export type MaintenanceWindow = z.infer<typeof MaintenanceWindowSchema>;

/** What a window covers, said once for every view: "everything", or the names by kind. */
export function maintenanceScopeText(w: Pick<MaintenanceWindow, 'loops' | 'hosts' | 'proxies'>): string {
  const parts = [
    w.loops?.length ? `loops ${w.loops.join(', ')}` : '',
    w.hosts?.length ? `hosts ${w.hosts.join(', ')}` : '',
    w.proxies?.length ? `proxies ${w.proxies.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'everything';
}
