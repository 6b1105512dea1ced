import { describe, expect, it } from 'vitest';
import type { Cycle, LoopState, Phase, PhaseStatus, PullRequest } from './domain';
import { trendsReport } from './loop-measures';
import { awaitingByNight, awaitingMerge, awaitingText, remediateToGreen, waitText } from './merge-measures';
import { summarizeCycle } from './night-summary';
import { addDays, createTrendsMemo } from './trends';

const LAST = '2026-08-31';
const H = 3_600_000;
const iso = (date: string, h: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + h * H).toISOString();

function phase(name: string, date: string, from: number, to: number, status: PhaseStatus = 'ok', reason = 'wrapper stamp OK'): Phase {
  return { name, status, startedAt: iso(date, from), endedAt: iso(date, to), timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason };
}

/** A night: audit 0–1 h, remediate 1–`remediateEnd` h, deliver to `deliverEnd` h ending `deliver` (ready: green; incomplete: a check red at the cap). */
function cycle(date: string, deliver: PhaseStatus, remediateEnd = 4, deliverEnd = 6): Cycle {
  const reason = deliver === 'ready' ? `wrapper stamp 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${date.slice(-2)}` : deliver === 'incomplete' ? 'wrapper stamp INCOMPLETE: ci/test' : 'wrapper stamp failed';
  const status = deliver === 'ready' ? 'ready' : deliver === 'incomplete' ? 'incomplete' : 'failed';
  return { date, status, phases: [phase('audit', date, 0, 1), phase('remediate', date, 1, remediateEnd), phase('deliver', date, remediateEnd, deliverEnd, deliver, reason)] };
}

const nightsOf = (cycles: readonly Cycle[]) => cycles.map((c) => summarizeCycle('reliability', c));

function pr(n: number, over: Partial<PullRequest> = {}): PullRequest {
  return { loop: 'reliability', url: `https://github.com/acme/radon/pull/${n}`, number: n, branch: null, status: 'ready', check: null, since: null, cycle: null, ...over };
}

describe('remediate → CI green', () => {
  it('counts a green on the next fire from the first night’s remediate start, and the next night’s own from its own start', () => {
    // Night 1: remediate from 01:00, deliver INCOMPLETE at 06:00. Night 2's deliver resumes that PR and says green at 05:00.
    const n1 = addDays(LAST, -1);
    const greens = remediateToGreen(nightsOf([cycle(n1, 'incomplete'), cycle(LAST, 'ready', 3, 5)]));
    expect(greens.get(n1)).toEqual({ ms: 28 * H, on: LAST });
    expect(greens.get(LAST)).toEqual({ ms: 4 * H, on: LAST });
  });

  it('leaves a night never green without a time (not 0): its next fire INCOMPLETE too, a failed deliver, no next fire yet, no remediate', () => {
    const d = (i: number) => addDays(LAST, -i);
    const noRemediate: Cycle = { date: d(5), status: 'ready', phases: [phase('audit', d(5), 0, 1), phase('deliver', d(5), 1, 2, 'ready')] };
    const greens = remediateToGreen(nightsOf([noRemediate, cycle(d(4), 'failed'), cycle(d(3), 'ready'), cycle(d(2), 'incomplete'), cycle(d(1), 'incomplete'), cycle(LAST, 'incomplete')]));
    // A failed deliver is not resumed (only an INCOMPLETE one is); d(2)'s next fire did not go green; LAST has no next fire yet.
    expect([...greens.entries()]).toEqual([[d(3), { ms: 5 * H, on: d(3) }]]);
  });

  it('skips nights that did not run when looking for the next fire', () => {
    const first = addDays(LAST, -3);
    // Two nights without a cycle between the INCOMPLETE and the green (a night of findings only has no phases).
    const greens = remediateToGreen([...nightsOf([cycle(first, 'incomplete')]), { date: addDays(LAST, -1), phases: [] }, ...nightsOf([cycle(LAST, 'ready')])]);
    expect(greens.get(first)).toEqual({ ms: 3 * 24 * H + 5 * H, on: LAST });
  });

  it('reaches Trends and the measures: per night (null, "—", when never green) and the median over 7, 30 and 90 nights', () => {
    const history = nightsOf([cycle(addDays(LAST, -3), 'ready'), cycle(addDays(LAST, -2), 'incomplete'), cycle(addDays(LAST, -1), 'ready'), cycle(LAST, 'incomplete')]);
    const loop: LoopState = { name: 'reliability', host: 'runner', cycles: [], deadman: null };
    const r = trendsReport(createTrendsMemo(), { loops: [loop], findings: [], backlog: [], history, days: 7, now: `${LAST}T12:00:00Z` });
    const l = r.loops[0];
    const shown = (l?.nights ?? []).slice(-4).map((n) => [n.date, n.remediateToGreen?.ms ?? null, waitText(n.remediateToGreen?.ms)]);
    expect(shown).toEqual([
      [addDays(LAST, -3), 5 * H, '5.0 h'],
      [addDays(LAST, -2), 29 * H, '1.2 d'],
      [addDays(LAST, -1), 5 * H, '5.0 h'],
      [LAST, null, '—'],
    ]);
    expect(l?.measures.map((m) => [m.nights, m.medianGreenHours, m.greenNights])).toEqual([
      [7, 5, 3],
      [30, 5, 3],
      [90, 5, 3],
    ]);
    // Without the PR list, the PRs awaiting merge are not known.
    expect(l?.awaitingMerge).toBeNull();
    expect(l?.nights.every((n) => n.awaitingMerge === null)).toBe(true);
  });
});

describe('PRs awaiting merge', () => {
  const now = `${LAST}T12:00:00.000Z`;
  const prs = [
    pr(80, { since: iso(addDays(LAST, -3), 6), cycle: addDays(LAST, -3) }),
    pr(81, { since: iso(LAST, 6), cycle: LAST }),
    // Without a since: from the night that delivered it.
    pr(82, { cycle: addDays(LAST, -1) }),
    pr(70, { status: 'merged', since: iso(addDays(LAST, -1), 9), cycle: addDays(LAST, -4), github: { state: 'merged', mergedBy: 'op', mergedAt: iso(addDays(LAST, -1), 9), closedAt: iso(addDays(LAST, -1), 9), checks: 'passing', checkNames: [], next: null, answeredAt: null, problem: null } }),
    pr(71, { status: 'closed', since: iso(addDays(LAST, -2), 2), cycle: addDays(LAST, -5) }),
    pr(72, { status: 'incomplete', check: 'ci/test', since: iso(LAST, 6), cycle: LAST }),
    pr(73, { status: 'pending', since: iso(LAST, 6), cycle: LAST }),
    pr(90, { loop: 'testing', since: iso(addDays(LAST, -9), 6), cycle: addDays(LAST, -9) }),
  ];

  it('counts the green PRs neither merged nor closed, oldest first with their ages; not the incomplete, pending, merged or closed ones, nor another loop’s', () => {
    const a = awaitingMerge(prs, 'reliability', now);
    expect(a.prs.map((p) => [p.number, p.ageMs])).toEqual([
      [80, (3 * 24 + 6) * H],
      [82, 36 * H],
      [81, 6 * H],
    ]);
    expect(a).toMatchObject({ count: 3, oldestMs: 78 * H });
    expect(awaitingText(a)).toBe('3, oldest 3.3 d');
    expect(awaitingText(awaitingMerge([], 'reliability', now))).toBe('0');
    expect(awaitingText(null)).toBe('—');
  });

  it('per night: those awaiting at its end (merged and closed ones until GitHub says so), "—" before the oldest followed cycle', () => {
    const dates = [5, 4, 3, 2, 1, 0].map((i) => addDays(LAST, -i));
    const nights = awaitingByNight(dates, prs, 'reliability', now, addDays(LAST, -4));
    expect(nights.map((n) => [n.awaitingMerge, n.oldestAwaitingMs === null ? null : n.oldestAwaitingMs / H])).toEqual([
      // Before the followed cycles: not known.
      [null, null],
      // #70 (delivered 4 nights back) and #71 (5 back, closed 2 nights back at 02:00).
      [2, 48],
      [3, 72],
      // #71 closed during this night; #80 waits since 06:00 the night before.
      [2, 72],
      // #70 merged at 09:00; #82 delivered.
      [2, 66],
      // Today's night is taken at `now` (12:00): #81 waits since 06:00.
      [3, 78],
    ]);
    expect(awaitingByNight(dates, prs, 'reliability', now, null).every((n) => n.awaitingMerge === null)).toBe(true);
  });
});
