import { describe, expect, it } from 'vitest';
import type { DrillRun, Notice } from '../../../shared/domain';
import { snapshot } from '../ui/test-fixtures';
import { appendOutput, byteLength, MAX_OUTPUT_CHARS, withNoticeChange } from './ops';
import { emptyDeckData, reduceEvent, withSnapshot } from './reducers';

const NOW = '2026-08-24T07:05:00.000Z';

function notice(key: string, over: Partial<Notice> = {}): Notice {
  return {
    key,
    priority: 0,
    source: 'loop:reliability',
    title: `Notice ${key}`,
    message: 'Something happened.',
    url: '#/loops/reliability',
    urlTitle: 'Loop reliability',
    createdAt: '2026-08-24T06:00:00.000Z',
    acknowledgedAt: null,
    snoozedUntil: null,
    ...over,
  };
}

function run(id: string, over: Partial<DrillRun> = {}): DrillRun {
  return {
    id,
    drill: 'restart-llama',
    host: 'gpu1',
    args: { model: 'qwen3-32b' },
    user: 'op',
    startedAt: '2026-08-24T06:58:00.000Z',
    endedAt: null,
    rc: null,
    status: 'running',
    override: false,
    logPath: `/var/lib/loopdeck/drills/${id}.log`,
    durationMs: null,
    ...over,
  };
}

describe('ops reducers', () => {
  it('takes notices, drills and runs from the snapshot', () => {
    const notices = [notice('a')];
    const drillRuns = [run('r1')];
    const drills = [{ name: 'restart-llama', host: 'gpu1', timeoutMs: 300_000, args: { model: ['qwen3-32b'] } }];
    const d = withSnapshot(emptyDeckData, snapshot({ notices, drillRuns, drills }));
    expect(d.notices).toBe(notices);
    expect(d.drillRuns).toBe(drillRuns);
    expect(d.drills).toBe(drills);
    expect(d.toasts).toEqual([]);
  });

  it('notices.changed merges the changed notices and the review time, and takes down toasts of acknowledged notices', () => {
    const raised = reduceEvent(emptyDeckData, 'notice.raised', { notice: notice('a', { priority: 2 }), repeat: false }, NOW).data;
    const two = reduceEvent(raised, 'notice.raised', { notice: notice('b', { priority: 1, createdAt: '2026-08-24T08:00:00.000Z' }), repeat: false }, NOW).data;
    expect(two.toasts).toHaveLength(2);
    const acked = notice('a', { priority: 2, acknowledgedAt: NOW });
    const { data } = reduceEvent(two, 'notices.changed', { notices: [acked], lastReviewedAt: NOW }, NOW);
    expect(data.notices.map((n) => [n.key, n.acknowledgedAt])).toEqual([
      ['b', null],
      ['a', NOW],
    ]);
    expect(data.lastReviewedAt).toBe(NOW);
    expect(data.toasts.map((t) => t.notice.key)).toEqual(['b']);
    // A watermark move alone changes no notice.
    expect(reduceEvent(data, 'notices.changed', { notices: [], lastReviewedAt: NOW }, NOW).data.notices).toBe(data.notices);
  });

  it('an acknowledgement recorded locally names who made it, and main\'s notices.changed then carries it', () => {
    const raised = reduceEvent(emptyDeckData, 'notice.raised', { notice: notice('a', { priority: 2 }), repeat: false }, NOW).data;
    const local = { ...raised, ...withNoticeChange(raised, 'a', { acknowledgedAt: NOW, acknowledgedBy: 'olive' }) };
    expect(local.notices[0]).toMatchObject({ acknowledgedAt: NOW, acknowledgedBy: 'olive' });
    expect(local.toasts).toEqual([]);
    const snoozed = withNoticeChange(local, 'a', { snoozedUntil: NOW, snoozedBy: 'bob' });
    expect(snoozed.notices?.[0]).toMatchObject({ acknowledgedBy: 'olive', snoozedBy: 'bob' });
    const { data } = reduceEvent(local, 'notices.changed', { notices: [notice('a', { acknowledgedAt: NOW, acknowledgedBy: 'olive' })], lastReviewedAt: NOW, lastReviewedBy: 'alice' }, NOW);
    expect(data.notices[0]?.acknowledgedBy).toBe('olive');
    expect(data.lastReviewedBy).toBe('alice');
  });

  it('notice.raised queues a toast, replaces one with the same key, and adds the notice to the list', () => {
    const first = { notice: notice('a'), repeat: false };
    const d1 = reduceEvent(emptyDeckData, 'notice.raised', first, NOW).data;
    expect(d1.toasts.map((t) => t.notice.key)).toEqual(['a']);
    expect(d1.notices.map((n) => n.key)).toEqual(['a']);
    const d2 = reduceEvent(d1, 'notice.raised', { notice: notice('b', { priority: 1 }), repeat: false }, NOW).data;
    const d3 = reduceEvent(d2, 'notice.raised', { notice: notice('a', { priority: 2 }), repeat: true }, NOW).data;
    expect(d3.toasts.map((t) => t.notice.key)).toEqual(['b', 'a']);
    expect(d3.toasts[1]?.repeat).toBe(true);
    expect(d3.toasts[1]?.seq).toBeGreaterThan(d3.toasts[0]?.seq ?? 0);
    expect(d3.notices.map((n) => n.key)).toEqual(['b', 'a']);
  });

  it('notice.raised replayed over a snapshot (the same event object) does not toast twice; −2 never toasts', () => {
    const payload = { notice: notice('a'), repeat: false };
    const d1 = reduceEvent(emptyDeckData, 'notice.raised', payload, NOW).data;
    const d2 = reduceEvent(d1, 'notice.raised', payload, NOW).data;
    expect(d2.toasts).toHaveLength(1);
    expect(d2.toastSeq).toBe(d1.toastSeq);
    const quiet = reduceEvent(emptyDeckData, 'notice.raised', { notice: notice('l', { priority: -2 }), repeat: false }, NOW).data;
    expect(quiet.toasts).toEqual([]);
    expect(quiet.notices).toHaveLength(1);
  });

  it('drills.changed replaces the runs', () => {
    const runs = [run('r2'), run('r1', { status: 'ok', rc: 0 })];
    expect(reduceEvent(emptyDeckData, 'drills.changed', { runs }, NOW).data.drillRuns).toBe(runs);
  });

  it('drill.output appends in order, ignores chunks already held, and records a gap instead of appending past it', () => {
    let d = reduceEvent(emptyDeckData, 'drill.output', { runId: 'r1', from: 0, text: 'one\n' }, NOW).data;
    d = reduceEvent(d, 'drill.output', { runId: 'r1', from: 4, text: 'two\n' }, NOW).data;
    expect(d.drillOutput.r1).toMatchObject({ text: 'one\ntwo\n', next: 8, behind: 8 });
    const same = reduceEvent(d, 'drill.output', { runId: 'r1', from: 0, text: 'one\n' }, NOW).data;
    expect(same.drillOutput).toBe(d.drillOutput);
    const gap = reduceEvent(d, 'drill.output', { runId: 'r1', from: 12, text: 'four\n' }, NOW).data;
    expect(gap.drillOutput.r1).toMatchObject({ text: 'one\ntwo\n', next: 8, behind: 17 });
    expect(gap.updatedAt).toBe(d.updatedAt);
  });

  it('appendOutput skips the overlapping bytes of a chunk, counting UTF-8 bytes', () => {
    const held = appendOutput(undefined, 0, '✓ a\n', byteLength('✓ a\n'));
    expect(held.next).toBe(6);
    const next = appendOutput(held, 0, '✓ a\nb\n', byteLength('✓ a\nb\n'));
    expect(next).toMatchObject({ text: '✓ a\nb\n', next: 8 });
  });

  it('keeps only the last ~1 MB of a run', () => {
    const big = 'x'.repeat(700_000) + '\n';
    let out = appendOutput(undefined, 0, big, big.length);
    out = appendOutput(out, out.next, big, out.next + big.length);
    expect(out.text.length).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
    expect(out.truncated).toBe(true);
    expect(out.next).toBe(big.length * 2);
  });
});

describe('toast burst', () => {
  it('keeps at most MAX_TOASTS on screen, emergencies first, newest first', async () => {
    const { withRaisedNotice, capToasts, MAX_TOASTS, emptyOpsData } = await import('./ops');
    let data = emptyOpsData;
    const notice = (i: number, priority: 0 | 2) => ({
      key: `k${i}`, priority, source: 'loop:l', title: `t${i}`, message: 'm', url: null, urlTitle: null,
      createdAt: '2026-11-30T07:00:00.000Z', acknowledgedAt: null, snoozedUntil: null,
    });
    for (let i = 0; i < 300; i++) {
      data = { ...data, ...withRaisedNotice(data, { notice: notice(i, i === 3 ? 2 : 0), repeat: false }) };
    }
    expect(data.toasts).toHaveLength(MAX_TOASTS);
    expect(data.toasts.map((t) => t.notice.key)).toEqual(['k3', 'k296', 'k297', 'k298', 'k299']);
    expect(data.notices).toHaveLength(300);
    expect(capToasts([])).toEqual([]);
  });
});
