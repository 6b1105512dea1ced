import { describe, expect, it } from 'vitest';
import type { Cycle, LoopState, Phase, PhaseStatus, PullRequest } from '../../../../shared/domain';
import { trendsReport } from '../../../../shared/loop-measures';
import { summarizeCycle } from '../../../../shared/night-summary';
import { addDays, createTrendsMemo } from '../../../../shared/trends';
import { awaitingFact, greenHoursText, mergeChart, mergeNights } from './trend-merge';

const LAST = '2026-08-31';
const H = 3_600_000;
const iso = (date: string, h: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + h * H).toISOString();
const phase = (name: string, date: string, from: number, to: number, status: PhaseStatus = 'ok', reason = 'wrapper stamp OK'): Phase => ({ name, status, startedAt: iso(date, from), endedAt: iso(date, to), timesFrom: 'stamps', detail: [], stages: [], verdict: null, reason });

/** Audit 0–1 h, remediate 1–4 h, deliver 4–6 h: green ("1 PR(s) green") or INCOMPLETE (a check red at the cap). */
function cycle(date: string, green: boolean): Cycle {
  const deliver = green ? phase('deliver', date, 4, 6, 'ready', `wrapper stamp 1 PR(s) green, ready to merge: https://github.com/acme/radon/pull/${date.slice(-2)}`) : phase('deliver', date, 4, 6, 'incomplete', 'wrapper stamp INCOMPLETE: ci/test');
  return { date, status: green ? 'ready' : 'incomplete', phases: [phase('audit', date, 0, 1), phase('remediate', date, 1, 4), deliver] };
}

const pr = (n: number, date: string, over: Partial<PullRequest> = {}): PullRequest => ({ loop: 'reliability', url: `https://github.com/acme/radon/pull/${n}`, number: n, branch: null, status: 'ready', check: null, since: iso(date, 6), cycle: date, ...over });

/** The view's report: 2 followed nights (INCOMPLETE, then green on the next fire), 2 kept ones before them (green, never green); 2 PRs green and not merged, 1 merged, 1 incomplete. */
function report() {
  const d = (i: number) => addDays(LAST, -i);
  const loop: LoopState = { name: 'reliability', host: 'runner', cycles: [cycle(LAST, true), cycle(d(1), false)], deadman: null };
  const history = [summarizeCycle('reliability', cycle(d(3), true)), summarizeCycle('reliability', { ...cycle(d(2), false), status: 'failed', phases: cycle(d(2), false).phases.slice(0, 2) })];
  const prs = [pr(101, LAST), pr(100, d(1), { since: iso(LAST, 6) }), pr(99, d(3), { since: iso(d(3), 6) }), pr(98, d(1), { status: 'incomplete', check: 'ci/test' })];
  const merged = pr(97, d(3), { status: 'merged', since: iso(d(1), 12), github: { state: 'merged', mergedBy: 'op', mergedAt: iso(d(1), 12), closedAt: iso(d(1), 12), checks: 'passing', checkNames: [], next: null, answeredAt: null, problem: null } });
  const r = trendsReport(createTrendsMemo(), { loops: [loop], findings: [], backlog: [], history, days: 7, now: `${LAST}T12:00:00Z`, prs: [...prs, merged], at: iso(LAST, 18) });
  const l = r.loops[0];
  if (!l) throw new Error('no loop in the report');
  return l;
}

describe('the merge measures in Trends', () => {
  it('shows each night newest first: the time to green (the next fire’s from the first night’s remediate start), "—" for a night never green, and the PRs awaiting merge, "—" before the followed cycles', () => {
    const rows = mergeNights(report().nights);
    expect(rows.map((r) => [r.date, r.green, r.greenOn, r.awaiting, r.oldest])).toEqual([
      // Remediate 01:00 to its deliver's green at 06:00; #99 (4 d back at 06:00, at 18:00) and #100, #101.
      [LAST, '5.0 h', null, '3', '3.5 d'],
      // INCOMPLETE: green on the next fire, 29 h after this night's remediate began. #97 merged at noon.
      [addDays(LAST, -1), '1.2 d', LAST, '1', '2.8 d'],
      // Its deliver never ran: never green; before the followed cycles, awaiting not known.
      [addDays(LAST, -2), '—', null, '—', '—'],
      [addDays(LAST, -3), '5.0 h', null, '—', '—'],
    ]);
    expect(rows[1]?.title).toBe(`${addDays(LAST, -1)}: green 1.2 d after its remediate began, on the next fire (${LAST}); 1 PR(s) awaiting merge at its end`);
    expect(rows[2]?.title).toContain('never green');
  });

  it('shows the awaiting-merge count with the oldest’s age in the header, and the median time to green over 7, 30 and 90 nights', () => {
    const l = report();
    expect(awaitingFact(l.awaitingMerge)).toEqual({ text: '3, oldest 3.5 d', title: 'Green, not merged: #99 3.5 d, #100 12.0 h, #101 12.0 h' });
    expect(awaitingFact(null).text).toBe('—');
    // Nights green: 5 h, 29 h, 5 h (the never-green one is left out, not counted as 0).
    expect(l.measures.map((m) => [m.nights, greenHoursText(m.medianGreenHours), m.greenNights])).toEqual([
      [7, '5.0 h', 3],
      [30, '5.0 h', 3],
      [90, '5.0 h', 3],
    ]);
    expect(greenHoursText(null)).toBe('—');
  });

  it('charts hours to green and the oldest awaiting PR’s age a night, null (no point) where not known', () => {
    const { rows, series } = mergeChart(report().nights);
    expect(series.map((s) => s.key)).toEqual(['green', 'oldest']);
    expect(rows.slice(-4)).toEqual([
      { date: addDays(LAST, -3), green: 5, oldest: null },
      { date: addDays(LAST, -2), green: null, oldest: null },
      { date: addDays(LAST, -1), green: 29, oldest: 66 },
      { date: LAST, green: 5, oldest: 84 },
    ]);
  });
});
