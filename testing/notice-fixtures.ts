import type { Capacity, Cycle, DrillRun, Finding, HostState, LoopState, Phase, PullRequest } from '../shared/domain';
import type { NoticeInput } from '../main/core/notices/rules/rules';
import type { NoticeDraft } from '../main/core/notices/notice-draft';

// Realistic loop and fleet states for the notice tests (a nightly reliability loop on `mac`,
// a crossbar proxy in front of two GPU hosts). Test-only; kept out of the `.test.ts` files so
// the rule, service and sink tests share them.

/** A phase with the given status and nothing else notable. */
export function phase(name: string, status: Phase['status'], over: Partial<Phase> = {}): Phase {
  return {
    name,
    status,
    startedAt: '2026-11-29T05:00:00.000Z',
    endedAt: status === 'running' ? null : '2026-11-29T09:00:00.000Z',
    timesFrom: 'stamps',
    detail: [],
    stages: [],
    verdict: null,
    reason: `the wrapper stamped ${status.toUpperCase()}`,
    ...over,
  };
}

/** The remediate phase that ran out of time in the `suite` stage at `pytest-full`. */
export const REMEDIATE_INCOMPLETE = phase('remediate', 'incomplete', {
  stages: [
    { name: 'suite', done: false, stoppedAt: 'pytest-full', steps: [{ name: 'vitest', rc: 0 }, { name: 'pytest-full', rc: null }, { name: 'pytest-cloud', rc: null }] },
  ],
  reason: 'the wrapper stamped INCOMPLETE (exit 75: cap reached)',
  detail: ['cap 6h reached in round 3'],
});

/** Cycle 2026-11-29: audit ok, remediate incomplete, deliver no-op. */
export const CYCLE_29: Cycle = {
  date: '2026-11-29',
  status: 'incomplete',
  phases: [
    phase('audit', 'ok'),
    REMEDIATE_INCOMPLETE,
    phase('deliver', 'no-op', {
      verdict: { kind: 'no-op', loop: 'reliability', phase: 'deliver', prs: null, urls: [], check: null, reason: 'nothing on the branch to deliver', line: 'NIGHTLY NO-OP: loop=reliability phase=deliver reason=nothing on the branch to deliver' },
    }),
  ],
};

/** The reliability loop: yesterday's cycle, and tonight's fire missed. */
export function reliabilityLoop(over: Partial<LoopState> = {}): LoopState {
  return {
    name: 'reliability',
    host: 'mac',
    cycles: [CYCLE_29],
    deadman: {
      state: 'missed',
      expectedAt: '2026-12-01T05:00:00.000Z',
      lastFireAt: '2026-11-30T05:00:00.000Z',
      reason: 'no cycle for 2026-11-30 by 01:00 America/New_York (fired 00:00 America/New_York, grace 1h)',
    },
    ...over,
  };
}

/** A finding of the given severity from the 2026-11-29 delta audit. */
export function finding(id: string, severity: Finding['severity'], over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: 'Delta audit 2026-11-29',
    severity,
    category: 'safety',
    where: 'scripts/ib_execute.py:212',
    text: 'ib_execute places an order without check_order_limits',
    status: 'open',
    backlog: ['REL-101'],
    firstSeenAt: '2026-11-29T07:00:00.000Z',
    line: 88,
    ...over,
  };
}

/** A delivered PR of the reliability loop. */
export function pr(n: number, status: PullRequest['status'] = 'ready'): PullRequest {
  return {
    loop: 'reliability',
    url: `https://github.com/acme/radon/pull/${n}`,
    number: n,
    branch: `reliability/2026-11-${n - 60}`,
    status,
    check: null,
    since: '2026-11-29T10:00:00.000Z',
    cycle: '2026-11-29',
  };
}

/** A host that is connected, or not, since a given time. */
export function host(name: string, state: HostState['state'], since: string | null): HostState {
  return { name, kind: 'ssh', state, error: state === 'connected' ? null : 'connect ETIMEDOUT 10.0.0.7:22', since, attempt: state === 'connected' ? 0 : 4, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false };
}

/** An inference host behind the `crossbar` proxy. */
export function gpu(name: string, up: boolean, since: string | null): Capacity {
  return {
    proxy: 'crossbar', kind: 'crossbar', host: name, up, since,
    slotsTotal: 4, slotsBusy: up ? 1 : null, inflight: 0, queued: 0, nCtx: 32768, models: [],
    shedThreshold: null, highWater: null, totalShed: null, missing: [], error: up ? null : 'GET /health: ECONNREFUSED', polledAt: since,
  };
}

/** A finished drill run. */
export function drillRun(id: string, status: DrillRun['status'], rc: number | null): DrillRun {
  return {
    id, drill: 'halt-drill', host: 'mac', args: {}, user: 'ops', startedAt: '2026-11-30T14:00:00.000Z',
    endedAt: status === 'running' ? null : '2026-11-30T14:03:20.000Z', rc, status, override: false,
    logPath: '~/radon-weekend/drills/halt-drill-1.log', durationMs: status === 'running' ? null : 200_000,
  };
}

/** An input with nothing in it at `now`. */
export function emptyInput(now: Date, over: Partial<NoticeInput> = {}): NoticeInput {
  return { loops: [], findings: [], prs: [], hosts: [], hostDownSince: {}, capacity: [], drillRuns: [], rules: {}, now, consoleUrl: 'http://127.0.0.1:7777/', ...over };
}

/** A notice draft of a PR ready to merge (priority 0), as the sink tests deliver it. */
export const PR_READY_DRAFT: NoticeDraft = {
  key: 'pr:https://github.com/acme/radon/pull/88:ready',
  priority: 0,
  source: 'loop:reliability',
  title: 'PR #88 ready to merge',
  message: 'reliability: https://github.com/acme/radon/pull/88 is green and ready to merge.',
  url: 'https://github.com/acme/radon/pull/88',
  urlTitle: 'PR #88',
};

/** A notice draft of a P0 finding (an emergency, priority 2). */
export const P0_DRAFT: NoticeDraft = { key: 'finding:reliability:R-123', priority: 2, source: 'loop:reliability', title: 'P0 R-123 (reliability)', message: 'ib_execute places an order without check_order_limits', url: 'http://127.0.0.1:7777/#/findings/R-123', urlTitle: 'R-123 in Loopdeck' };
