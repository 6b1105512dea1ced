import { describe, expect, it } from 'vitest';
import type { Notice, NoticePriority } from '../../../../shared/domain';
import { CYCLE_29, gpu, host, phase, pr, reliabilityLoop } from '../../../../testing/notice-fixtures';
import { noticeWaits, sameTrayState, TRAY_TOOLTIP_MAX, trayStateOf, type TrayInput } from './tray-state';

const NOW = new Date('2026-11-30T12:00:00.000Z');
const minutesAgo = (m: number): string => new Date(NOW.getTime() - m * 60_000).toISOString();

const OK_CYCLE = { date: '2026-11-30', status: 'ok' as const, phases: [phase('audit', 'ok'), phase('remediate', 'ok'), phase('deliver', 'ok')] };
const healthyLoop = reliabilityLoop({ cycles: [OK_CYCLE, CYCLE_29], deadman: { state: 'ok', expectedAt: null, lastFireAt: null, reason: 'fired on time' } });

function input(over: Partial<TrayInput> = {}): TrayInput {
  return { loops: [healthyLoop], hosts: [host('mac', 'connected', null)], prs: [], capacity: [gpu('gpu-1', true, null)], notices: [], sourceErrors: 0, now: NOW, ...over };
}

function notice(key: string, priority: NoticePriority, over: Partial<Notice> = {}): Notice {
  return { key, priority, source: 'loop:reliability', title: key, message: key, url: null, urlTitle: null, createdAt: minutesAgo(30), acknowledgedAt: null, snoozedUntil: null, ...over };
}

describe('trayStateOf', () => {
  it('is ok when every loop’s newest cycle passed, every host is up and nothing waits', () => {
    expect(trayStateOf(input())).toEqual({ level: 'ok', count: 0, reasons: [], tooltip: 'Loopdeck: ok' });
    // An older failed cycle is history: the newest one is where the loop stands.
    expect(trayStateOf(input({ loops: [reliabilityLoop({ cycles: [OK_CYCLE, { ...CYCLE_29, status: 'failed' }], deadman: null })] })).level).toBe('ok');
    // A host still connecting on start, and notices below priority 1, are not news.
    expect(trayStateOf(input({ hosts: [host('mac', 'connecting', minutesAgo(1))], notices: [notice('pr', 0), notice('noop', -1)] })).level).toBe('ok');
  });

  it.each([
    ['failed', 'failed'],
    ['incomplete', 'incomplete'],
  ] as const)('fails when a loop’s newest cycle is %s', (status, word) => {
    const state = trayStateOf(input({ loops: [reliabilityLoop({ cycles: [{ ...OK_CYCLE, status }, CYCLE_29], deadman: null })] }));
    expect(state).toMatchObject({ level: 'failing', count: 0, reasons: [`reliability 2026-11-30 ${word}`] });
    expect(state.tooltip).toBe(`Loopdeck: failing · reliability 2026-11-30 ${word}`);
  });

  it.each([
    ['missed', 'failing'],
    ['stalled', 'failing'],
    ['late', 'attention'],
    ['overrun', 'attention'],
    ['ok', 'ok'],
  ] as const)('a dead-man %s is %s', (dm, level) => {
    const loop = { ...healthyLoop, deadman: { state: dm, expectedAt: null, lastFireAt: null, reason: 'r' } };
    const state = trayStateOf(input({ loops: [loop] }));
    expect(state.level).toBe(level);
    expect(state.reasons).toEqual(dm === 'ok' ? [] : [`reliability ${dm}`]);
  });

  it.each([
    ['unreachable', minutesAgo(1), 'failing'],
    ['auth-failed', minutesAgo(1), 'failing'],
    ['hostkey-mismatch', minutesAgo(1), 'failing'],
    ['reconnecting', minutesAgo(6), 'failing'],
    ['reconnecting', null, 'failing'],
    ['reconnecting', minutesAgo(1), 'attention'],
    ['untrusted', minutesAgo(1), 'attention'],
    ['connecting', minutesAgo(1), 'ok'],
  ] as const)('a host %s since %s is %s', (conn, since, level) => {
    const state = trayStateOf(input({ hosts: [host('mac', conn, since)] }));
    expect(state.level).toBe(level);
    if (level !== 'ok') expect(state.tooltip).toContain(`host mac ${conn}`);
  });

  it('an inference host down is failing past the host-down threshold, attention before; a saturated one is attention', () => {
    expect(trayStateOf(input({ capacity: [gpu('gpu-1', false, minutesAgo(10))] }))).toMatchObject({ level: 'failing', reasons: ['crossbar/gpu-1 down'] });
    expect(trayStateOf(input({ capacity: [gpu('gpu-1', false, minutesAgo(1))] }))).toMatchObject({ level: 'attention', reasons: ['crossbar/gpu-1 down'] });
    const full = { ...gpu('gpu-1', true, null), slotsBusy: 4 };
    const queued = { ...gpu('gpu-2', true, null), queued: 3 };
    expect(trayStateOf(input({ capacity: [full, queued] }))).toMatchObject({ level: 'attention', reasons: ['crossbar/gpu-1 saturated', 'crossbar/gpu-2 saturated'] });
    // A proxy polled directly is named once.
    expect(trayStateOf(input({ capacity: [{ ...gpu('crossbar', false, minutesAgo(10)) }] })).reasons).toEqual(['crossbar down']);
  });

  it('counts unacknowledged, unsnoozed notices of priority ≥ 1 and asks for attention', () => {
    const notices = [
      notice('a', 1),
      notice('b', 2),
      notice('acked', 2, { acknowledgedAt: minutesAgo(5) }),
      notice('snoozed', 1, { snoozedUntil: minutesAgo(-10) }),
      notice('snooze-over', 1, { snoozedUntil: minutesAgo(1) }),
      notice('normal', 0),
      notice('list-only', -2),
    ];
    const state = trayStateOf(input({ notices }));
    expect(state).toEqual({ level: 'attention', count: 3, reasons: ['3 notices to acknowledge'], tooltip: 'Loopdeck: attention · 3 notices to acknowledge' });
    expect(trayStateOf(input({ notices: [notice('a', 1)] })).tooltip).toBe('Loopdeck: attention · 1 notice to acknowledge');
    expect(noticeWaits(notice('snoozed', 1, { snoozedUntil: 'not a date' }), NOW)).toBe(true);
  });

  it('asks for attention for PRs ready to merge and unreadable sources, not for pending or incomplete PRs', () => {
    expect(trayStateOf(input({ prs: [pr(88), pr(89), pr(90, 'pending')] }))).toMatchObject({ level: 'attention', reasons: ['2 PRs ready to merge'] });
    expect(trayStateOf(input({ prs: [pr(90, 'incomplete'), pr(91, 'pending')] })).level).toBe('ok');
    expect(trayStateOf(input({ sourceErrors: 1 }))).toMatchObject({ level: 'attention', tooltip: 'Loopdeck: attention · 1 source unreadable' });
  });

  it('failing wins over attention, the count stays, and the tooltip names the failures after the level and count', () => {
    const state = trayStateOf(
      input({
        loops: [reliabilityLoop({ cycles: [{ ...OK_CYCLE, status: 'failed' }] })],
        hosts: [host('mac', 'unreachable', minutesAgo(1))],
        prs: [pr(88)],
        notices: [notice('a', 1), notice('b', 1)],
      }),
    );
    expect(state.level).toBe('failing');
    expect(state.count).toBe(2);
    expect(state.reasons).toEqual(['reliability 2026-11-30 failed', 'reliability missed', 'host mac unreachable', '2 notices to acknowledge', '1 PR ready to merge']);
    expect(state.tooltip).toBe('Loopdeck: failing · 2 notices to acknowledge · reliability 2026-11-30 failed, reliability missed, host mac unreachable');
  });

  it('cuts a long tooltip to what Windows shows, keeping the level and count', () => {
    const loops = Array.from({ length: 12 }, (_, i) => reliabilityLoop({ name: `loop-${i}`, cycles: [{ ...OK_CYCLE, status: 'failed' }], deadman: null }));
    const state = trayStateOf(input({ loops, notices: [notice('a', 2)] }));
    expect(state.tooltip.length).toBe(TRAY_TOOLTIP_MAX);
    expect(state.tooltip.startsWith('Loopdeck: failing · 1 notice to acknowledge · loop-0 2026-11-30 failed')).toBe(true);
    expect(state.tooltip.endsWith('…')).toBe(true);
  });

  it('tells a changed state from the same one', () => {
    const a = trayStateOf(input());
    expect(sameTrayState(null, a)).toBe(false);
    expect(sameTrayState(a, trayStateOf(input()))).toBe(true);
    expect(sameTrayState(a, trayStateOf(input({ notices: [notice('a', 1)] })))).toBe(false);
  });
});
