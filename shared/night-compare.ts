import * as z from 'zod';
import { CycleStatusSchema, FailureCauseKindSchema, PhaseStatusSchema } from './loop-domain';
import { SuiteResultSchema, SuiteRunnerSchema, SuiteTotalsSchema, type SuiteResult } from './suite-summary';

// Night against night (issue "Night against night", item 4): two nights of one loop side by side —
// each phase's outcome, times, rounds, cause and commits, the first rc step and the first
// transcript line where the nights part, the findings each opened and closed, the PRs each
// delivered and the fleet in each window. The comparison is made in main (main/core/compare/); what
// is here is its shape (`nights.compare`, `loopdeck compare --json`) and the pure rules it uses:
// which parts of a line change from night to night (normalizeLine) and where two line streams
// first part (firstDivergence).

/** Lines of each transcript compared at most; past them the comparison says it stopped there. */
export const COMPARE_MAX_LINES = 200_000;
/** Bytes of each transcript read at most (from its start). */
export const COMPARE_MAX_BYTES = 64 * 1024 * 1024;
/** Characters of a diverging line kept in the result (then `…`). */
export const COMPARE_LINE_CHARS = 2000;
/** Commits of a phase named in the result (the rest are counted). */
export const COMPARE_COMMITS_SHOWN = 5;
/** Finding ids of a night listed at most (the totals count all). */
export const COMPARE_MAX_IDS = 200;

/** A cycle date, `YYYY-MM-DD`. */
export const NightDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a cycle date YYYY-MM-DD');

/** What `nights.compare` is asked: a loop, a night, and the night to compare it with (default: the last good night before it). */
export const CompareNightsInputSchema = z.object({ loop: z.string().min(1).max(200), a: NightDateSchema, b: NightDateSchema.optional() });
/** What `nights.compare` is asked. */
export type CompareNightsInput = z.infer<typeof CompareNightsInputSchema>;

/** One commit of a phase, as the comparison names it. */
export const CompareCommitSchema = z.object({ sha: z.string(), message: z.string() }).readonly();

/** One phase on one night. */
export const PhaseSideSchema = z
  .object({
    status: PhaseStatusSchema,
    /** Which evidence decided the status (Phase.reason). */
    reason: z.string(),
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
    /** End − start (ms) when both are known; else null. */
    durationMs: z.number().nullable(),
    /** STARTED stamps: 1 for a phase run once (0 when it never stamped one). */
    rounds: z.number().int().nonnegative(),
    /** Who a failed, incomplete or hung phase is put down to; null otherwise. */
    cause: z.object({ kind: FailureCauseKindSchema, detail: z.string() }).readonly().nullable(),
    /** The commits the phase made (from the clone's reflog): how many, and the first COMPARE_COMMITS_SHOWN. */
    commits: z.object({ count: z.number().int().nonnegative(), first: z.array(CompareCommitSchema).readonly() }).readonly(),
    /** The transcript's size in bytes; null when the night has none for the phase. */
    transcriptBytes: z.number().int().nonnegative().nullable(),
    /** The suites its transcript ran (Phase.suites: shared/suite-summary.ts); absent when none was read. */
    suites: z.array(SuiteResultSchema).readonly().optional(),
  })
  .readonly();
/** One phase on one night. */
export type PhaseSide = z.infer<typeof PhaseSideSchema>;

/**
 * The first rc step, in plan order (stages by name, each stage's steps in the order first
 * planned), whose value differs between the nights; `a`/`b` null: not run (or not planned) that night.
 */
export const RcDivergenceSchema = z
  .object({ stage: z.string(), step: z.string(), a: z.number().int().nullable(), b: z.number().int().nullable() })
  .readonly();
/** Where the rc files of two nights first differ. */
export type RcDivergence = z.infer<typeof RcDivergenceSchema>;

/**
 * The first transcript line (1-based, in each night's own transcript; the two are compared in
 * lockstep, so today the same number) whose normalized text differs (see normalizeLine), with
 * both lines as written (cut at COMPARE_LINE_CHARS). A side's text is null when its transcript
 * ended (or there is none) before that line.
 */
export const LineDivergenceSchema = z
  .object({
    lineA: z.number().int().positive(),
    lineB: z.number().int().positive(),
    a: z.string().nullable(),
    b: z.string().nullable(),
  })
  .readonly();
/** Where two transcripts first differ. */
export type LineDivergence = z.infer<typeof LineDivergenceSchema>;

/**
 * How far the transcripts were compared: `lines` equal lines before the divergence (or the end, or
 * the bound); `stopped` says a bound ended the comparison with no divergence found before it —
 * `lines` (COMPARE_MAX_LINES) or `bytes` (COMPARE_MAX_BYTES of one side read) — and null otherwise.
 */
export const TranscriptReachSchema = z
  .object({ lines: z.number().int().nonnegative(), stopped: z.enum(['lines', 'bytes']).nullable() })
  .readonly();

/**
 * One suite runner's last run of a phase on each night (null: none that night) and how its
 * counts moved from b to a (`a − b`; null unless both nights ran it).
 */
export const SuiteDeltaSchema = z
  .object({
    runner: SuiteRunnerSchema,
    a: SuiteTotalsSchema.nullable(),
    b: SuiteTotalsSchema.nullable(),
    passed: z.number().int().nullable(),
    failed: z.number().int().nullable(),
  })
  .readonly();
/** How one runner's suite moved between the nights. */
export type SuiteDelta = z.infer<typeof SuiteDeltaSchema>;

/** One phase of the loop on both nights, and where they part. */
export const PhaseComparisonSchema = z
  .object({
    name: z.string(),
    /** Null when that night's cycle has no such phase (the loop's phases changed between them). */
    a: PhaseSideSchema.nullable(),
    b: PhaseSideSchema.nullable(),
    firstRcDivergence: RcDivergenceSchema.nullable(),
    /** Null when the transcripts agree as far as they were compared (see `transcript`). */
    firstLineDivergence: LineDivergenceSchema.nullable(),
    transcript: TranscriptReachSchema,
    /** Each suite runner either night's phase ran, in order of first appearance (a's, then b's); absent when neither ran one. */
    suites: z.array(SuiteDeltaSchema).readonly().optional(),
  })
  .readonly();
/** One phase on both nights. */
export type PhaseComparison = z.infer<typeof PhaseComparisonSchema>;

/** One night: its date and its cycle's status. */
export const NightSideSchema = z.object({ date: z.string(), status: CycleStatusSchema }).readonly();

/** The findings a night opened (its audit section's date) and closed (a DONE outcome that day): ids, at most COMPARE_MAX_IDS each, and how many. */
export const NightFindingsSchema = z
  .object({
    opened: z.array(z.string()).readonly(),
    closed: z.array(z.string()).readonly(),
    openedTotal: z.number().int().nonnegative(),
    closedTotal: z.number().int().nonnegative(),
  })
  .readonly();
/** The findings a night opened and closed. */
export type NightFindings = z.infer<typeof NightFindingsSchema>;

/**
 * The inference fleet over a night's window (its first phase's start to its last phase's end),
 * from the capacity history Loopdeck stored while it ran (minute rollups for a week, ten-minute
 * ones for 30 days): null when it stored none for the window.
 */
export const FleetWindowSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    /** Generated tokens a second, every host summed (each host's tokens over the time it reported them); null when no host reported tokens. */
    tokensPerSecond: z.number().nonnegative().nullable(),
    /** The longest queue any host had. */
    queuedPeak: z.number().nonnegative().nullable(),
    /** Failed requests the proxies counted, in all and by status. */
    errors: z.number().int().nonnegative(),
    errorsByStatus: z.record(z.string(), z.number().int().nonnegative()).readonly(),
    /**
     * The models the proxies' request log names in the window (each served a request). Which
     * models were loaded is not kept in the history, only what served; empty when no request row was kept.
     */
    modelsServed: z.array(z.string()).readonly(),
    /** History rows the figures come from. */
    samples: z.number().int().nonnegative(),
  })
  .readonly();
/** The fleet over a night's window. */
export type FleetWindow = z.infer<typeof FleetWindowSchema>;

/** Two nights of one loop side by side (`nights.compare`, `loopdeck compare --json`). */
export const NightComparisonSchema = z
  .object({
    loop: z.string(),
    /** The runner host both nights were read from. */
    host: z.string(),
    a: NightSideSchema,
    b: NightSideSchema,
    /** `given`: b was asked for; `last-good`: b is the last night before a whose cycle was ok or ready. */
    picked: z.enum(['given', 'last-good']),
    phases: z.array(PhaseComparisonSchema).readonly(),
    /** Null when the loop's ledgers were not read (no ledgers configured, or not read yet). */
    findings: z.object({ a: NightFindingsSchema, b: NightFindingsSchema }).readonly().nullable(),
    /** The PR URLs each night's deliver verdict or stamp named. */
    prs: z.object({ a: z.array(z.string()).readonly(), b: z.array(z.string()).readonly() }).readonly(),
    fleet: z.object({ a: FleetWindowSchema.nullable(), b: FleetWindowSchema.nullable() }).readonly(),
    /** The bounds the transcripts were compared within. */
    bounds: z.object({ maxLines: z.number().int().positive(), maxBytes: z.number().int().positive() }).readonly(),
    /** What could not be read or compared, one sentence each (a transcript that could not be read, a reflog cut). */
    notes: z.array(z.string()).readonly(),
  })
  .readonly();
/** Two nights of one loop side by side. */
export type NightComparison = z.infer<typeof NightComparisonSchema>;

// --- What changes from night to night -----------------------------------------------------------

/** Characters of a line normalized at most: a difference past them is not seen. */
export const NORMALIZE_MAX_CHARS = 64 * 1024;

const MASKS: readonly (readonly [RegExp, string])[] = [
  // Escape sequences (CSI, OSC, and two-character ones), then the other control characters but tab.
  // eslint-disable-next-line no-control-regex
  [/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g, ''],
  // eslint-disable-next-line no-control-regex
  [/[\x00-\x08\x0a-\x1f\x7f]/g, ''],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // Temporary paths (Linux, macOS's per-user folder) up to a space or a quote.
  [/(?:\/private)?\/(?:tmp|var\/tmp|var\/folders)\/[^\s'"`)\]]*/g, '<tmp>'],
  // ISO-like date-times (`2026-08-23T00:41:12.5-04:00`, `2026-08-23 00:41`), then dates, then times of day.
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?!\d)/g, '<time>'],
  [/\b\d{4}[-/]\d{2}[-/]\d{2}\b/g, '<date>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  // Durations: `858s`, `12.3s`, `1m2s`, `1h02m`, `250ms`, `3.1 s`.
  [/\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|[hms])(?:\d+(?:\.\d+)?(?:ms|[hms]))*(?![A-Za-z0-9_])/g, '<dur>'],
  // Hex: `0x…`, and SHAs of 7 to 64 hex digits with at least one digit and one letter (a word like `defaced` is kept).
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b/gi, '<sha>'],
  [/\d+/g, '#'],
];

/**
 * A transcript line with what changes from night to night masked, so that two nights' lines
 * compare equal when only that changed: escape sequences and control characters dropped,
 * UUIDs, temporary paths, timestamps, dates, times of day, durations, hex SHAs (7–64 digits)
 * masked, every other digit run `#`, trailing space removed. Looks at the first
 * NORMALIZE_MAX_CHARS characters.
 */
export function normalizeLine(text: string): string {
  let s = text.length > NORMALIZE_MAX_CHARS ? text.slice(0, NORMALIZE_MAX_CHARS) : text;
  for (const [re, to] of MASKS) s = s.replace(re, to);
  return s.trimEnd();
}

// --- Where two line streams part ----------------------------------------------------------------

/**
 * Where two line streams first part, 0-based `index`: `differ` (both have a line there and their
 * normalized texts differ), `ended` (one stream ended there; `ended` names it, its text is null),
 * or `bound` (the first `maxLines` lines agree and no more were compared).
 */
export type Divergence =
  | { readonly kind: 'differ'; readonly index: number; readonly a: string; readonly b: string }
  | { readonly kind: 'ended'; readonly index: number; readonly ended: 'a' | 'b'; readonly a: string | null; readonly b: string | null }
  | { readonly kind: 'bound'; readonly index: number };

/** Lines, from memory or read as they are needed. */
export type Lines = AsyncIterable<string> | Iterable<string>;

function iteratorOf(lines: Lines): AsyncIterator<string> | Iterator<string> {
  return Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]();
}

/**
 * Compare two line streams in lockstep, each line normalized (normalizeLine), and say where they
 * first part; null when they agree to the end of both. Reads at most `maxLines` lines of each and
 * never more of either than the divergence needs; the streams are closed (`return`) when it stops early.
 */
export async function firstDivergence(a: Lines, b: Lines, options: { readonly maxLines: number }): Promise<Divergence | null> {
  const ia = iteratorOf(a);
  const ib = iteratorOf(b);
  let aDone = false;
  let bDone = false;
  try {
    for (let index = 0; ; index++) {
      if (index >= options.maxLines) return { kind: 'bound', index };
      const [ra, rb] = await Promise.all([ia.next(), ib.next()]);
      aDone = ra.done === true;
      bDone = rb.done === true;
      if (aDone && bDone) return null;
      if (aDone || bDone) return { kind: 'ended', index, ended: aDone ? 'a' : 'b', a: aDone ? null : (ra.value as string), b: bDone ? null : (rb.value as string) };
      if (normalizeLine(ra.value) !== normalizeLine(rb.value)) return { kind: 'differ', index, a: ra.value, b: rb.value };
    }
  } finally {
    // Stop what reads ahead (a transcript read from a host) once the answer is known.
    await Promise.all([aDone ? undefined : ia.return?.(), bDone ? undefined : ib.return?.()]);
  }
}

/**
 * How each suite runner's last run moved from night b to night a (see SuiteDeltaSchema); [] when
 * neither ran a suite.
 */
export function suiteDeltas(a: readonly SuiteResult[], b: readonly SuiteResult[]): SuiteDelta[] {
  const last = (list: readonly SuiteResult[]): Map<SuiteResult['runner'], SuiteResult> => new Map(list.map((r) => [r.runner, r]));
  const la = last(a);
  const lb = last(b);
  const runners = [...new Set([...a.map((r) => r.runner), ...b.map((r) => r.runner)])];
  const totals = (r: SuiteResult | undefined) => (r ? { passed: r.passed, failed: r.failed, skipped: r.skipped, errors: r.errors } : null);
  return runners.map((runner) => {
    const ra = la.get(runner);
    const rb = lb.get(runner);
    return { runner, a: totals(ra), b: totals(rb), passed: ra && rb ? ra.passed - rb.passed : null, failed: ra && rb ? ra.failed - rb.failed : null };
  });
}

/** A line as the comparison keeps it: cut at COMPARE_LINE_CHARS. */
export function keptLine(text: string | null): string | null {
  if (text === null || text.length <= COMPARE_LINE_CHARS) return text;
  return `${text.slice(0, COMPARE_LINE_CHARS)}…`;
}
