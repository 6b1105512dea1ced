import { describe, expect, it } from 'vitest';
import { cycle, host, loop, snapshot } from '../lib/test-fixtures';
import { emptyDeckData, reduceEvent, withLoop, withSnapshot, type AppInfo } from './reducers';

const NOW = '2026-08-24T07:05:00.000Z';
const info: AppInfo = {
  version: '0.1.0',
  shell: 'serve',
  config: { state: 'loaded', path: '/home/op/.config/loopdeck/config.yaml' },
  dataDir: '/tmp/d',
  demo: false,
};

describe('withSnapshot', () => {
  it('indexes loops by name, keeps their order, and marks the data loaded', () => {
    const d = withSnapshot({ ...emptyDeckData, info }, snapshot());
    expect(d.loopNames).toEqual(['reliability', 'testing']);
    expect(d.loops.testing?.name).toBe('testing');
    expect(d.loaded).toBe(true);
    expect(d.takenAt).toBe('2026-08-24T07:00:00.000Z');
    expect(d.info).toBe(info);
  });

  it('forgets loops the new snapshot no longer has', () => {
    const d1 = withSnapshot(emptyDeckData, snapshot());
    const d2 = withSnapshot(d1, snapshot({ loops: [loop('testing')] }));
    expect(d2.loopNames).toEqual(['testing']);
    expect(d2.loops.reliability).toBeUndefined();
  });
});

describe('reduceEvent', () => {
  const base = withSnapshot({ ...emptyDeckData, info }, snapshot());

  it('loop.updated replaces that loop only, in place', () => {
    const updated = loop('reliability', [cycle('2026-08-24', 'running'), cycle('2026-08-23')]);
    const { data, refetch } = reduceEvent(base, 'loop.updated', { loop: updated }, NOW);
    expect(refetch).toBe(false);
    expect(data.loops.reliability).toBe(updated);
    expect(data.loops.testing).toBe(base.loops.testing);
    expect(data.loopNames).toEqual(['reliability', 'testing']);
    expect(data.updatedAt).toBe(NOW);
    expect(data.takenAt).toBe(base.takenAt);
  });

  it('loop.updated for an unknown loop appends it', () => {
    const { data } = reduceEvent(base, 'loop.updated', { loop: loop('nightly') }, NOW);
    expect(data.loopNames).toEqual(['reliability', 'testing', 'nightly']);
  });

  it('hosts.changed and problems.changed replace their lists', () => {
    const hosts = [host('mac', { kind: 'ssh', state: 'unreachable', error: 'connect ETIMEDOUT', attempt: 2 })];
    expect(reduceEvent(base, 'hosts.changed', { hosts }, NOW).data.hosts).toBe(hosts);
    const problems = [{ source: 'runner:/runs/2026-08-23/audit.status', line: 3, message: 'unknown status' }];
    const r = reduceEvent(base, 'problems.changed', { problems }, NOW);
    expect(r.data.problems).toBe(problems);
    expect(r.refetch).toBe(false);
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
    reduceEvent(base, 'loop.updated', { loop: loop('nightly') }, NOW);
    withLoop(base, loop('reliability', []));
    expect(JSON.stringify(base)).toBe(before);
  });
});
