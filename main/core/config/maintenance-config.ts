import * as z from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { Duration, Name, NonEmpty, TimeZone } from './config-parts';
import { messageOf } from '../../../shared/errors';

// `maintenance:` (issue "The operator's week", item 1): windows when loops, hosts or proxies are
// expected to be down or disturbed. Each is one-off (`start`, `end`) or recurring (`every`: a cron
// read in `timezone`, lasting `for`), with a `reason` and an optional scope (`loops`, `hosts`,
// `proxies`; none: everything). What a window does is main/core/maintenance; this is only what may
// be written. Names in a scope are checked against the config in schema.ts.


/** An ISO time with its offset (`2026-11-29T01:00:00Z`, `2026-11-29T02:00+01:00`): a time without one would mean this machine's zone. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

const IsoTime = z.string().transform((text, ctx) => {
  const ms = ISO_TIME.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (Number.isNaN(ms)) {
    ctx.addIssue({ code: 'custom', message: `expected an ISO time with its offset such as "2026-11-29T01:00:00Z" or "2026-11-29T02:00:00+01:00", got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return ms;
});

/** A five-field cron that cron-parser reads (the dead-man's evaluator reads it the same way). */
const Cron = z.string().superRefine((text, ctx) => {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5) {
    ctx.addIssue({ code: 'custom', message: `expected a five-field cron expression such as "0 2 * * *", got ${JSON.stringify(text)}` });
    return;
  }
  try {
    CronExpressionParser.parse(fields.join(' '), { tz: 'UTC' });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `expected a cron expression such as "0 2 * * *": ${messageOf(err)}` });
  }
});

const Names = z.array(Name).min(1, 'expected at least one name (leave the key out for everything)');

/** One `maintenance:` entry as written; `MaintenanceWindowConfig` is what it becomes (a window from the console is read with it too). */
export const MaintenanceWindowEntrySchema = z
  .object({
    start: IsoTime.optional(),
    end: IsoTime.optional(),
    every: Cron.optional(),
    for: Duration.optional(),
    timezone: TimeZone.optional(),
    reason: NonEmpty,
    loops: Names.optional(),
    hosts: Names.optional(),
    proxies: Names.optional(),
  })
  .strict()
  .superRefine((w, ctx) => {
    const once = w.start !== undefined || w.end !== undefined;
    const every = w.every !== undefined || w.for !== undefined || w.timezone !== undefined;
    const shape = 'expected { start, end } (ISO times) or { every: "<cron>", for: <duration>, timezone? }';
    if (once && every) {
      ctx.addIssue({ code: 'custom', path: [w.every !== undefined ? 'every' : w.for !== undefined ? 'for' : 'timezone'], message: `a window is either one-off or recurring: ${shape}, not both` });
      return;
    }
    if (!once && !every) {
      ctx.addIssue({ code: 'custom', message: shape });
      return;
    }
    if (once) {
      if (w.start === undefined) ctx.addIssue({ code: 'custom', path: ['start'], message: 'required with end: when the window begins (an ISO time)' });
      if (w.end === undefined) ctx.addIssue({ code: 'custom', path: ['end'], message: 'required with start: when the window ends (an ISO time)' });
      if (w.start !== undefined && w.end !== undefined && w.end <= w.start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'expected a time after start' });
      return;
    }
    if (w.every === undefined) ctx.addIssue({ code: 'custom', path: ['every'], message: 'required with for: when each occurrence begins (a cron, read in timezone)' });
    if (w.for === undefined) ctx.addIssue({ code: 'custom', path: ['for'], message: 'required with every: how long each occurrence lasts, such as "2h"' });
  })
  .transform((w): MaintenanceWindowConfig => {
    const scope = {
      reason: w.reason,
      ...(w.loops ? { loops: w.loops } : {}),
      ...(w.hosts ? { hosts: w.hosts } : {}),
      ...(w.proxies ? { proxies: w.proxies } : {}),
    };
    if (w.every !== undefined) return { kind: 'every', every: w.every.trim().split(/\s+/).join(' '), forMs: w.for ?? 0, timezone: w.timezone ?? 'UTC', ...scope };
    return { kind: 'once', startMs: w.start ?? 0, endMs: w.end ?? 0, ...scope };
  });

/** What a window covers: the names given, each list absent when not given (none given: everything). */
export interface MaintenanceScope {
  readonly loops?: readonly string[];
  readonly hosts?: readonly string[];
  readonly proxies?: readonly string[];
}

/** One validated maintenance window (times in epoch ms, durations in ms); `id` is a console window's own (a config window's is a hash of it). */
export type MaintenanceWindowConfig = MaintenanceScope & { readonly reason: string; readonly id?: string } & (
    | { readonly kind: 'once'; readonly startMs: number; readonly endMs: number }
    | { readonly kind: 'every'; readonly every: string; readonly forMs: number; readonly timezone: string }
  );

/** `maintenance:` — a list of windows. */
export const MaintenanceConfigSchema = z.array(MaintenanceWindowEntrySchema).max(200, 'at most 200 maintenance windows');

/**
 * The names in the windows' scopes that the config does not declare, each with its path under
 * `maintenance` and a message: a typo there would silence nothing, silently.
 */
export function undeclaredMaintenanceNames(
  windows: readonly MaintenanceScope[],
  declared: { readonly loops: readonly string[]; readonly hosts: readonly string[]; readonly proxies: readonly string[] },
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const kinds = [
    ['loops', 'loop'],
    ['hosts', 'host'],
    ['proxies', 'proxy'],
  ] as const;
  windows.forEach((w, i) => {
    for (const [key, what] of kinds) {
      (w[key] ?? []).forEach((name, j) => {
        const known = declared[key];
        if (known.includes(name)) return;
        out.push({ path: [i, key, j], message: `${what} ${JSON.stringify(name)} is not declared under ${key} (declared: ${known.length ? known.join(', ') : 'none'})` });
      });
    }
  });
  return out;
}
