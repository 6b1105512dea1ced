import * as z from 'zod';
import { phaseSuiteTotals, SuiteTotalsSchema } from './suite-summary';
import { CycleStatusSchema, FailureCauseKindSchema, PhaseStatusSchema, type Cycle, type Phase, type PhaseStatus } from './loop-domain';

// One night of one loop as the store keeps it for Trends once its files are no longer followed
// (issue 30, item 4): what Trends, the failure counts and the measures of improvement read of a
// cycle, and nothing else (no detail lines, no stages, no transcript text), bounded in size.

/** The most bytes a kept night's JSON may take; `boundNight` cuts what does not fit (PR URLs, then phases). */
export const MAX_NIGHT_BYTES = 2048;
/** A kept night keeps at most this many phases and PR URLs, each name or URL at most MAX_NIGHT_TEXT characters. */
export const MAX_NIGHT_PHASES = 8;
export const MAX_NIGHT_URLS = 8;
export const MAX_NIGHT_TEXT = 160;

const FINISHED: ReadonlySet<PhaseStatus> = new Set(['ok', 'no-op', 'ready', 'incomplete', 'failed']);

/** One phase of a kept night: its status, times, duration, whether it hit its cap, hollow, rounds and its cause's kind. */
export const NightPhaseSchema = z
  .object({
    name: z.string(),
    status: PhaseStatusSchema,
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
    /** Finished with both times: end − start (ms); else null. */
    durationMs: z.number().nullable(),
    capHit: z.boolean(),
    /** A remediate stamped ok or no-op that left backlog items without a final outcome (Phase.hollow). */
    hollow: z.boolean(),
    rounds: z.number().int().optional(),
    /** Who a failed, incomplete or hung phase is put down to (Phase.cause); absent when not known. */
    cause: FailureCauseKindSchema.nullable().optional(),
    /** A failed or incomplete phase, or a running one the transcript calls hung or spinning: counted under its cause. */
    bad: z.boolean().optional(),
    /** Fleet tokens in the proxies' usage rows over the phase's window, as stored when the night was last written; absent when none were kept. */
    tokens: z.number().int().nonnegative().optional(),
    /** Its suites' totals (phaseSuiteTotals of Phase.suites: each runner's last run); absent when its transcript showed none. */
    suites: SuiteTotalsSchema.optional(),
    /** What its window cost (`costs:` in the config: the fleet's tokens and hosts' hours priced), in the night's `currency`; absent when not priced. */
    cost: z.number().nonnegative().optional(),
  })
  .readonly();
/** One phase of a kept night. */
export type NightPhase = z.infer<typeof NightPhaseSchema>;

/**
 * A night's Broken contract items (shared/contract-breach.ts) counted: in all, and by kind. Keyed
 * by the kind's name as a string, not the enum, so a kind an earlier or later build knows does not
 * make a kept row unreadable (it is shown by its name).
 */
export const NightBreachesSchema = z
  .object({
    total: z.number().int().nonnegative(),
    /** Only the kinds it had, each at least 1. */
    kinds: z.record(z.string(), z.number().int().positive()).readonly(),
  })
  .readonly();
/** A night's contract breaches, in all and by kind (`kinds[kind]`, absent when none). */
export type NightBreaches = z.infer<typeof NightBreachesSchema>;

/** One loop's night as kept: the cycle's status, its phases, and the PRs its deliver phase named ready. */
export const NightSummarySchema = z
  .object({
    loop: z.string(),
    date: z.string(),
    status: CycleStatusSchema,
    phases: z.array(NightPhaseSchema).readonly(),
    /** How many PRs the night delivered (its deliver verdict's or stamp's URLs, all of them, even past MAX_NIGHT_URLS). */
    prs: z.number().int().nonnegative(),
    /** The first MAX_NIGHT_URLS of them. */
    prUrls: z.array(z.string()).readonly(),
    /** New findings of the night by severity, when the ledgers were read; absent otherwise (Trends counts the ledgers' own). */
    opened: z.record(z.string(), z.number().int()).optional(),
    /**
     * Its Broken contract items as counted when the row was last written while the night was
     * followed (TrendNights.noteContract); absent for a night never followed with the list (not
     * known: shown "—", never 0).
     */
    breaches: NightBreachesSchema.optional(),
    /** The currency its phases' `cost` is in (`costs.currency`); absent when none was priced. */
    currency: z.string().optional(),
  })
  .readonly();
/** One loop's night as kept. */
export type NightSummary = z.infer<typeof NightSummarySchema>;

const URL_RE = /https:\/\/[^\s<>"'`]+/gi;
const PR_RE = /\/pull\/\d+/;

/** The PR URLs a cycle's phases name as delivered: a READY verdict's, and a `N PR(s) green, ready to merge: <urls>` stamp's. */
export function deliveredUrls(cycle: Cycle): string[] {
  const out = new Set<string>();
  for (const p of cycle.phases) {
    if (p.verdict?.kind === 'deliver-ready') for (const u of p.verdict.urls) out.add(u);
    if (p.status !== 'ready') continue;
    const stamp = /^wrapper stamp (.*)$/s.exec(p.reason)?.[1] ?? '';
    for (const u of stamp.replace(/^.*?ready to merge:?/i, '').match(URL_RE) ?? []) {
      const url = u.replace(/[.,;:)\]}>]+$/, '');
      if (PR_RE.test(url)) out.add(url);
    }
  }
  return [...out];
}

/** A phase's cap hit: decided incomplete for finding no outcome past its cap (the status reason says so). */
export function isCapHit(p: Pick<Phase, 'status' | 'reason'>): boolean {
  return p.status === 'incomplete' && /\bcap\b/.test(p.reason);
}

const clip = (s: string): string => (s.length > MAX_NIGHT_TEXT ? s.slice(0, MAX_NIGHT_TEXT) : s);

/** One phase as a night keeps it. */
export function nightPhase(p: Phase): NightPhase {
  const start = p.startedAt ? Date.parse(p.startedAt) : NaN;
  const end = p.endedAt ? Date.parse(p.endedAt) : NaN;
  const ok = FINISHED.has(p.status) && Number.isFinite(start) && Number.isFinite(end) && end >= start;
  const suites = p.suites ? phaseSuiteTotals(p.suites) : null;
  const bad = p.status === 'failed' || p.status === 'incomplete' || (p.status === 'running' && (p.signal?.kind === 'hung' || p.signal?.kind === 'spinning'));
  return {
    name: clip(p.name),
    status: p.status,
    startedAt: p.startedAt,
    endedAt: p.endedAt,
    durationMs: ok ? end - start : null,
    capHit: isCapHit(p),
    hollow: !!p.hollow,
    ...(p.rounds !== undefined ? { rounds: p.rounds } : {}),
    ...(p.cause ? { cause: p.cause.kind } : {}),
    ...(bad ? { bad: true } : {}),
    ...(suites ? { suites } : {}),
  };
}

/** A cycle as a night keeps it (the one rule the store's rows and Trends' followed nights share). */
export function summarizeCycle(loop: string, cycle: Cycle, opened?: Readonly<Record<string, number>>): NightSummary {
  const urls = deliveredUrls(cycle);
  return boundNight({
    loop,
    date: cycle.date,
    status: cycle.status,
    phases: cycle.phases.map(nightPhase),
    prs: urls.length,
    prUrls: urls,
    ...(opened ? { opened } : {}),
  });
}

/** A night within MAX_NIGHT_BYTES: at most MAX_NIGHT_PHASES phases and MAX_NIGHT_URLS URLs, then fewer URLs, then fewer phases, until it fits. */
export function boundNight(n: NightSummary): NightSummary {
  let out: NightSummary = { ...n, phases: n.phases.slice(0, MAX_NIGHT_PHASES), prUrls: n.prUrls.slice(0, MAX_NIGHT_URLS).map(clip) };
  while (nightBytes(out) > MAX_NIGHT_BYTES && out.prUrls.length > 0) out = { ...out, prUrls: out.prUrls.slice(0, -1) };
  while (nightBytes(out) > MAX_NIGHT_BYTES && out.phases.length > 0) out = { ...out, phases: out.phases.slice(0, -1) };
  return out;
}

/** A night's JSON length in bytes (UTF-8). */
export function nightBytes(n: NightSummary): number {
  const json = JSON.stringify(n);
  let bytes = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return bytes;
}

/** From the night's first phase start (its audit's) to the end of the phase that delivered READY (ms); null without one. */
export function readyAfterMs(phases: readonly Pick<NightPhase, 'name' | 'status' | 'startedAt' | 'endedAt'>[]): number | null {
  const ready = phases.find((p) => p.status === 'ready' && p.endedAt !== null);
  const first = (phases.find((p) => p.name === 'audit') ?? phases[0])?.startedAt;
  if (!ready?.endedAt || !first) return null;
  const ms = Date.parse(ready.endedAt) - Date.parse(first);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/** A night's fleet tokens over its phases (null when no phase has any: unknown, not zero). */
/**
 * What a kept night cost, in all and in waste — its bad phases (failed, incomplete, hung or
 * spinning) and its hollow remediates — from its phases' `cost`; null when none was priced.
 */
export function nightCost(n: NightSummary | null): { readonly amount: number; readonly waste: number; readonly currency: string } | null {
  const priced = (n?.phases ?? []).filter((p) => p.cost !== undefined);
  if (!n || priced.length === 0) return null;
  const amount = priced.reduce((a, p) => a + (p.cost ?? 0), 0);
  const waste = priced.filter((p) => p.bad || p.hollow).reduce((a, p) => a + (p.cost ?? 0), 0);
  return { amount, waste, currency: n.currency ?? 'USD' };
}

export function nightTokens(n: NightSummary | null): number | null {
  const known = (n?.phases ?? []).map((p) => p.tokens).filter((t): t is number => t !== undefined);
  return known.length > 0 ? known.reduce((a, b) => a + b, 0) : null;
}
