import { REMEDIATE_PHASE } from './hollow';
import type { PullRequest } from './loop-domain';
import type { NightPhase } from './night-summary';

// The merge measures (issue 44, item 5), as the reliability loop's manual defines them under
// "Measure improvement": time to CI green (the remediate's start to the deliver phase's green
// verdict; a deliver INCOMPLETE on one night whose PR goes green on the next fire counts, from the
// first night's remediate start) and the PRs awaiting merge with their age. One rule for Trends,
// `loopdeck trends` and its JSON (shared/loop-measures.ts trendsReport calls these).

/** The phase whose INCOMPLETE verdict the next fire resumes (the manual's "Mode: deliver", step 1). */
export const DELIVER_PHASE = 'deliver';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** What of a night's phase the time to green reads (a kept night's phases and Trends' both fit). */
export type TimedPhase = Pick<NightPhase, 'name' | 'status' | 'startedAt' | 'endedAt'>;

/** One night's time to CI green. */
export interface GreenTime {
  /** From the night's remediate start to the green verdict (ms). */
  readonly ms: number;
  /** The night whose deliver gave the green verdict: this one, or the next fire when this one's deliver ended INCOMPLETE. */
  readonly on: string;
}

const epoch = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : NaN);

/** When a night's deliver said green (a phase ended `ready`: a READY verdict or an "N PR(s) green" stamp), epoch ms; NaN when it did not. */
function greenAt(phases: readonly TimedPhase[]): number {
  return epoch(phases.find((p) => p.status === 'ready')?.endedAt);
}

/**
 * Each night's time from its remediate start to CI green, by date, for one loop's nights: its own
 * deliver's green verdict, else — when its deliver ended INCOMPLETE — the next fire's (the next
 * night that ran: its deliver resumes the same branch and PR first). A night with no remediate
 * start, never green, or whose next fire has not said green yet has no entry (shown "—", never 0).
 */
export function remediateToGreen(nights: readonly { readonly date: string; readonly phases: readonly TimedPhase[] }[]): Map<string, GreenTime> {
  const out = new Map<string, GreenTime>();
  const ran = nights.filter((n) => n.phases.length > 0).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  ran.forEach((n, i) => {
    const start = epoch(n.phases.find((p) => p.name === REMEDIATE_PHASE)?.startedAt);
    if (!Number.isFinite(start)) return;
    let green = greenAt(n.phases);
    let on = n.date;
    const next = ran[i + 1];
    if (!Number.isFinite(green) && next && n.phases.some((p) => p.name === DELIVER_PHASE && p.status === 'incomplete')) {
      green = greenAt(next.phases);
      on = next.date;
    }
    if (Number.isFinite(green) && green >= start) out.set(n.date, { ms: green - start, on });
  });
  return out;
}

/** A PR awaiting merge: green (its status `ready`) and neither merged nor closed. */
export interface AwaitingPr {
  readonly url: string;
  readonly number: number | null;
  /** When it went green (its `since`; else the start of the night that delivered it), ISO; null when neither is known. */
  readonly since: string | null;
  /** How long it has waited (ms); null when `since` is not known. */
  readonly ageMs: number | null;
}

/** A loop's PRs awaiting merge at one time: how many, the oldest's age, and each (oldest first). */
export interface AwaitingMerge {
  readonly count: number;
  /** The oldest's age (ms); null when none waits or no age is known. */
  readonly oldestMs: number | null;
  readonly prs: readonly AwaitingPr[];
}

/** One PR's time awaiting merge: from `from` to `to` (epoch ms; `to` Infinity while it still waits). */
interface Wait {
  readonly pr: PullRequest;
  readonly from: number;
  readonly to: number;
}

const nightStart = (cycle: string | null): number => (cycle !== null && DATE_RE.test(cycle) ? Date.parse(`${cycle}T00:00:00Z`) : NaN);

/**
 * A loop's PRs' times awaiting merge. A PR still `ready` waits from its `since` (when it went
 * green) on; a merged or closed one waited from the night that delivered it (its `cycle`: the PR
 * list does not keep when it went green) to GitHub's `mergedAt` or `closedAt` (else its `since`).
 * Incomplete and pending PRs are not green: they do not wait for a merge.
 */
function waits(prs: readonly PullRequest[], loop: string): Wait[] {
  const out: Wait[] = [];
  for (const pr of prs) {
    if (pr.loop !== loop) continue;
    const state = pr.github?.state;
    const ended = pr.status === 'merged' || pr.status === 'closed' || state === 'merged' || state === 'closed';
    if (ended) {
      const from = nightStart(pr.cycle);
      const to = epoch(pr.github?.mergedAt ?? pr.github?.closedAt ?? pr.since);
      if (Number.isFinite(from) && Number.isFinite(to)) out.push({ pr, from, to });
    } else if (pr.status === 'ready') {
      const since = epoch(pr.since);
      out.push({ pr, from: Number.isFinite(since) ? since : nightStart(pr.cycle), to: Infinity });
    }
  }
  return out;
}

function waitingAt(all: readonly Wait[], t: number): AwaitingMerge {
  const prs = all
    .filter((w) => !(w.from >= t) && w.to > t)
    .map((w) => ({ url: w.pr.url, number: w.pr.number, since: Number.isFinite(w.from) ? new Date(w.from).toISOString() : null, ageMs: Number.isFinite(w.from) ? Math.max(0, t - w.from) : null }))
    .sort((a, b) => (b.ageMs ?? -1) - (a.ageMs ?? -1) || a.url.localeCompare(b.url));
  const ages = prs.map((p) => p.ageMs).filter((a): a is number => a !== null);
  return { count: prs.length, oldestMs: ages.length > 0 ? Math.max(...ages) : null, prs };
}

/** The loop's PRs awaiting merge at `at` (ISO): green and neither merged nor closed, with their ages, oldest first. */
export function awaitingMerge(prs: readonly PullRequest[], loop: string, at: string): AwaitingMerge {
  return waitingAt(
    waits(prs, loop).filter((w) => w.to === Infinity),
    epoch(at),
  );
}

/** A night's PRs awaiting merge at its end (or at `now`, for a night not over): null when not known. */
export interface NightAwaiting {
  readonly awaitingMerge: number | null;
  readonly oldestAwaitingMs: number | null;
}

/**
 * How many of a loop's PRs awaited merge at the end of each night (UTC day; `now` for today's),
 * and the oldest's age then. Only nights from `knownFrom` on are known (the oldest followed cycle:
 * the PR list holds the PRs of the followed cycles, merged ones included); earlier nights, and
 * every night when `knownFrom` is null, are null ("—", never 0).
 */
export function awaitingByNight(dates: readonly string[], prs: readonly PullRequest[], loop: string, now: string, knownFrom: string | null): NightAwaiting[] {
  const all = waits(prs, loop);
  const nowMs = epoch(now);
  return dates.map((d) => {
    if (knownFrom === null || d < knownFrom) return { awaitingMerge: null, oldestAwaitingMs: null };
    const w = waitingAt(all, Math.min(nowMs, nightStart(d) + DAY));
    return { awaitingMerge: w.count, oldestAwaitingMs: w.oldestMs };
  });
}

/** A wait or a time to green as people read it: `40 min`, `5.2 h`, `3.1 d`; "—" when not known. */
export function waitText(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms)) return '—';
  if (ms < HOUR) return `${Math.round(ms / 60_000)} min`;
  if (ms < DAY) return `${(ms / HOUR).toFixed(1)} h`;
  return `${(ms / DAY).toFixed(1)} d`;
}

/** The awaiting-merge measure in words: `2, oldest 3.1 d`, `0`, or "—" when not known. */
export function awaitingText(a: { readonly count: number; readonly oldestMs: number | null } | null): string {
  if (a === null) return '—';
  return a.count === 0 ? '0' : `${a.count}, oldest ${waitText(a.oldestMs)}`;
}
