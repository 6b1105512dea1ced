import { describe, expect, it } from 'vitest';
import { dayTicks, timelineLanes, timelineLayout, TIMELINE_CYCLES } from './timeline';
import { cycle, phase } from '../../ui/test-fixtures';

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('timelineLayout', () => {
  const cycles = [
    cycle('2026-08-22', 'ok', [
      phase('audit', { startedAt: '2026-08-22T00:00:00Z', endedAt: '2026-08-22T01:00:00Z' }),
      phase('remediate', { startedAt: '2026-08-22T01:00:00Z', endedAt: '2026-08-22T05:00:00Z' }),
      phase('deliver', { status: 'pending', startedAt: null, endedAt: null }),
    ]),
    cycle('2026-08-23', 'running', [
      phase('audit', { startedAt: '2026-08-23T00:00:00Z', endedAt: '2026-08-23T01:00:00Z' }),
      phase('remediate', { status: 'running', startedAt: '2026-08-23T01:00:00Z', endedAt: null }),
    ]),
  ];
  const now = at('2026-08-23T04:00:00Z');

  it('scales from the earliest start to now, one lane per phase', () => {
    const l = timelineLayout(cycles, now, 1000);
    expect(l).not.toBeNull();
    expect(l!.lanes).toEqual(['audit', 'remediate', 'deliver']);
    expect(l!.start).toBe(at('2026-08-22T00:00:00Z'));
    expect(l!.end).toBe(now);
    expect(l!.nowX).toBe(1000);
    const rem = l!.bars.find((b) => b.date === '2026-08-22' && b.phase.name === 'remediate')!;
    expect(rem.x).toBeCloseTo((1 / 28) * 1000);
    expect(rem.width).toBeCloseTo((4 / 28) * 1000);
    expect(rem.lane).toBe(1);
  });

  it('runs a running phase to now, skips phases without times, and keeps tiny bars visible', () => {
    const l = timelineLayout(cycles, now, 1000)!;
    const running = l.bars.find((b) => b.running)!;
    expect(running.end).toBe(now);
    expect(running.x + running.width).toBeCloseTo(1000);
    expect(l.bars.some((b) => b.phase.name === 'deliver')).toBe(false);
    const tiny = timelineLayout(cycles, now + 400 * H, 100)!;
    expect(Math.min(...tiny.bars.map((b) => b.width))).toBeGreaterThanOrEqual(3);
  });

  it('draws only the last 14 cycles, and nothing without times', () => {
    const many = Array.from({ length: 20 }, (_, i) => {
      const d = `2026-08-${String(i + 1).padStart(2, '0')}`;
      return cycle(d, 'ok', [phase('audit', { startedAt: `${d}T00:00:00Z`, endedAt: `${d}T01:00:00Z` })]);
    });
    const l = timelineLayout(many, at('2026-08-21T00:00:00Z'), 1000)!;
    expect(new Set(l.bars.map((b) => b.date)).size).toBe(TIMELINE_CYCLES);
    expect(l.start).toBe(at('2026-08-07T00:00:00Z'));
    expect(timelineLayout([cycle('2026-08-23', 'pending', [phase('audit', { startedAt: null, endedAt: null })])], now, 500)).toBeNull();
  });

  it('orders lanes by the newest cycle, then others as met', () => {
    expect(timelineLanes([cycle('2026-08-22', 'ok', [phase('old')]), cycle('2026-08-23', 'ok', [phase('b'), phase('a')])])).toEqual(['b', 'a', 'old']);
  });
});

describe('dayTicks', () => {
  it('puts a tick at each local midnight, a day apart, with weekday labels', () => {
    const start = at('2026-08-20T03:00:00Z');
    const end = start + 5 * 24 * H;
    const ticks = dayTicks(start, end, (t) => (t - start) / H);
    expect(ticks).toHaveLength(5);
    for (const t of ticks) {
      expect(new Date(t.t).getHours()).toBe(0);
      expect(t.label).toMatch(/^[A-Z][a-z]{2} \d{1,2}$/);
    }
    // 24 px per day: every other label, the last one always shown.
    expect(ticks.at(-1)!.showLabel).toBe(true);
    expect(ticks.filter((t) => t.showLabel).length).toBe(3);
  });
});
