import { loopBaselineAt, type SuiteBaseline } from '../../../../shared/night-suites';
import { phaseSuiteTotals, suiteSentence } from '../../../../shared/suite-summary';
import type { Cycle, Deadman, DrillRun, Finding, HostState, LoopState, Phase, PullRequest, Severity } from '../../../../shared/domain';
import {
  drillRunInWindow,
  fleetIncidents,
  hostProblem as hostProblemOf,
  inWindow,
  phaseStop,
  ranInWindow,
  reviewWindow,
  stoppedBadly,
  stoppingPhase,
  type FleetIncident,
} from '../../../../shared/review-summary';
import { newestFirst } from '../../ui/format';
import { severityRank } from '../findings/findings';

// Pure derivations for the review screen: what needs the operator since they last marked it reviewed.

/** The start of the review window: the last review, or 24 hours before `now` (the summary's rule). */
export function reviewSince(lastReviewedAt: string | null, now: number): string {
  return reviewWindow(lastReviewedAt, now).since;
}

/** Where a phase stopped: the first unfinished stage and its step, or the first failing step. */
export interface StopPoint {
  readonly cycle: string;
  readonly phase: string;
  readonly status: Phase['status'];
  readonly stage: string | null;
  readonly step: string | null;
  readonly reason: string;
  /** The transcript line it is about, or null (see phaseStop). */
  readonly line: number | null;
  /** Who it is put down to (fleet, runner, agent), when it stopped badly or hung. */
  readonly cause: Phase['cause'];
  /** What its suites said (`40 failed — 3 beyond the baseline of 37`), or null when its transcript showed none. */
  readonly suites: string | null;
}

/** The stop point of one phase. */
export function stopPoint(cycle: string, phase: Phase, baseline: SuiteBaseline | null = null): StopPoint {
  const totals = phase.suites ? phaseSuiteTotals(phase.suites) : null;
  return { cycle, phase: phase.name, status: phase.status, ...phaseStop(phase), reason: phase.reason, cause: phase.cause ?? null, suites: totals ? suiteSentence(totals, baseline?.failed ?? null) : null };
}

/** One loop as the review shows it. */
export interface LoopReview {
  readonly loop: string;
  readonly host: string;
  readonly deadman: Deadman | null;
  /** The newest cycle, if any. */
  readonly last: Cycle | null;
  /** Where the newest cycle is or stopped: its first phase that did not end well (or is running). */
  readonly lastStop: StopPoint | null;
  /** Incomplete or failed phases of the cycles in the window (the newest always counts), newest first. */
  readonly issues: readonly StopPoint[];
  /** Why the loop's host cannot be read now (down, refusing, untrusted), or null: what is shown may be out of date. */
  readonly hostProblem: string | null;
  /** Something here needs a person. */
  readonly attention: boolean;
}


/** Review one loop over the window starting at `since`, with its host's state when known. */
export function reviewLoop(loop: LoopState, since: string, host?: HostState): LoopReview {
  const t = Date.parse(since);
  const cycles = newestFirst(loop.cycles);
  const last = cycles[0] ?? null;
  const stopped = last ? stoppingPhase(last) : undefined;
  const issues: StopPoint[] = [];
  cycles.forEach((c, i) => {
    if (i > 0 && !ranInWindow(c, t)) return;
    for (const p of c.phases) if (stoppedBadly(p.status)) issues.push(stopPoint(c.date, p, p.suites ? loopBaselineAt(loop, c.date) : null));
  });
  const deadmanBad = loop.deadman !== null && loop.deadman.state !== 'ok';
  const hostProblem = hostProblemOf(host);
  return {
    loop: loop.name,
    host: loop.host,
    deadman: loop.deadman,
    last,
    lastStop: last && stopped ? stopPoint(last.date, stopped, stopped.suites ? loopBaselineAt(loop, last.date) : null) : null,
    issues,
    hostProblem,
    attention: deadmanBad || issues.length > 0 || hostProblem !== null,
  };
}

/** Findings first seen in the window, most severe first (then newest), with counts per severity. */
export interface NewFindings {
  readonly items: readonly Finding[];
  readonly counts: Readonly<Record<Severity | 'none', number>>;
}

/** The findings first seen after `since`. */
export function newFindings(findings: readonly Finding[], since: string): NewFindings {
  const t = Date.parse(since);
  const items = findings.filter((f) => inWindow(f.firstSeenAt, t));
  items.sort((a, b) => severityRank(a.severity) - severityRank(b.severity) || (a.firstSeenAt < b.firstSeenAt ? 1 : a.firstSeenAt > b.firstSeenAt ? -1 : 0));
  const counts = { P0: 0, P1: 0, P2: 0, P3: 0, none: 0 };
  for (const f of items) counts[f.severity ?? 'none'] += 1;
  return { items, counts };
}

/** New findings the Review lists when there are no P0s among them. */
export const REVIEW_FINDINGS_SHOWN = 8;
/**
 * The most it lists however many are P0: every P0 is listed up to this, the rest are a link to
 * Findings. A first read of a big ledger can make thousands new at once (15,000 at a year of
 * history), and listing them all took the page ~8 s of layout.
 */
export const REVIEW_FINDINGS_MAX = 100;

/** What the Review lists of the new findings (severity first, as `newFindings` sorts them), and what it leaves to Findings. */
export function reviewFindingsShown(fresh: NewFindings): { shown: readonly Finding[]; more: number; moreP0: number } {
  const shown = fresh.items.slice(0, Math.min(REVIEW_FINDINGS_MAX, Math.max(REVIEW_FINDINGS_SHOWN, fresh.counts.P0)));
  // P0s come first, so the list holds min(its length, the P0 count) of them.
  return { shown, more: fresh.items.length - shown.length, moreP0: fresh.counts.P0 - Math.min(shown.length, fresh.counts.P0) };
}

/** Pull requests waiting to be merged (whenever they became ready: they wait for a person). */
export function readyPrs(prs: readonly PullRequest[]): PullRequest[] {
  return prs.filter((p) => p.status === 'ready');
}

/** Drill runs started in the window, or still running, newest first. */
export function drillRunsSince(runs: readonly DrillRun[], since: string): DrillRun[] {
  const t = Date.parse(since);
  return runs
    .filter((r) => drillRunInWindow(r, t))
    .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
}

/** A fleet problem: an inference host down, or saturated (the rules are shared with the Markdown summary). */
export type Incident = FleetIncident;
export { fleetIncidents };
