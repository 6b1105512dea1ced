import { describe, expect, it } from 'vitest';
import type { Capacity, HostState } from '../../../../shared/domain';
import { PhaseStatusSchema } from '../../../../shared/domain';
import { buildReviewSummary } from '../../../../shared/review-summary';
import { cycle, finding, loop, phase, pullRequest, snapshot } from '../../ui/test-fixtures';
import { waitingOnYou } from '../../../../shared/waiting';
import { auditFinding, item, outcome, task } from '../../../../shared/waiting-fixtures';
import { fleetIncidents, newFindings, readyPrs, REVIEW_FINDINGS_MAX, REVIEW_FINDINGS_SHOWN, reviewFindingsShown, reviewLoop, reviewSince } from './review';

const SINCE = '2026-08-23T12:00:00.000Z';

function cap(host: string, over: Partial<Capacity> = {}): Capacity {
  return {
    proxy: 'crossbar', kind: 'crossbar', host, up: true, since: null, slotsTotal: 4, slotsBusy: 1, inflight: 1, queued: 0, nCtx: null,
    models: [], shedThreshold: null, highWater: null, totalShed: null, missing: [], error: null, polledAt: null, ...over,
  };
}

describe('review', () => {
  it('lists what waits on you as the Markdown summary does, two loops sharing an id apart', () => {
    const backlog = [
      item('REL-051', [outcome('2026-08-23', 'BLOCKED', 'root cause: the broker mock cannot drop mid-frame')]),
      item('REL-051', [outcome('2026-08-23', 'operator-only', 'rotate the broker credential')], { loop: 'testing' }),
    ];
    const state = snapshot({ backlog, tasks: [task('v2/01-props', 'stopped', { notes: 'gate fails' })], findings: [auditFinding('R-105', [])], lastReviewedAt: SINCE });
    const now = Date.parse('2026-08-24T07:00:00Z');
    const screen = waitingOnYou({ ...state, loops: [] }, now);
    expect(screen.map((w) => `waiting-${w.kind}-${w.loop}-${w.id}`)).toEqual([
      'waiting-blocked-reliability-REL-051',
      'waiting-operator-only-testing-REL-051',
      'waiting-stopped-proxy-v2/01-props',
      'waiting-uncovered-reliability-R-105',
    ]);
    expect(buildReviewSummary(state, { now }).waiting).toEqual(screen);
  });

  it('agrees with the Markdown summary on where every cycle stopped, whatever the statuses of its phases', () => {
    const stages = [
      { name: 'gates', done: true, stoppedAt: null, steps: [{ name: 'lint', rc: 0 }, { name: 'types', rc: 2 }] },
      { name: 'tests', done: false, stoppedAt: 'suite', steps: [{ name: 'suite', rc: null }] },
    ];
    const statuses = PhaseStatusSchema.options;
    for (const first of statuses) {
      for (const second of statuses) {
        const at = '2026-08-24T01:00:00.000Z';
        const phases = [
          phase('audit', { status: first, startedAt: at, endedAt: at, stages: stages.slice(0, 1), reason: 'audit' }),
          phase('remediate', { status: second, startedAt: at, endedAt: at, stages, reason: 'remediate' }),
        ];
        const l = loop('reliability', [cycle('2026-08-24', 'ok', phases)]);
        const screen = reviewLoop(l, SINCE).lastStop;
        const summary = buildReviewSummary(snapshot({ loops: [l], lastReviewedAt: SINCE }), { now: Date.parse('2026-08-24T07:00:00Z') }).loops[0]?.cycles[0]?.stop;
        const stopped = summary && (summary.status === 'running' || summary.status === 'failed' || summary.status === 'incomplete') ? summary : null;
        expect(screen && { phase: screen.phase, stage: screen.stage, step: screen.step }, `${first} then ${second}`).toEqual(
          stopped && { phase: stopped.phase, stage: stopped.stage, step: stopped.step },
        );
      }
    }
  });

  it('covers the last 24 hours when never reviewed', () => {
    expect(reviewSince(null, Date.parse('2026-08-24T11:00:00Z'))).toBe('2026-08-23T11:00:00.000Z');
    expect(reviewSince(SINCE, 0)).toBe(SINCE);
  });

  it('says where the newest cycle stopped: phase, stage and step', () => {
    const remediate = phase('remediate', {
      status: 'incomplete',
      startedAt: '2026-08-24T00:41:00-04:00',
      endedAt: '2026-08-24T04:41:00-04:00',
      reason: 'Stage tests stopped at suite.',
      stages: [{ name: 'tests', done: false, stoppedAt: 'suite', steps: [{ name: 'gates', rc: 0 }, { name: 'suite', rc: null }] }],
    });
    const r = reviewLoop(loop('reliability', [cycle('2026-08-24', 'incomplete', [phase('audit'), remediate]), cycle('2026-08-20')]), SINCE);
    expect(r.lastStop).toMatchObject({ cycle: '2026-08-24', phase: 'remediate', stage: 'tests', step: 'suite' });
    expect(r.issues).toHaveLength(1);
    expect(r.attention).toBe(true);
  });

  it('flags a loop whose dead-man state is not ok, and not a healthy one', () => {
    const missed = { ...loop('testing'), deadman: { state: 'missed' as const, expectedAt: null, lastFireAt: null, reason: 'No cycle.' } };
    expect(reviewLoop(missed, SINCE).attention).toBe(true);
    expect(reviewLoop(loop('fine'), SINCE).attention).toBe(false);
  });

  it("needs the operator when a loop's host cannot be read: nothing shown of it is current, and a missed cycle cannot be seen", () => {
    const host = (state: HostState['state']): HostState => ({
      name: 'runner', kind: 'ssh', state, error: null, since: '2026-08-24T06:58:12.000Z', attempt: 3, fingerprint: null, needsPassphrase: null, trustedInLoopdeck: false,
    });
    const fine = loop('fine');
    for (const state of ['unreachable', 'reconnecting', 'untrusted', 'hostkey-mismatch', 'auth-failed'] as const) {
      const r = reviewLoop(fine, SINCE, host(state));
      expect(r.attention, state).toBe(true);
      expect(r.hostProblem, state).toMatch(/^Host runner is .+ since 2026-08-24 06:58 UTC: its loops cannot be read, so what is shown of them may be out of date/);
    }
    for (const state of ['connected', 'connecting'] as const) {
      expect(reviewLoop(fine, SINCE, host(state)), state).toMatchObject({ attention: false, hostProblem: null });
    }
  });

  it('lists new findings P0 first with counts', () => {
    const f = [
      finding('R-1', { severity: 'P2', firstSeenAt: '2026-08-24T04:00:00.000Z' }),
      finding('R-2', { severity: 'P0', firstSeenAt: '2026-08-24T04:01:00.000Z' }),
      finding('R-3', { severity: 'P0', firstSeenAt: '2026-08-22T04:01:00.000Z' }),
    ];
    const n = newFindings(f, SINCE);
    expect(n.items.map((x) => x.id)).toEqual(['R-2', 'R-1']);
    expect(n.counts).toMatchObject({ P0: 1, P2: 1 });
  });

  it('lists every new P0 up to a bound, and leaves the rest to Findings with their count', () => {
    const at = '2026-08-24T04:00:00.000Z';
    const many = (n: number, severity: 'P0' | 'P2', from = 0) => Array.from({ length: n }, (_, i) => finding(`R-${from + i}`, { severity, firstSeenAt: at }));
    // A few P0s among many: all of them, and at least the usual few.
    const few = reviewFindingsShown(newFindings([...many(3, 'P0'), ...many(40, 'P2', 100)], SINCE));
    expect(few.shown).toHaveLength(REVIEW_FINDINGS_SHOWN);
    expect(few.shown.filter((f) => f.severity === 'P0')).toHaveLength(3);
    expect(few).toMatchObject({ more: 43 - REVIEW_FINDINGS_SHOWN, moreP0: 0 });
    const some = reviewFindingsShown(newFindings(many(30, 'P0'), SINCE));
    expect(some).toMatchObject({ more: 0, moreP0: 0 });
    expect(some.shown).toHaveLength(30);
    // A first read that makes 15,000 new: a bounded list, the rest counted.
    const flood = reviewFindingsShown(newFindings([...many(15_000, 'P0'), ...many(10, 'P2', 20_000)], SINCE));
    expect(flood.shown).toHaveLength(REVIEW_FINDINGS_MAX);
    expect(flood).toMatchObject({ more: 15_010 - REVIEW_FINDINGS_MAX, moreP0: 15_000 - REVIEW_FINDINGS_MAX });
  });

  it('keeps ready pull requests and finds down and saturated hosts', () => {
    expect(readyPrs([pullRequest(1), pullRequest(2, { status: 'incomplete' })]).map((p) => p.number)).toEqual([1]);
    const inc = fleetIncidents([cap('a'), cap('b', { up: false, error: 'refused' }), cap('c', { slotsBusy: 4 }), cap('d', { queued: 2 })]);
    expect(inc.map((i) => `${i.host}:${i.kind}`)).toEqual(['b:down', 'c:saturated', 'd:saturated']);
  });
});
