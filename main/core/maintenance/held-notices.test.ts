import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { NoticeService, type NoticeSink } from '../notices/notice-service';
import type { NoticeDraft } from '../notices/notice-draft';
import type { NotifyConfig } from '../notices/notify-config';
import { PushoverSink } from '../notices/sinks/pushover-sink';
import { startPushoverTestServer, type PushoverTestServer } from '../../../testing/pushover-test-server';
import { MaintenanceSchedule, targetOfSource } from './maintenance-schedule';

// The notice service's side of a maintenance window, tick by tick, against the Pushover test server
// and a real SQLite file: what is held is never sent by the periodic work (owed sends, snooze ends,
// emergency repeats) while its window lasts, nor ever when it was not delivered after it.

const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const MIN = 60_000;

let server: PushoverTestServer;
let file: string;
let t: number;
const now = (): Date => new Date(t);
const stores: Store[] = [];

beforeEach(async () => {
  t = Date.parse('2026-11-29T00:50:00Z');
  server = await startPushoverTestServer({ token: TOKEN, user: USER });
  file = join(mkdtempSync(join(tmpdir(), 'ld-held-')), 'loopdeck.db');
});
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.sql.open) s.close();
  await server.close();
});

// Two windows back to back on reliability (01:00–02:00, 02:00–03:00), none on testing.
const cfg = parseConfig(
  '/c.yaml',
  `hosts: { runner: { local: true } }
loops: { reliability: { host: runner, runs: /tmp/r }, testing: { host: runner, runs: /tmp/t } }
maintenance:
  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T02:00:00Z", reason: first, loops: [reliability] }
  - { start: "2026-11-29T02:00:00Z", end: "2026-11-29T03:00:00Z", reason: second, loops: [reliability] }
`,
);
const schedule = new MaintenanceSchedule(cfg.maintenance, cfg);

function open() {
  const store = Store.open(file);
  stores.push(store);
  const notify: NotifyConfig = { pushover: { user: USER, token: TOKEN, baseUrl: server.url }, retry: 60_000, expire: 3 * 3_600_000 };
  const sink = new PushoverSink({ store, notify, now, log: () => undefined, pollMs: 3_600_000, random: () => 0.5 });
  // What the console is handed (it shows every repeat; Pushover repeats an emergency itself).
  const shown: NoticeSink & { readonly got: string[] } = { got: [], deliver: (n, o) => void shown.got.push(`${n.key}${o.repeat ? ' again' : ''}`) };
  const svc = new NoticeService({ store, notify, now, sinks: [shown, sink], log: () => undefined, silence: (source, at) => schedule.markAt(targetOfSource(source), at.getTime()) });
  const settle = async (): Promise<void> => {
    await sink.flush();
    await svc.tick();
    await sink.flush();
  };
  return { store, svc, settle, shown };
}

const draft = (key: string, priority: NoticeDraft['priority'] = 1, loop = 'reliability'): NoticeDraft => ({ key, priority, source: `loop:${loop}`, title: key, message: `about ${key}`, url: null, urlTitle: null });
const sent = (key: string): number => server.messages.filter((m) => m.fields.title === key).length;

describe('notices held by a maintenance window', () => {
  it('are never sent by the periodic work while held, and a cleared one never after', async () => {
    const { svc, settle } = open();
    t = Date.parse('2026-11-29T01:10:00Z');
    svc.update([draft('a'), draft('b'), draft('c', 1, 'testing')]);
    for (let i = 0; i < 3; i++) {
      t += 5 * MIN;
      await settle();
    }
    expect([sent('a'), sent('b'), sent('c')]).toEqual([0, 0, 1]);
    expect(svc.releaseDue(now())).toBe(false);

    // The first window ends; the second follows at once: still held, until its end.
    t = Date.parse('2026-11-29T02:00:00Z');
    expect(svc.releaseDue(now())).toBe(true);
    expect(svc.release(() => 'deliver')).toEqual([]);
    expect(svc.list().find((n) => n.key === 'a')?.silenced).toEqual({ reason: 'second', until: '2026-11-29T03:00:00.000Z', state: 'held' });
    await settle();
    expect(sent('a') + sent('b')).toBe(0);

    // The second ends: `a` still holds, `b` cleared meanwhile.
    t = Date.parse('2026-11-29T03:00:00Z');
    expect(svc.release((row) => (row.key === 'a' ? 'deliver' : 'clear')).map((n) => n.key)).toEqual(['a']);
    for (let i = 0; i < 3; i++) {
      t += 5 * MIN;
      await settle();
    }
    expect([sent('a'), sent('b')]).toEqual([1, 0]);
    expect(svc.list().find((n) => n.key === 'b')?.silenced?.state).toBe('cleared');
    expect(svc.releaseDue(now())).toBe(false);

    // A restart on the same file: nothing owed, nothing held.
    const again = open();
    expect(again.svc.releaseDue(now())).toBe(false);
    await again.settle();
    expect([sent('a'), sent('b')]).toEqual([1, 0]);
  });

  it('holds a snooze that ends inside a window, and an emergency\'s repeats, until the window ends; one acknowledged meanwhile is never sent', async () => {
    const { svc, settle, shown } = open();
    // Before the window: an emergency (sent, repeating) and a notice snoozed for 20 minutes.
    svc.update([draft('p0', 2), draft('snoozed', 1)]);
    await settle();
    expect([sent('p0'), sent('snoozed')]).toEqual([1, 1]);
    svc.snooze('snoozed', 20, 'alice');
    // Inside: the emergency's repeat is due but waits; the snooze ends and is held; a new one is acknowledged.
    t = Date.parse('2026-11-29T01:10:00Z');
    svc.update([draft('acked', 1)]);
    svc.acknowledge('acked', 'bob');
    await settle();
    expect(shown.got.filter((k) => k.startsWith('p0'))).toEqual(['p0']);
    expect(sent('snoozed')).toBe(1);
    expect(svc.list().find((n) => n.key === 'snoozed')?.silenced).toEqual({ reason: 'first', until: '2026-11-29T02:00:00.000Z', state: 'held' });

    t = Date.parse('2026-11-29T03:00:01Z');
    expect(svc.release(() => 'deliver').map((n) => n.key)).toEqual(['snoozed']);
    await settle();
    expect(sent('snoozed')).toBe(2); // the snooze's reminder, once, after the window
    expect(shown.got.filter((k) => k.startsWith('p0'))).toEqual(['p0', 'p0 again']); // repeating again after it
    expect(sent('acked')).toBe(0);
    expect(svc.list().find((n) => n.key === 'acked')?.silenced?.state).toBe('acknowledged');
  });
});
