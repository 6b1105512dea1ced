import type { FailureCause, PhaseContention } from '../../../shared/domain';
import { formatDuration } from '../config/duration';
import type { TroubleEpisode, TroubleKind } from '../capacity/history/trouble-episodes';
import { mergeSpans, spanTotal, type Span } from '../state/spans';
import { CONTENDED_LOAD_PER_CORE } from './contention';

// Failure attribution (issue 30, item 1): was it the fleet, the runner or the agent? A bad phase's
// own files may already say the runner (a full disk, its cap: phase-status.ts); here its window
// is laid against what Loopdeck recorded meanwhile — the runner host's outages and the fleet's
// history — and the strongest cause wins: the runner unreachable, its disk full, the fleet in
// trouble, the cap, the runner's load while the phase ran (contention.ts). Only then the agent,
// and only when Loopdeck watched the runner and has the fleet's history for the whole window
// (issue 40, item 3): a laptop closed overnight saw nothing, so a cause it did not observe is
// `unknown`, and says which stretch it did not see.

/**
 * How long trouble must overlap a phase to be its cause (ms), and at least MIN_SHARE of the phase's
 * window: a three-minute blip in a three-hour phase is not why it stopped. Saturation needs longer
 * and only counts when requests queued: every slot busy is the fleet doing its job, and a queue now
 * and then is a busy fleet, not a failing one.
 */
export const MIN_OVERLAP_MS: Readonly<Record<TroubleKind, number>> = { down: 2 * 60_000, shedding: 2 * 60_000, 'error-burst': 2 * 60_000, saturated: 10 * 60_000 };
/** The share of a phase's window trouble must cover to be its cause. */
export const MIN_SHARE: Readonly<Record<TroubleKind, number>> = { down: 0.05, shedding: 0.05, 'error-burst': 0.05, saturated: 0.25 };
/** How long a runner host outage must overlap a phase to be its cause (ms). */
export const MIN_OUTAGE_MS = 60_000;
/** Stronger first, when two kinds overlap a phase as long. */
const ORDER: readonly TroubleKind[] = ['down', 'shedding', 'error-burst', 'saturated'];
const LABEL: Readonly<Record<TroubleKind, string>> = { down: 'down', shedding: 'shedding requests', 'error-burst': 'failing requests with server errors', saturated: 'saturated with requests queued' };

/** A stretch the runner host could not be reached (ms; `until` null: still down). */
export interface Outage {
  readonly since: number;
  readonly until: number | null;
}

/** What a bad phase is laid against. */
export interface AttributionInput {
  /** The phase's window (ms): its start, and its end (now while it runs). */
  readonly start: number;
  readonly end: number;
  /** The cause its own files tell (phase-status.ts): the runner's full disk or cap, else the agent. */
  readonly local: FailureCause;
  /** The runner host's name and its outages. */
  readonly runner: string;
  readonly outages: readonly Outage[];
  /** Trouble on the fleet hosts the loop uses (`uses`). */
  readonly fleet: readonly TroubleEpisode[];
  /** The parts of the window Loopdeck was not watching the runner host (not running, or the host in a state that shows nothing). */
  readonly runnerUnwatched: readonly Span[];
  /** The parts of the window for which Loopdeck has no history of the fleet the loop uses (none when it uses no fleet). */
  readonly fleetUnwatched: readonly Span[];
  /** The runner's load while the phase ran, as sampled (contention.ts); absent or null when it was never sampled. */
  readonly contention?: PhaseContention | null;
}

/**
 * An unwatched stretch shorter than this cannot hide a cause: it is the shortest runner outage
 * that counts (MIN_OUTAGE_MS), and polls a few seconds late leave gaps far shorter.
 */
export const MIN_UNWATCHED_MS = MIN_OUTAGE_MS;

const iso = (ms: number): string => new Date(ms).toISOString();
const clock = (ms: number): string => iso(ms).slice(11, 16);
const overlap = (since: number, until: number, a: AttributionInput): number => Math.min(until, a.end) - Math.max(since, a.start);

/** `07:11–08:15 UTC`, or `07:11–07:30 and 07:50–08:15 UTC`, or the first and last of more. */
function stretches(spans: readonly Span[]): string {
  const said = spans.map((s) => `${clock(s.since)}–${clock(s.until)}`);
  if (said.length <= 2) return `${said.join(' and ')} UTC`;
  return `${said[0] ?? ''}, … and ${said.at(-1) ?? ''} UTC (${said.length} stretches)`;
}

/**
 * The cause when what Loopdeck saw of the window shows no fault but it did not see all of it:
 * `unknown`, naming what it did not watch and when; null when it watched the whole window.
 */
function unwatched(a: AttributionInput): FailureCause | null {
  const runner = mergeSpans(a.runnerUnwatched);
  const fleet = mergeSpans(a.fleetUnwatched);
  const runnerBlind = spanTotal(runner) >= MIN_UNWATCHED_MS;
  const fleetBlind = spanTotal(fleet) >= MIN_UNWATCHED_MS;
  if (!runnerBlind && !fleetBlind) return null;
  const parts: string[] = [];
  if (fleetBlind) parts.push(`Loopdeck has no fleet history for ${stretches(fleet)}`);
  if (runnerBlind) parts.push(`${fleetBlind ? 'it' : 'Loopdeck'} was not watching the runner (host ${a.runner}) for ${stretches(runner)}`);
  const all = mergeSpans([...(runnerBlind ? runner : []), ...(fleetBlind ? fleet : [])]);
  const first = all[0];
  const last = all.at(-1);
  return {
    kind: 'unknown',
    what: runnerBlind && fleetBlind ? 'unwatched' : runnerBlind ? 'runner-unwatched' : 'fleet-unwatched',
    subject: null,
    since: first ? iso(first.since) : null,
    until: last ? iso(last.until) : null,
    detail: `${parts.join(', and ')}: what it saw shows no fault, so whether the ${runnerBlind && fleetBlind ? 'runner, the fleet' : runnerBlind ? 'runner' : 'fleet'} or the agent stopped the phase is not known`,
  };
}

/**
 * The runner contended over the phase's sampled window (contention.ts): the load it saw, for how
 * long of the time it sampled, and how much of the window it did not sample; null when it was not.
 */
function contended(a: AttributionInput): FailureCause | null {
  const c = a.contention;
  if (!c?.contended) return null;
  const unsampled = a.end - a.start - c.watchedMs;
  const blind = unsampled >= MIN_UNWATCHED_MS ? `; its load was not sampled for the other ${formatDuration(unsampled)} of the phase's ${formatDuration(a.end - a.start)}` : '';
  return {
    kind: 'runner',
    what: 'contention',
    subject: a.runner,
    since: null,
    until: null,
    detail: `the runner ${a.runner} was contended: its load peaked at ${c.peakLoadPerCore} per core on ${c.cores} cores and was above ${CONTENDED_LOAD_PER_CORE} per core for ${formatDuration(c.contendedMs)} of the ${formatDuration(c.watchedMs)} Loopdeck sampled it during the phase${blind}`,
  };
}

/**
 * The cause of a bad phase: the runner unreachable > its disk full > the fleet in trouble > the
 * cap > the runner contended (an observed fault, so before unknown) > unknown (part of the
 * window not watched) > the agent.
 */
export function attribute(a: AttributionInput): FailureCause {
  let down: { since: number; until: number; ms: number } | null = null;
  for (const o of a.outages) {
    const until = o.until ?? a.end;
    const ms = overlap(o.since, until, a);
    if (ms >= MIN_OUTAGE_MS && (!down || ms > down.ms)) down = { since: Math.max(o.since, a.start), until: Math.min(until, a.end), ms };
  }
  if (down) {
    return {
      kind: 'runner',
      what: 'unreachable',
      subject: a.runner,
      since: iso(down.since),
      until: iso(down.until),
      detail: `the runner ${a.runner} could not be reached for ${formatDuration(down.ms)} (${clock(down.since)}–${clock(down.until)} UTC) during the phase`,
    };
  }
  if (a.local.what === 'disk-full') return a.local;
  let worst: { e: TroubleEpisode; ms: number } | null = null;
  for (const e of a.fleet) {
    const ms = overlap(e.since, e.until, a);
    if (ms < Math.max(MIN_OVERLAP_MS[e.what], MIN_SHARE[e.what] * (a.end - a.start))) continue;
    if (!worst || ms > worst.ms || (ms === worst.ms && ORDER.indexOf(e.what) < ORDER.indexOf(worst.e.what))) worst = { e, ms };
  }
  if (worst) {
    const { e, ms } = worst;
    const since = Math.max(e.since, a.start);
    const until = Math.min(e.until, a.end);
    return {
      kind: 'fleet',
      what: e.what,
      subject: `${e.proxy}/${e.host}`,
      since: iso(since),
      until: iso(until),
      detail: `${e.host} (via ${e.proxy}) was ${LABEL[e.what]} for ${formatDuration(ms)} (${clock(since)}–${clock(until)} UTC) during the phase`,
    };
  }
  if (a.local.kind !== 'agent') return a.local;
  return contended(a) ?? unwatched(a) ?? a.local;
}
