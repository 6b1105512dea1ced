import { findingHash, transcriptHash } from '../../../../shared/links';
import { causeText } from '../../../../shared/causes';
import type { BacklogItem, Capacity, Cycle, Drill, DrillRun, Finding, HostState, LoopState, NoticePriority, Phase, PhaseSignalKind, PullRequest, Task } from '../../../../shared/domain';
import { waitingKey, waitingOnYou, type WaitingKind } from '../../../../shared/waiting';
import { fleetDrafts } from './fleet-rules';
import { hostDrafts } from './host-rules';
import { preflightDrafts } from './preflight-rules';
import { contractDrafts, contractRule } from './contract-rules';
import { deskDrafts } from './desk-rules';
import { budgetDraft, type BudgetNight } from './budget-rules';
import type { DeskPr } from '../../../../shared/pr-desk';
import type { ContractBreach } from '../../../../shared/contract-breach';
import type { Preflight } from '../../../../shared/preflight';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink, humanDuration } from '../notice-text';
import { DEFAULT_RULES, type RuleName } from '../notify-config';

/** A notice before the store has seen it (re-exported: the rules are where callers meet it). */
export type { NoticeDraft } from '../notice-draft';

/** Everything the notice rules read: the derived state of loops and fleet, and the time. */
export interface NoticeInput {
  readonly loops: readonly LoopState[];
  readonly findings: readonly Finding[];
  /** Backlog items (all, or those that changed): their BLOCKED and operator-only outcomes wait on a person. */
  readonly backlog?: readonly BacklogItem[];
  /** Implementer-log task rows (all, or those that changed): a stopped task waits on a person. */
  readonly tasks?: readonly Task[];
  readonly prs: readonly PullRequest[];
  readonly hosts: readonly HostState[];
  /** Tracked outages (see `trackDownSince`): `since`, or `since/until` once recovered. */
  readonly hostDownSince: Readonly<Record<string, string>>;
  readonly capacity: readonly Capacity[];
  /** When each noticed fleet incident began (see `trackIncidentSince`); absent: now. */
  readonly fleetIncidentSince?: Readonly<Record<string, string>>;
  readonly drillRuns: readonly DrillRun[];
  /** The declared drills: one with a cadence (`every`) that is due waits on a person. */
  readonly drills?: readonly Drill[];
  /** The loops' pre-flights: one at risk is noticed once per fire. */
  readonly preflight?: readonly Preflight[];
  /** Every PR as derived now, when `prs` holds only those to notice again (an incomplete deliver's PR resumes). */
  readonly currentPrs?: readonly PullRequest[];
  /** A loop's whole followed cycles, when `loops` holds only those that changed (an incomplete on the previous fire too). */
  readonly cyclesOf?: (loop: string) => readonly Cycle[] | undefined;
  /** The Broken contract list: each item noticed once (rule `contract-<kind>`). */
  readonly contract?: readonly ContractBreach[];
  /** The merge desk: a stale PR, a PR red after READY. */
  readonly desk?: readonly DeskPr[];
  /** The month's spend up to its newest priced night, against `costs.budget.monthly` (costs/budget-watch.ts); absent or null without one. */
  readonly budget?: BudgetNight | null;
  /** Priority overrides by rule name (`notify.rules`, through `ruleOverrides`). */
  readonly rules: Partial<Record<RuleName, NoticePriority>>;
  readonly now: Date;
  /** Where the console is reached (`http://127.0.0.1:7777/`); without it notices carry no console link. */
  readonly consoleUrl?: string;
}

/** The rule of each signal a running phase's transcript can give. */
export const SIGNAL_RULES: Readonly<Record<PhaseSignalKind, RuleName>> = {
  hung: 'phase-hung',
  spinning: 'phase-spinning',
  watchdog: 'phase-watchdog',
};

const SIGNAL_TITLES: Readonly<Record<PhaseSignalKind, string>> = {
  hung: 'hung',
  spinning: 'spinning',
  watchdog: 'killed by the stream watchdog',
};

/**
 * The rule of each kind of "Waiting on you" item. A ready PR has its own rule (`prs-ready`, keyed
 * by its URL), so it is not noticed twice.
 */
const WAITING_RULES: Partial<Record<WaitingKind, RuleName>> = {
  blocked: 'waiting-blocked',
  'operator-only': 'waiting-operator-only',
  stopped: 'waiting-stopped',
  uncovered: 'waiting-uncovered',
  'drill-due': 'waiting-drill-due',
};

const PHASE_RULES: Partial<Record<Phase['status'], RuleName>> = {
  incomplete: 'phase-incomplete',
  failed: 'phase-failed',
  'no-op': 'phase-no-op',
};

/**
 * Every notice the current state calls for, each under a stable key built from the identity of
 * the thing (never its text or the time it was seen), so the store raises each exactly once.
 */
export function deriveNotices(input: NoticeInput): NoticeDraft[] {
  const prio = (rule: RuleName): NoticePriority => input.rules[rule] ?? DEFAULT_RULES[rule];
  const link = (hash: string): string | null => consoleLink(input.consoleUrl, hash);
  const out: NoticeDraft[] = [];

  for (const loop of input.loops) {
    const loopUrl = link(`#/loops/${encodeURIComponent(loop.name)}`);
    const dm = loop.deadman;
    if (dm && (dm.state === 'missed' || dm.state === 'stalled')) {
      // The fire the state is about names it: the next fire's miss is a new notice.
      const fire = dm.lastFireAt ?? dm.expectedAt ?? 'unscheduled';
      out.push(
        makeDraft({
          key: `deadman:${loop.name}:${fire}:${dm.state}`,
          priority: prio(dm.state === 'missed' ? 'loop-missed' : 'loop-stalled'),
          source: `loop:${loop.name}`,
          title: dm.state === 'missed' ? `${loop.name} missed its run` : `${loop.name} stalled`,
          message: `${loop.name} on ${loop.host}: ${dm.reason}.`,
          url: loopUrl,
          urlTitle: `${loop.name} in Loopdeck`,
        }),
      );
    }
    for (const cycle of loop.cycles) {
      for (const phase of cycle.phases) {
        const signal = phase.signal;
        // What a running phase's transcript tells, keyed by its kind: raised once per phase and kind.
        if (signal && phase.status === 'running') {
          const at = signal.line === null ? '' : ` at line ${signal.line}`;
          out.push(
            makeDraft({
              key: `signal:${loop.name}:${cycle.date}:${phase.name}:${signal.kind}`,
              priority: prio(SIGNAL_RULES[signal.kind]),
              source: `loop:${loop.name}`,
              title: `${loop.name} ${phase.name} ${SIGNAL_TITLES[signal.kind]}`,
              message: `${loop.name} ${phase.name} ${SIGNAL_TITLES[signal.kind]} in cycle ${cycle.date} on ${loop.host}, since ${signal.since}: ${signal.detail}.${phase.cause ? ` Cause: ${causeText(phase.cause)}.` : ''}`,
              url: link(transcriptHash({ loop: loop.name, date: cycle.date, phase: phase.name }, signal.line)),
              urlTitle: `${phase.name}'s transcript${at} in Loopdeck`,
            }),
          );
        }
        const rule = PHASE_RULES[phase.status];
        if (!rule) continue;
        const level = phase.status === 'incomplete' ? incompleteLevel({ ...loop, cycles: input.cyclesOf?.(loop.name) ?? loop.cycles }, cycle, phase, input.currentPrs ?? input.prs, prio(rule)) : { priority: prio(rule), why: null };
        out.push(
          makeDraft({
            key: `phase:${loop.name}:${cycle.date}:${phase.name}:${phase.status}`,
            priority: level.priority,
            source: `loop:${loop.name}`,
            title: `${loop.name} ${phase.name} ${phase.status}`,
            message: phaseMessage(loop, cycle, phase, level.why),
            // Why it stopped is in its transcript: the link opens it on its last screen.
            url: link(transcriptHash({ loop: loop.name, date: cycle.date, phase: phase.name })),
            urlTitle: `${phase.name}'s transcript in Loopdeck`,
          }),
        );
      }
    }
  }

  for (const f of input.findings) {
    // A fixed P0 no longer needs anyone; open, blocked and operator-only ones do.
    if (f.severity !== 'P0' || f.status === 'done') continue;
    const where = f.where ? ` at ${f.where}` : '';
    const category = f.category ? `[${f.category}] ` : '';
    out.push(
      makeDraft({
        key: `finding:${f.loop}:${f.id}`,
        priority: prio('finding-p0'),
        source: `loop:${f.loop}`,
        title: `P0 ${f.id} (${f.loop})`,
        message: `${category}${f.text}${where} — ${f.section}, ${f.status}${f.backlog.length ? `, backlog ${f.backlog.join(', ')}` : ''}.`,
        url: link(findingHash(f)),
        urlTitle: `${f.id} in Loopdeck`,
      }),
    );
  }

  // One notice per ready PR URL: a PR resumed across cycles is still the same merge cue.
  for (const pr of input.prs) {
    if (pr.status !== 'ready') continue;
    const name = pr.number === null ? 'PR' : `PR #${pr.number}`;
    const parts = [pr.branch ? `branch ${pr.branch}` : null, pr.cycle ? `cycle ${pr.cycle}` : null].filter(Boolean);
    out.push(
      makeDraft({
        key: `pr:${pr.url}:ready`,
        priority: prio('prs-ready'),
        source: `loop:${pr.loop}`,
        title: `${name} ready to merge`,
        message: `${pr.loop}: ${pr.url} is green and ready to merge${parts.length ? ` (${parts.join(', ')})` : ''}.`,
        url: pr.url,
        urlTitle: name,
      }),
    );
  }

  // What the loops hand a person; an item that leaves the list is simply not derived again.
  const waiting = waitingOnYou({ loops: [], findings: input.findings, backlog: input.backlog ?? [], tasks: input.tasks ?? [], prs: [], drillRuns: input.drillRuns, drills: input.drills ?? [] }, input.now.getTime());
  for (const w of waiting) {
    const rule = WAITING_RULES[w.kind];
    if (!rule) continue;
    out.push(
      makeDraft({
        // A drill falls due again after each success: its due time (or `never`) keys each time it is due.
        key: w.kind === 'drill-due' ? `${waitingKey(w)}:${w.since ?? 'never'}` : waitingKey(w),
        priority: prio(rule),
        source: w.kind === 'drill-due' ? `drill:${w.id}` : `loop:${w.loop}`,
        title: `Waiting on you: ${w.id} (${w.loop}) ${w.kind}`,
        message: `${w.action}.${w.kind === 'stopped' && w.detail ? ` Notes: ${w.detail}` : ''}${w.since ? ` Waiting since ${w.since}.` : ''}`,
        url: link(w.href),
        urlTitle: `${w.id} in Loopdeck`,
      }),
    );
  }

  out.push(
    ...hostDrafts({
      hosts: input.hosts,
      capacity: input.capacity,
      hostDownSince: input.hostDownSince,
      now: input.now,
      downPriority: prio('host-down'),
      recoveredPriority: prio('host-recovered'),
      ...(input.consoleUrl === undefined ? {} : { consoleUrl: input.consoleUrl }),
    }),
  );

  out.push(
    ...fleetDrafts({
      capacity: input.capacity,
      since: input.fleetIncidentSince ?? {},
      now: input.now,
      prio,
      ...(input.consoleUrl === undefined ? {} : { consoleUrl: input.consoleUrl }),
    }),
  );

  out.push(...preflightDrafts(input.preflight ?? [], prio('preflight-at-risk'), input.consoleUrl));
  out.push(...contractDrafts(input.contract ?? [], (kind) => prio(contractRule(kind)), input.consoleUrl));
  out.push(...deskDrafts(input.desk ?? [], { stale: prio('pr-stale'), red: prio('pr-red-after-ready') }));
  const budget = input.budget ? budgetDraft(input.budget, prio('budget'), input.consoleUrl) : null;
  if (budget) out.push(budget);

  for (const run of input.drillRuns) {
    if (run.status === 'running') continue;
    const rc = run.rc === null ? '' : ` (rc ${run.rc})`;
    const took = run.durationMs === null ? '' : ` after ${humanDuration(run.durationMs)}`;
    out.push(
      makeDraft({
        key: `drill:${run.id}`,
        priority: prio('drill-finished'),
        source: `drill:${run.drill}`,
        title: `Drill ${run.drill}: ${run.status}${rc}`,
        message: `${run.drill} on ${run.host} finished ${run.status}${rc}${took}, started by ${run.user} at ${run.startedAt}. Output: ${run.logPath}`,
        url: link(`#/drills/${encodeURIComponent(run.id)}`),
        urlTitle: 'Drill output in Loopdeck',
      }),
    );
  }
  return out;
}

/**
 * Where the phase stopped (stage and step) and why, for an incomplete/failed/no-op phase; `level`
 * (why the notice is quieter or louder than its rule) follows the first sentence, so no cut loses it.
 */
function phaseMessage(loop: LoopState, cycle: Cycle, phase: Phase, level: string | null): string {
  const head = `${loop.name} ${phase.name} ${phase.status} in cycle ${cycle.date} on ${loop.host}`;
  const stopped = phase.stages
    .filter((s) => !s.done)
    .map((s) => (s.stoppedAt ? `stage ${s.name} at step ${s.stoppedAt}` : `stage ${s.name}`));
  const where = stopped.length ? `; stopped in ${stopped.join(', ')}` : '';
  const check = phase.verdict?.check ? `; failing check ${phase.verdict.check}` : '';
  const why = phase.status === 'no-op' && phase.verdict?.reason ? phase.verdict.reason : phase.reason;
  const detail = phase.detail.length ? ` ${phase.detail.join(' ')}` : '';
  const cause = phase.cause ? ` Cause: ${causeText(phase.cause)}.` : '';
  return `${head}${where}${check}.${level ? ` ${level}` : ''} ${why}${detail}${cause}`;
}

/** An incomplete phase's priority, and the sentence saying why when that is not simply its rule's. */
interface IncompleteLevel {
  readonly priority: NoticePriority;
  readonly why: string | null;
}

/**
 * An incomplete that fixes itself is not urgent (issue 43, item 14): an exit-75 phase (`resumable`)
 * or a deliver whose PR the deliver record holds incomplete (the next fire finishes that PR; the
 * record reaches the rules through the PR list). Its priority is the rule's capped at 0, which
 * quiet hours hold back, so it is never louder than the operator set `phase-incomplete`. The same
 * phase incomplete in the loop's previous cycle too is not fixing itself: it keeps the rule's
 * priority (1 by default), as does one whose previous cycle is not in the input (a repeat cannot be
 * ruled out). Any other incomplete keeps the rule's priority and says nothing more.
 */
function incompleteLevel(loop: LoopState, cycle: Cycle, phase: Phase, prs: readonly PullRequest[], base: NoticePriority): IncompleteLevel {
  const resumes = phase.resumable === true ? 'Not urgent: exit 75, it resumes on the next fire.' : resumedPr(loop, cycle, phase, prs);
  const previous = resumes === null ? null : previousCycle(loop, cycle.date);
  if (resumes === null || previous === null) return { priority: base, why: null };
  const before = previous.phases.find((p) => p.name === phase.name && p.status === 'incomplete');
  if (!before) return { priority: base > 0 ? 0 : base, why: resumes };
  const check = deliverCheck(before);
  const same = check !== null && check === deliverCheck(phase) ? ` (check ${check} both times)` : '';
  return { priority: base, why: `Incomplete two fires in a row: ${previous.date}, ${cycle.date}${same}; it is not fixing itself.` };
}

/** For an incomplete deliver: why its PR resumes (the PR list holds this cycle's PR incomplete), else null. */
function resumedPr(loop: LoopState, cycle: Cycle, phase: Phase, prs: readonly PullRequest[]): string | null {
  if (phase.name !== 'deliver') return null;
  const named = phase.verdict?.kind === 'deliver-incomplete' ? phase.verdict.urls : [];
  const pr = prs.find((p) => p.loop === loop.name && p.status === 'incomplete' && (p.cycle === cycle.date || named.includes(p.url)));
  if (!pr) return null;
  const name = pr.number === null ? pr.url : `PR #${pr.number}`;
  return `Not urgent: ${name} resumes on the next fire (the deliver record holds it incomplete${pr.check ? ` on ${pr.check}` : ''}).`;
}

/** The loop's cycle just before `date` in the input, or null. */
function previousCycle(loop: LoopState, date: string): Cycle | null {
  let previous: Cycle | null = null;
  for (const c of loop.cycles) if (c.date < date && (previous === null || c.date > previous.date)) previous = c;
  return previous;
}

/** The failing check a deliver INCOMPLETE verdict names, or null. */
function deliverCheck(phase: Phase): string | null {
  return phase.verdict?.kind === 'deliver-incomplete' ? phase.verdict.check : null;
}
