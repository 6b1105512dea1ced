import { describe, expect, it } from 'vitest';
import type { Cycle, Phase } from './domain';
import { MAX_NIGHT_BYTES, nightBytes, NightSummarySchema, summarizeCycle } from './night-summary';

function phase(name: string, over: Partial<Phase> = {}): Phase {
  return { name, status: 'ok', startedAt: '2026-08-01T01:00:00.000Z', endedAt: '2026-08-01T03:00:00.000Z', timesFrom: 'stamps', detail: ['a detail line'.repeat(50)], stages: [], verdict: null, reason: 'wrapper stamp OK', ...over };
}

describe('a kept night', () => {
  it('keeps status, times, duration, cap hit, hollow, rounds, cause kind and the delivered PRs, not the detail', () => {
    const cycle: Cycle = {
      date: '2026-08-01',
      status: 'failed',
      phases: [
        phase('audit'),
        phase('remediate', { status: 'failed', reason: 'wrapper stamp FAILED 1', rounds: 3, hollow: null, cause: { kind: 'fleet', what: 'down', subject: 'crossbar/gpu-a', since: null, until: null, detail: 'gpu-a was down' } }),
        phase('deliver', { status: 'ready', reason: 'wrapper stamp 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89' }),
      ],
    };
    const n = summarizeCycle('reliability', cycle);
    expect(n).toMatchObject({ loop: 'reliability', date: '2026-08-01', status: 'failed', prs: 2, prUrls: ['https://github.com/acme/radon/pull/88', 'https://github.com/acme/radon/pull/89'] });
    expect(n.phases[1]).toEqual({ name: 'remediate', status: 'failed', startedAt: '2026-08-01T01:00:00.000Z', endedAt: '2026-08-01T03:00:00.000Z', durationMs: 7_200_000, capHit: false, hollow: false, rounds: 3, cause: 'fleet', bad: true });
    expect(JSON.stringify(n)).not.toContain('detail line');
    expect(NightSummarySchema.parse(n)).toEqual(n);
  });

  it('stays within MAX_NIGHT_BYTES however many phases and PRs, and still counts every PR', () => {
    const urls = Array.from({ length: 40 }, (_, i) => `https://github.com/acme/${'r'.repeat(120)}/pull/${i + 1}`);
    const cycle: Cycle = {
      date: '2026-08-01',
      status: 'ready',
      phases: [
        ...Array.from({ length: 30 }, (_, i) => phase(`phase-${'é'.repeat(200)}-${i}`)),
        phase('deliver', { status: 'ready', verdict: { kind: 'deliver-ready', loop: 'reliability', phase: 'deliver', prs: 40, urls, check: null, reason: null, line: 'x' } }),
      ],
    };
    const n = summarizeCycle('reliability', cycle);
    expect(nightBytes(n)).toBeLessThanOrEqual(MAX_NIGHT_BYTES);
    expect(nightBytes({ ...n, loop: 'é' })).toBe(nightBytes({ ...n, loop: 'e' }) + 1);
    expect(n.prs).toBe(40);
  });

  it('keeps its contract breaches by kind when it has them, parses a row written before they were kept (none), and a kind this build does not know', () => {
    const n = summarizeCycle('reliability', { date: '2026-08-01', status: 'ok', phases: [phase('audit')] });
    expect(n.breaches).toBeUndefined();
    expect(NightSummarySchema.parse(JSON.parse(JSON.stringify(n))).breaches).toBeUndefined();
    const counted = { ...n, breaches: { total: 3, kinds: { 'unfinished-stage': 2, 'a-later-kind': 1 } } };
    expect(NightSummarySchema.parse(JSON.parse(JSON.stringify(counted)))).toEqual(counted);
    expect(NightSummarySchema.safeParse({ ...n, breaches: { total: 1, kinds: { hollow: 0 } } }).success).toBe(false);
  });
});

