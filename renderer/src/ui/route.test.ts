import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash, type Route } from './route';

describe('routes', () => {
  it('parses the views, defaulting to review', () => {
    expect(parseRoute('')).toEqual({ view: 'review' });
    expect(parseRoute('#/')).toEqual({ view: 'review' });
    expect(parseRoute('#/review')).toEqual({ view: 'review' });
    expect(parseRoute('#loops')).toEqual({ view: 'loops' });
    expect(parseRoute('#/loops')).toEqual({ view: 'loops' });
    expect(parseRoute('#/loops/reliability')).toEqual({ view: 'loops', loop: 'reliability' });
    expect(parseRoute('#/nope')).toEqual({ view: 'review' });
    expect(parseRoute('#/notices')).toEqual({ view: 'notices' });
    expect(parseRoute('#/drills')).toEqual({ view: 'drills' });
    expect(parseRoute('#/drills/run-7')).toEqual({ view: 'drills', runId: 'run-7' });
    expect(parseRoute('#/prs')).toEqual({ view: 'prs' });
    expect(parseRoute('#/trends')).toEqual({ view: 'trends' });
    expect(parseRoute('#/ledgers')).toEqual({ view: 'ledgers' });
    expect(parseRoute('#/findings')).toEqual({ view: 'findings', loop: null, id: null });
    expect(parseRoute('#/findings/R-123')).toEqual({ view: 'findings', loop: null, id: 'R-123' });
    expect(parseRoute('#/findings/testing/R-123')).toEqual({ view: 'findings', loop: 'testing', id: 'R-123' });
    expect(parseRoute('#/loops/reliability/2026-11-30/remediate/log?line=42')).toEqual({
      view: 'log', loop: 'reliability', date: '2026-11-30', phase: 'remediate', line: 42,
    });
    expect(parseRoute('#/loops/reliability/2026-11-30/remediate/log')).toMatchObject({ view: 'log', line: null });
    expect(parseRoute('#/loops/reliability/2026-11-30/remediate/log?line=-3')).toMatchObject({ view: 'log', line: null });
    expect(parseRoute('#/loops/reliability/2026-11-30/remediate/logs')).toEqual({ view: 'loops', loop: 'reliability/2026-11-30/remediate/logs' });
  });

  it('compare: a loop and a night, against a second night or the last good one; anything else is the Review', () => {
    expect(parseRoute('#/compare/reliability/2026-11-30/2026-11-28')).toEqual({ view: 'compare', loop: 'reliability', a: '2026-11-30', b: '2026-11-28' });
    expect(parseRoute('#/compare/reliability/2026-11-30')).toEqual({ view: 'compare', loop: 'reliability', a: '2026-11-30', b: null });
    expect(parseRoute('#/compare/reliability')).toEqual({ view: 'review' });
    expect(parseRoute('#/compare/reliability/yesterday')).toEqual({ view: 'review' });
    expect(parseRoute('#/compare/reliability/2026-11-30/2026-11-28/x')).toEqual({ view: 'review' });
    for (const r of [{ view: 'compare', loop: 'my loop/x', a: '2026-11-30', b: null }, { view: 'compare', loop: 'reliability', a: '2026-11-30', b: '2026-11-01' }] as const) {
      expect(parseRoute(routeHash(r))).toEqual(r);
    }
  });

  it('round-trips finding ids that carry # and /', () => {
    for (const route of [
      { view: 'findings', loop: null, id: 'review-2026-08-23#4' },
      { view: 'findings', loop: 'reliability', id: 'review-2026-08-23#4' },
      { view: 'findings', loop: null, id: 'a/b c' },
      { view: 'findings', loop: 'x y', id: 'a/b c' },
      { view: 'findings', loop: null, id: null },
      { view: 'prs' },
      { view: 'trends' },
      { view: 'ledgers' },
      { view: 'loops' },
      { view: 'loops', loop: 'nightly ops' },
      { view: 'drills', runId: '2026-08-24T03:00:00Z-gpu-reset' },
      { view: 'review' },
      { view: 'log', loop: 'reliability', date: '2026-11-30', phase: 'remediate', line: 1234567 },
      { view: 'log', loop: 'nightly/ops', date: '2026-11-30', phase: 'deliver', line: null },
      { view: 'hosts', host: 'gpu a/1' },
      { view: 'hosts', host: null },
    ] as Route[]) {
      expect(parseRoute(routeHash(route))).toEqual(route);
    }
    expect(routeHash({ view: 'findings', loop: 'reliability', id: 'R-1' })).toBe('#/findings/reliability/R-1');
    // An old bare-id link still opens the first finding with that id.
    expect(parseRoute('#/findings/R-1')).toEqual({ view: 'findings', loop: null, id: 'R-1' });
    expect(routeHash({ view: 'findings', loop: null, id: 'R-1' })).toBe('#/findings/R-1');
    expect(parseRoute('#/findings/%E0%A4%A')).toEqual({ view: 'findings', loop: null, id: '%E0%A4%A' });
    // Ids and loops with a slash or a # stay one segment each.
    expect(parseRoute(routeHash({ view: 'findings', loop: 'nightly/ops', id: 'R#1/2' }))).toEqual({ view: 'findings', loop: 'nightly/ops', id: 'R#1/2' });
  });
});
