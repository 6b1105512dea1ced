import { describe, expect, it } from 'vitest';
import { backlogItem, cycle, finding, host, loop, pullRequest, snapshot } from '../ui/test-fixtures';
import { findingKey } from '../../../shared/deltas';
import { summaryOf } from '../../../shared/ledger-slice';
import { emptyDeckData, ledgersHeld, reduceEvent, withLedgers, withLoop, withReading, withSnapshot, withSummary, type AppInfo } from './reducers';

const NOW = '2026-08-24T07:05:00.000Z';
const info: AppInfo = {
  version: '0.1.0',
  shell: 'serve',
  config: { state: 'loaded', path: '/home/op/.config/loopdeck/config.yaml' },
  dataDir: '/tmp/d',
  demo: false,
  caller: { user: 'op', role: 'admin', via: 'token' },
};

describe('withSnapshot', () => {
  it('indexes loops by name, keeps their order, and marks the data loaded', () => {
    const d = withSnapshot({ ...emptyDeckData, info }, snapshot());
    expect(d.loopNames).toEqual(['reliability', 'testing']);
    expect(d.loops.testing?.name).toBe('testing');
    expect(d.stage).toEqual({ state: 'ready' });
    expect(d.takenAt).toBe('2026-08-24T07:00:00.000Z');
    expect(d.info).toBe(info);
  });

  it('takes the ledgers, pull requests and review time from the snapshot, as the same arrays', () => {
    const findings = [finding('R-1'), finding('R-2')];
    const prs = [pullRequest(87)];
    const d = withSnapshot(emptyDeckData, snapshot({ findings, prs, lastReviewedAt: '2026-08-23T05:00:00.000Z' }));
    expect(d.findings).toBe(findings);
    expect(d.prs).toBe(prs);
    expect(d.lastReviewedAt).toBe('2026-08-23T05:00:00.000Z');
  });

  it('forgets loops the new snapshot no longer has', () => {
    const d1 = withSnapshot(emptyDeckData, snapshot());
    const d2 = withSnapshot(d1, snapshot({ loops: [loop('testing')] }));
    expect(d2.loopNames).toEqual(['testing']);
    expect(d2.loops.reliability).toBeUndefined();
  });
});

describe('stage', () => {
  const delta = { loop: 'reliability', findings: { upserted: [finding('R-9')], removed: [] }, backlog: { upserted: [], removed: [] }, tasks: { upserted: [], removed: [] }, lessons: { upserted: [], removed: [] }, audits: { upserted: [], removed: [] } };

  it('goes empty, summary (rows not yet paged, deltas wait), ready', () => {
    expect(emptyDeckData.stage).toEqual({ state: 'empty' });
    const painted = withSummary(emptyDeckData, summaryOf(snapshot({ findings: [finding('R-1')] })));
    expect(painted.stage).toEqual({ state: 'summary' });
    expect(ledgersHeld(painted.stage)).toBe(false);
    expect(reduceEvent(painted, 'ledgers.changed', delta, NOW).data).toBe(painted);
    const ready = withLedgers(painted, snapshot({ findings: [finding('R-1')] }));
    expect(ready.stage).toEqual({ state: 'ready' });
    expect(reduceEvent(ready, 'ledgers.changed', delta, NOW).data.findings).toHaveLength(2);
  });

  it("keeps the rows held through main's first read after a restart (restored or reading), and asks for no reload on ledgers.reset meanwhile", () => {
    const ready = withSnapshot(emptyDeckData, snapshot({ findings: [finding('R-1')] }));
    const restored = withSummary(ready, { ...summaryOf(snapshot()), restored: true });
    expect(restored.stage).toEqual({ state: 'restored', rows: true });
    expect(reduceEvent(restored, 'ledgers.changed', delta, NOW).data.findings).toHaveLength(2);
    expect(reduceEvent(restored, 'ledgers.reset', { loop: 'reliability', rows: 9000 }, NOW).refetch).toBe(false);
    expect(withSummary(restored, summaryOf(snapshot())).stage).toEqual({ state: 'ready' });
    expect(withSummary(emptyDeckData, { ...summaryOf(snapshot()), reading: true }).stage).toEqual({ state: 'reading', rows: false });
    expect(withReading(ready)).toMatchObject({ stage: { state: 'reading', rows: true }, ledgerRows: null });
  });
});

describe('reduceEvent', () => {
  const base = withSnapshot({ ...emptyDeckData, info }, snapshot());

  it('loop.changed merges the changed cycles into that loop only, newest first', () => {
    const before = base.loops.reliability;
    const { data, refetch } = reduceEvent(base, 'loop.changed', { loop: 'reliability', host: 'runner', upserted: [cycle('2026-08-24', 'running')], removed: [] }, NOW);
    expect(refetch).toBe(false);
    expect(data.loops.reliability?.cycles.map((c) => c.date)).toEqual(['2026-08-24', ...(before?.cycles.map((c) => c.date) ?? [])]);
    expect(data.loops.reliability?.deadman).toBe(before?.deadman);
    expect(data.loops.testing).toBe(base.loops.testing);
    expect(data.loopNames).toEqual(['reliability', 'testing']);
    expect(data.updatedAt).toBe(NOW);
    expect(data.takenAt).toBe(base.takenAt);
  });

  it('loop.changed replaces a cycle of the same date, drops removed dates, and takes a new dead-man', () => {
    const one = reduceEvent(base, 'loop.changed', { loop: 'reliability', host: 'runner', upserted: [cycle('2026-08-24', 'running'), cycle('2026-08-23', 'running')], removed: [] }, NOW).data;
    const deadman = { state: 'late', expectedAt: null, lastFireAt: null, reason: 'no cycle yet' } as const;
    const two = reduceEvent(one, 'loop.changed', { loop: 'reliability', host: 'runner', upserted: [cycle('2026-08-24', 'failed')], removed: ['2026-08-23'], deadman }, NOW).data;
    expect(two.loops.reliability?.cycles.map((c) => [c.date, c.status])).toEqual([['2026-08-24', 'failed']]);
    expect(two.loops.reliability?.deadman).toEqual(deadman);
  });

  it('loop.changed for an unknown loop appends it', () => {
    const { data } = reduceEvent(base, 'loop.changed', { loop: 'nightly', host: 'runner', upserted: [cycle('2026-08-24')], removed: [] }, NOW);
    expect(data.loopNames).toEqual(['reliability', 'testing', 'nightly']);
    expect(data.loops.nightly?.cycles).toHaveLength(1);
  });

  it('preflight.changed replaces the pre-flights; a snapshot without them (an older one) has none', () => {
    const preflight = [{ loop: 'reliability', fireAt: '2026-08-25T04:00:00.000Z', state: 'at-risk' as const, checks: [{ name: 'disk' as const, ok: false, status: 'fail' as const, detail: 'clone /srv/clone has 512 KB free' }], checkedAt: NOW }];
    const r = reduceEvent(base, 'preflight.changed', { preflight }, NOW);
    expect(r.data.preflight).toBe(preflight);
    expect(r.refetch).toBe(false);
    expect(withSnapshot(r.data, snapshot()).preflight).toEqual([]);
    expect(withSnapshot(r.data, { ...snapshot(), preflight }).preflight).toBe(preflight);
  });

  it('hosts.changed and problems.changed replace their lists', () => {
    const hosts = [host('mac', { kind: 'ssh', state: 'unreachable', error: 'connect ETIMEDOUT', attempt: 2 })];
    expect(reduceEvent(base, 'hosts.changed', { hosts }, NOW).data.hosts).toBe(hosts);
    const problems = [{ source: 'runner:/runs/2026-08-23/audit.status', line: 3, message: 'unknown status' }];
    const r = reduceEvent(base, 'problems.changed', { problems }, NOW);
    expect(r.data.problems).toBe(problems);
    expect(r.refetch).toBe(false);
  });

  it('ledgers.changed applies its deltas: changed rows in place, new ones appended, removed ones gone', () => {
    const none = { upserted: [], removed: [] };
    const start = reduceEvent(base, 'ledgers.changed', { loop: 'reliability', findings: { upserted: [finding('R-1'), finding('R-2')], removed: [] }, backlog: none, tasks: none, lessons: none, audits: none }, NOW).data;
    const r1 = start.findings.find((f) => f.id === 'R-1');
    const changedR2 = finding('R-2', { status: 'done' });
    const gone = start.findings.find((f) => f.id === 'R-1');
    const payload = {
      loop: 'reliability',
      findings: { upserted: [changedR2, finding('R-3')], removed: gone ? [findingKey(gone)] : [] },
      backlog: { upserted: [backlogItem('REL-001', ['R-2'])], removed: [] },
      tasks: none,
      lessons: none,
      audits: none,
    };
    const { data, refetch } = reduceEvent(start, 'ledgers.changed', payload, NOW);
    expect(refetch).toBe(false);
    expect(r1).toBeDefined();
    expect(data.findings.map((f) => [f.id, f.status])).toEqual([
      ...base.findings.map((f) => [f.id, f.status]),
      ['R-2', 'done'],
      ['R-3', 'open'],
    ]);
    expect(data.findings.find((f) => f.id === 'R-2')).toBe(changedR2);
    expect(data.backlog.map((b) => b.id)).toEqual([...base.backlog.map((b) => b.id), 'REL-001']);
    expect(data.tasks).toBe(start.tasks);
    expect(data.loops).toBe(base.loops);
    expect(data.updatedAt).toBe(NOW);
  });

  it('prs.changed replaces the pull requests in the order main sent', () => {
    const prs = [pullRequest(88), pullRequest(87, { status: 'incomplete', check: 'ci/test' })];
    const { data, refetch } = reduceEvent(base, 'prs.changed', { prs }, NOW);
    expect(refetch).toBe(false);
    expect(data.prs).toBe(prs);
    expect(data.findings).toBe(base.findings);
  });

  it('notices.changed keeps the review time', () => {
    const { data } = reduceEvent(base, 'notices.changed', { notices: [], lastReviewedAt: '2026-08-24T06:00:00.000Z' }, NOW);
    expect(data.lastReviewedAt).toBe('2026-08-24T06:00:00.000Z');
  });

  it('config.changed updates info.config and asks for a refetch', () => {
    const config = { state: 'invalid', path: '/c.yaml', message: 'loops.reliability.host: unknown host "mac"' } as const;
    const { data, refetch } = reduceEvent(base, 'config.changed', { config, demo: true }, NOW);
    expect(refetch).toBe(true);
    expect(data.info?.config).toEqual(config);
    expect(data.info?.demo).toBe(true);
    expect(data.info?.version).toBe('0.1.0');
  });

  it('config.changed before app.info answered still asks for a refetch', () => {
    const config = { state: 'missing', path: '/c.yaml' } as const;
    const { data, refetch } = reduceEvent(emptyDeckData, 'config.changed', { config, demo: false }, NOW);
    expect(refetch).toBe(true);
    expect(data.info).toBeNull();
  });

  it('does not mutate its input', () => {
    const before = JSON.stringify(base);
    reduceEvent(base, 'loop.changed', { loop: 'nightly', host: 'runner', upserted: [cycle('2026-08-24')], removed: [] }, NOW);
    reduceEvent(base, 'ledgers.changed', { loop: 'reliability', findings: { upserted: [finding('R-9')], removed: [] }, backlog: { upserted: [], removed: [] }, tasks: { upserted: [], removed: [] }, lessons: { upserted: [], removed: [] }, audits: { upserted: [], removed: [] } }, NOW);
    withLoop(base, loop('reliability', []));
    expect(JSON.stringify(base)).toBe(before);
  });
});
