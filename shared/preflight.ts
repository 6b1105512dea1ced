import * as z from 'zod';
import { escapeMarkdown } from './markdown-text';
import { MaintenanceMarkSchema } from './maintenance';

// Pre-flight (issue 30, item 2): before a loop's next fire, what tonight's cycle needs — its host
// reachable and trusted, room on its runs folder and clone, the previous cycle finished, the fleet
// it uses up with free slots and its models loaded, no drill over the night's window — checked at
// a lead before the fire, so a failure is seen before the run and not by the dead-man after it.
// Issue 43 (item 11) adds whether the runner will fire at all: its scheduler entry installed
// (`scheduler`, when the loop declares one) and its clone's origin answering (`origin`, with `dir`).
// Issue "Night against night" (item 3) adds another loop on the same host scheduled over tonight's
// window (`overlap`, when the host has other loops): they contend for its cores and memory.

/** The checks a pre-flight makes, in the order they are shown. */
export const PREFLIGHT_CHECKS = ['host', 'disk', 'scheduler', 'origin', 'previous-cycle', 'overlap', 'deliver-record', 'fleet', 'models', 'drills'] as const;

/** One check's outcome: `warn` is worth saying but not a risk (a deliver record to resume); `unknown` could not be told. */
export const PreflightCheckStatusSchema = z.enum(['ok', 'warn', 'fail', 'unknown']);
/** One check's outcome. */
export type PreflightCheckStatus = z.infer<typeof PreflightCheckStatusSchema>;

/** One check of a pre-flight: `ok` is false only for a failure (or an unknown). */
export const PreflightCheckSchema = z
  .object({
    name: z.enum(PREFLIGHT_CHECKS),
    ok: z.boolean(),
    status: PreflightCheckStatusSchema,
    /** One sentence naming the thing (host, folder, proxy, model, drill) and what to do. */
    detail: z.string(),
  })
  .readonly();
/** One check of a pre-flight. */
export type PreflightCheck = z.infer<typeof PreflightCheckSchema>;

/**
 * What a pre-flight concluded: `at-risk` when a check failed, `unknown` when one could not be told,
 * else `ready`; `maintenance` whatever the checks when the fire falls inside a maintenance window in
 * the loop's scope (the config's `maintenance:`): the night is not expected to run as usual.
 */
export const PreflightStateSchema = z.enum(['ready', 'at-risk', 'unknown', 'maintenance']);
/** What a pre-flight concluded. */
export type PreflightState = z.infer<typeof PreflightStateSchema>;

/** One loop's pre-flight before its next fire. */
export const PreflightSchema = z
  .object({
    loop: z.string(),
    /** The fire it is about (ISO, UTC). */
    fireAt: z.string(),
    state: PreflightStateSchema,
    checks: z.array(PreflightCheckSchema).readonly(),
    checkedAt: z.string(),
    /** The maintenance window the fire falls in (state `maintenance`); absent otherwise. */
    maintenance: MaintenanceMarkSchema.optional(),
  })
  .readonly();
/** One loop's pre-flight. */
export type Preflight = z.infer<typeof PreflightSchema>;

/** The state of a set of checks: any failure is a risk; else any unknown; else ready. */
export function preflightState(checks: readonly Pick<PreflightCheck, 'status'>[]): PreflightState {
  if (checks.some((c) => c.status === 'fail')) return 'at-risk';
  if (checks.some((c) => c.status === 'unknown')) return 'unknown';
  return 'ready';
}

/** A check from its outcome (`ok` follows from it). */
export function preflightCheck(name: PreflightCheck['name'], status: PreflightCheckStatus, detail: string): PreflightCheck {
  return { name, ok: status === 'ok' || status === 'warn', status, detail };
}

/** How each check is named for a person. */
export const PREFLIGHT_CHECK_LABEL: Readonly<Record<PreflightCheck['name'], string>> = {
  host: 'host',
  disk: 'disk',
  scheduler: 'scheduler',
  origin: 'origin',
  'previous-cycle': 'previous cycle',
  overlap: 'other loops',
  'deliver-record': 'deliver record',
  fleet: 'fleet',
  models: 'models',
  drills: 'drills',
};

/** The word for a state: "ready", "at risk", "unknown", "in maintenance". */
export function preflightStateText(state: PreflightState): string {
  return state === 'at-risk' ? 'at risk' : state === 'maintenance' ? 'in maintenance' : state;
}

/** The checks that explain a state that is not ready: the failures, else the unknowns. */
export function preflightReasons(p: Preflight): PreflightCheck[] {
  const failing = p.checks.filter((c) => c.status === 'fail');
  return failing.length > 0 ? failing : p.checks.filter((c) => c.status === 'unknown');
}

/** The Markdown summary's lines for the pre-flights: one a loop, then its warnings. */
export function preflightMarkdown(list: readonly Preflight[]): string[] {
  const lines: string[] = [];
  for (const p of [...list].sort((a, b) => (a.loop < b.loop ? -1 : a.loop > b.loop ? 1 : 0))) {
    const why = p.maintenance ? ` (${escapeMarkdown(p.maintenance.reason)}, until ${p.maintenance.until})` : '';
    lines.push(`- **${escapeMarkdown(p.loop)}** (fire ${p.fireAt}) — **${preflightStateText(p.state)}**${why}`);
    for (const c of preflightReasons(p)) lines.push(`  - ${PREFLIGHT_CHECK_LABEL[c.name]}: ${escapeMarkdown(c.detail)}`);
    for (const c of p.checks.filter((x) => x.status === 'warn')) lines.push(`  - ${PREFLIGHT_CHECK_LABEL[c.name]} (warning): ${escapeMarkdown(c.detail)}`);
  }
  return lines;
}
