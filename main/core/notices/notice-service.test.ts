import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/domain';
import { Store } from '../store/store';
import { trackDownSince } from './rules/host-rules';
import { NoticeService, type NoticeSink } from './notice-service';
import type { NoticeDraft } from './notice-draft';
import { inQuietHours, type NotifyConfig } from './notify-config';
import { deriveNotices } from './rules/rules';
import { emptyInput, finding, host, pr, reliabilityLoop } from '../../../testing/notice-fixtures';

/** A sink that records what it was handed. */
class RecordingSink implements NoticeSink {
  readonly delivered: { key: string; repeat: boolean; quiet: boolean }[] = [];
  readonly withdrawn: string[] = [];
  deliver(n: Notice, opts: { repeat: boolean; quiet: boolean }): void {
    this.delivered.push({ key: n.key, ...opts });
  }
  withdraw(n: Notice): void {
    this.withdrawn.push(n.key);
  }
}

class Clock {
  constructor(public t: Date) {}
  now = (): Date => this.t;
  advance(ms: number): void {
    this.t = new Date(this.t.getTime() + ms);
  }
}

const stores: Store[] = [];
function openStore(file = join(mkdtempSync(join(tmpdir(), 'ld-notices-')), 'loopdeck.db')): { store: Store; file: string } {
  const store = Store.open(file);
  stores.push(store);
  return { store, file };
}
afterEach(() => {
  for (const s of stores.splice(0)) if (s.sql.open) s.close();
});

function service(notify: NotifyConfig, clock: Clock, store = openStore().store) {
  const sink = new RecordingSink();
  let changes = 0;
  const svc = new NoticeService({ store, notify, now: clock.now, sinks: [sink], onChange: () => void changes++, log: () => undefined });
  return { svc, sink, store, changes: () => changes };
}

function draft(key: string, priority: NoticeDraft['priority']): NoticeDraft {
  return { key, priority, source: 'loop:reliability', title: key, message: `about ${key}`, url: null, urlTitle: null };
}

describe('inQuietHours', () => {
  const at = (h: number, m: number): Date => new Date(2026, 10, 30, h, m);
  it.each([
    ['22:00-07:00', 23, 30, true],
    ['22:00-07:00', 3, 0, true],
    ['22:00-07:00', 7, 0, false],
    ['22:00-07:00', 21, 59, false],
    ['22:00-07:00', 22, 0, true],
    ['01:00-05:00', 4, 59, true],
    ['01:00-05:00', 5, 0, false],
    ['01:00-05:00', 0, 30, false],
    ['09:00-09:00', 9, 0, false],
  ])('%s at %i:%i → %s', (spec, h, m, want) => expect(inQuietHours(spec, at(h, m))).toBe(want));
  it('is never quiet without a setting', () => expect(inQuietHours(undefined, at(3, 0))).toBe(false));
});

describe('NoticeService', () => {
  it('raises each key once, in one transaction, and lists it', () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc, sink, changes } = service({}, clock);
    expect(svc.update([draft('a', 0), draft('a', 0), draft('b', 1)]).map((n) => n.key)).toEqual(['a', 'b']);
    expect(svc.update([draft('a', 0), draft('b', 1)])).toEqual([]);
    expect(sink.delivered).toEqual([
      { key: 'a', repeat: false, quiet: false },
      { key: 'b', repeat: false, quiet: false },
    ]);
    expect(svc.list().map((n) => [n.key, n.createdAt, n.acknowledgedAt])).toEqual([
      ['a', '2026-11-30T12:00:00.000Z', null],
      ['b', '2026-11-30T12:00:00.000Z', null],
    ]);
    expect(changes()).toBe(1);
  });

  it('raises nothing the second time the same state is read, across a restart', () => {
    const clock = new Clock(new Date('2026-11-30T07:00:00.000Z'));
    const input = emptyInput(clock.t, {
      loops: [reliabilityLoop()],
      findings: [finding('R-123', 'P0')],
      prs: [pr(88), pr(89)],
      hosts: [host('mac', 'unreachable', '2026-11-30T06:50:00.000Z')],
      hostDownSince: trackDownSince({}, [host('mac', 'unreachable', '2026-11-30T06:50:00.000Z')], [], clock.t),
    });
    const first = openStore();
    const one = service({}, clock, first.store);
    const raised = one.svc.update(deriveNotices(input));
    expect(raised.map((n) => n.key).sort()).toEqual([
      'deadman:reliability:2026-11-30T05:00:00.000Z:missed',
      'finding:reliability:R-123',
      'host-down:mac:2026-11-30T06:50:00.000Z',
      'phase:reliability:2026-11-29:deliver:no-op',
      'phase:reliability:2026-11-29:remediate:incomplete',
      'pr:https://github.com/acme/radon/pull/88:ready',
      'pr:https://github.com/acme/radon/pull/89:ready',
    ]);
    first.store.close();

    clock.advance(3_600_000);
    const two = service({}, clock, openStore(first.file).store);
    expect(two.svc.update(deriveNotices({ ...input, now: clock.t }))).toEqual([]);
    expect(two.sink.delivered).toEqual([]);
    expect(two.svc.list()).toHaveLength(7);
  });

  it('raises a recovery only after its outage was raised', () => {
    const clock = new Clock(new Date('2026-11-30T07:00:00.000Z'));
    const { svc } = service({}, clock);
    const recovered = { ...draft('host-recovered:mac:T1', 0), requires: 'host-down:mac:T1' };
    expect(svc.update([recovered])).toEqual([]);
    expect(svc.update([draft('host-down:mac:T1', 1)])).toHaveLength(1);
    expect(svc.update([recovered]).map((n) => n.key)).toEqual(['host-recovered:mac:T1']);
  });

  it('during quiet hours lists priority ≤ 0 quietly, lets priority 1 through, and never delivers −2', () => {
    const clock = new Clock(new Date(2026, 10, 30, 23, 30));
    const { svc, sink } = service({ quietHours: '22:00-07:00' }, clock);
    svc.update([draft('normal', 0), draft('high', 1), draft('low', -1), draft('listed', -2)]);
    expect(sink.delivered).toEqual([
      { key: 'normal', repeat: false, quiet: true },
      { key: 'high', repeat: false, quiet: false },
      { key: 'low', repeat: false, quiet: true },
    ]);
    expect(svc.list().map((n) => n.key).sort()).toEqual(['high', 'listed', 'low', 'normal']);

    clock.t = new Date(2026, 11, 1, 7, 0);
    svc.update([draft('morning', 0)]);
    expect(sink.delivered.at(-1)).toEqual({ key: 'morning', repeat: false, quiet: false });
  });

  it('never repeats an emergency the first start listed as history (the seed)', async () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc, sink, store } = service({ retry: 60_000 }, clock);
    new NoticeService({ store, notify: { retry: 60_000 }, now: clock.now, sinks: [], log: () => undefined }).update([draft('finding:reliability:R-1', 2)], { seed: true });
    svc.update([draft('finding:reliability:R-2', 2)]);
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      await svc.tick();
    }
    expect(sink.delivered.filter((d) => d.key === 'finding:reliability:R-1')).toEqual([]);
    expect(sink.delivered.filter((d) => d.key === 'finding:reliability:R-2' && d.repeat).length).toBe(5);
  });

  it('repeats an emergency every retry until it is acknowledged', async () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc, sink } = service({ retry: 60_000 }, clock);
    svc.update([draft('finding:reliability:R-123', 2)]);
    const repeats = (): number => sink.delivered.filter((d) => d.repeat).length;
    clock.advance(59_000);
    await svc.tick();
    expect(repeats()).toBe(0);
    clock.advance(1_000);
    await svc.tick();
    await svc.tick();
    expect(repeats()).toBe(1);
    clock.advance(60_000);
    await svc.tick();
    expect(repeats()).toBe(2);
    expect(svc.acknowledge('finding:reliability:R-123', 'alice')).toBe('2026-11-30T12:02:00.000Z');
    expect(sink.withdrawn).toEqual(['finding:reliability:R-123']);
    clock.advance(10 * 60_000);
    await svc.tick();
    expect(repeats()).toBe(2);
    // A second acknowledgement (someone else, later) keeps the first: when, and who.
    expect(svc.acknowledge('finding:reliability:R-123', 'bob')).toBe('2026-11-30T12:02:00.000Z');
    expect(svc.list()[0]).toMatchObject({ acknowledgedAt: '2026-11-30T12:02:00.000Z', acknowledgedBy: 'alice' });
  });

  it('stops repeating an emergency when it expires, and never repeats faster than 30 s', async () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc, sink } = service({ retry: 5_000, expire: 120_000 }, clock);
    svc.update([draft('e', 2)]);
    for (let i = 0; i < 20; i++) {
      clock.advance(10_000);
      await svc.tick();
    }
    // Retry is raised to Pushover's 30 s; repeats at +30, +60, +90 s; expired at +120 s.
    expect(sink.delivered.filter((d) => d.repeat)).toHaveLength(3);
    expect(svc.list()[0]?.acknowledgedAt).toBeNull();
  });

  it('does not re-deliver a snoozed notice until the snooze ends, then reminds once', async () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc, sink } = service({}, clock);
    svc.update([draft('e', 2), draft('p', 0)]);
    expect(svc.snooze('e', 10, 'alice')).toBe('2026-11-30T12:10:00.000Z');
    svc.snooze('p', 5, 'bob');
    expect(sink.withdrawn).toEqual(['e', 'p']);
    expect(Object.fromEntries(svc.list().map((n) => [n.key, n.snoozedBy]))).toEqual({ e: 'alice', p: 'bob' });
    for (let i = 0; i < 9; i++) {
      clock.advance(60_000);
      await svc.tick();
    }
    expect(sink.delivered.filter((d) => d.repeat).map((d) => d.key)).toEqual(['p']);
    clock.advance(60_000);
    await svc.tick();
    expect(sink.delivered.filter((d) => d.repeat).map((d) => d.key)).toEqual(['p', 'e']);
    expect(svc.list().find((n) => n.key === 'e')?.snoozedUntil).toBeNull();
    clock.advance(60_000);
    await svc.tick();
    expect(sink.delivered.filter((d) => d.repeat).map((d) => d.key)).toEqual(['p', 'e', 'e']);
  });

  it('refuses an unknown key naming it', () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { svc } = service({}, clock);
    expect(() => svc.acknowledge('nope', 'alice')).toThrow(/No notice with key "nope"/);
    expect(() => svc.snooze('nope', 5, 'alice')).toThrow(/No notice with key "nope"/);
  });

  it('survives a sink that throws or rejects, and delivers a notice stored but never handed over', async () => {
    const clock = new Clock(new Date('2026-11-30T12:00:00.000Z'));
    const { store } = openStore();
    const logs: string[] = [];
    const bad: NoticeSink = { deliver: () => { throw new Error('boom'); } };
    const rejecting: NoticeSink = { deliver: () => Promise.reject(new Error('later boom')) };
    const good = new RecordingSink();
    const svc = new NoticeService({ store, notify: {}, now: clock.now, sinks: [bad, rejecting, good], log: (m) => logs.push(m) });
    expect(svc.update([draft('a', 0)])).toHaveLength(1);
    await new Promise((r) => setImmediate(r));
    expect(good.delivered).toHaveLength(1);
    expect(logs.join('\n')).toMatch(/boom[\s\S]*later boom/);

    // As if Loopdeck died between storing and delivering.
    store.sql.prepare("INSERT INTO notices (key, priority, source, title, message, created_at) VALUES ('orphan', 1, 'loop:x', 't', 'm', '2026-11-30T11:59:00.000Z')").run();
    await svc.tick();
    await svc.tick();
    expect(good.delivered.map((d) => d.key)).toEqual(['a', 'orphan']);
  });
});
