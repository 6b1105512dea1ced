import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../store/store';
import { NoticeService } from '../notice-service';
import type { NotifyConfig } from '../notify-config';
import { PushoverSink } from './pushover-sink';
import { startPushoverTestServer, type PushoverTestServer } from '../../../../testing/pushover-test-server';
import { mountTmpfs, type Tmpfs } from '../../../../testing/tmpfs';
import { P0_DRAFT, PR_READY_DRAFT } from '../../../../testing/notice-fixtures';

const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

let server: PushoverTestServer;
let store: Store;
let t: Date;
const now = (): Date => t;
const advance = (ms: number): void => void (t = new Date(t.getTime() + ms));

beforeEach(async () => {
  t = new Date('2026-11-30T12:00:00.000Z');
  server = await startPushoverTestServer({ token: TOKEN, user: USER, now });
  store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-pushover-')), 'loopdeck.db'));
});
afterEach(async () => {
  store.close();
  await server.close();
});

function setup(over: Partial<NotifyConfig> = {}, pushover: Partial<NonNullable<NotifyConfig['pushover']>> = {}) {
  const logs: string[] = [];
  const notify: NotifyConfig = { pushover: { user: USER, token: TOKEN, baseUrl: server.url, ...pushover }, retry: 60_000, expire: 3_600_000, ...over };
  const sink = new PushoverSink({ store, notify, now, log: (m) => logs.push(m), pollMs: 10_000, backoffMs: 15_000, random: () => 0.5 });
  const svc = new NoticeService({ store, notify, now, sinks: [sink], log: (m) => logs.push(m) });
  return { sink, svc, logs };
}

/** Let the sink's requests in flight finish, then tick once. */
async function settle(svc: NoticeService, sink: PushoverSink): Promise<void> {
  await sink.flush();
  await svc.tick();
  await sink.flush();
}

function row(key: string): Record<string, unknown> {
  return store.sql.prepare('SELECT * FROM notices WHERE key = ?').get(key) as Record<string, unknown>;
}

const PR = PR_READY_DRAFT;
const P0 = P0_DRAFT;

describe('PushoverSink against the local Pushover server', () => {
  it('sends the fields Pushover expects', async () => {
    const { svc, sink } = setup();
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(1);
    expect(server.messages[0]?.fields).toEqual({
      token: TOKEN,
      user: USER,
      title: 'PR #88 ready to merge',
      message: PR.message,
      priority: '0',
      timestamp: String(Date.parse('2026-11-30T12:00:00.000Z') / 1000),
      url: 'https://github.com/acme/radon/pull/88',
      url_title: 'PR #88',
    });
    expect(row(PR.key)).toMatchObject({ pushover_owed: null, pushover_error: null, pushover_receipt: null });
  });

  it('sends a quiet notice at Pushover priority −1 during quiet hours', async () => {
    t = new Date(2026, 10, 30, 23, 30);
    const { svc, sink } = setup({ quietHours: '22:00-07:00' });
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.messages[0]?.fields.priority).toBe('-1');
  });

  it('sends an emergency with retry and expire, keeps the receipt, and skips the service repeats Pushover does itself', async () => {
    const { svc, sink } = setup({ retry: 90_000, expire: 7_200_000 });
    svc.update([P0]);
    await settle(svc, sink);
    expect(server.messages[0]?.fields).toMatchObject({ priority: '2', retry: '90', expire: '7200' });
    const receipt = server.messages[0]?.receipt;
    expect(receipt).toBeTruthy();
    expect(row(P0.key)).toMatchObject({ pushover_receipt: receipt, pushover_receipt_state: 'open' });
    advance(90_000);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(1);
  });

  it('polls the receipt and acknowledges locally when acknowledged on the phone', async () => {
    const { svc, sink } = setup();
    svc.update([P0]);
    await settle(svc, sink);
    const receipt = server.messages[0]?.receipt ?? '';
    advance(30_000);
    await settle(svc, sink);
    expect(svc.list()[0]?.acknowledgedAt).toBeNull();
    server.acknowledge(receipt, new Date('2026-11-30T12:00:40.000Z'));
    advance(10_000);
    await svc.tick();
    expect(svc.list()[0]?.acknowledgedAt).toBe('2026-11-30T12:00:40.000Z');
    expect(row(P0.key)).toMatchObject({ pushover_receipt_state: 'acknowledged' });
  });

  it('cancels the emergency when acknowledged in Loopdeck, and stops polling an expired one', async () => {
    const { svc, sink } = setup();
    svc.update([P0, { ...P0, key: 'finding:reliability:R-124' }]);
    await settle(svc, sink);
    svc.acknowledge(P0.key, 'alice');
    await settle(svc, sink);
    const [r1, r2] = server.messages.map((m) => m.receipt ?? '');
    expect(server.receipts.get(r1 ?? '')?.cancelled).toBe(true);
    expect(row(P0.key)).toMatchObject({ pushover_receipt_state: 'cancelled' });
    server.expire(r2 ?? '');
    advance(10_000);
    await svc.tick();
    expect(row('finding:reliability:R-124')).toMatchObject({ pushover_receipt_state: 'expired', acknowledged_at: null });
  });

  it('keeps a send owed through an outage and sends it on a later tick', async () => {
    const { svc, sink, logs } = setup();
    server.failNext(503, 2);
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(0);
    expect(row(PR.key)).toMatchObject({ pushover_owed: 'alert', pushover_error: 'HTTP 503' });
    expect(logs.join('\n')).toContain(`Pushover send of notice ${PR.key} failed (HTTP 503)`);
    advance(15_000);
    await settle(svc, sink); // the second simulated 503
    // The wait doubles while Pushover keeps failing (the shared backoff): 15 s is not yet enough.
    advance(15_000);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(0);
    advance(15_000);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(1);
    expect(row(PR.key)).toMatchObject({ pushover_owed: null, pushover_error: null });
    // After a success a new outage starts again from the base wait.
    server.failNext(503, 1);
    svc.update([PR, { ...PR, key: 'pr:second', title: 'second' }]);
    await settle(svc, sink);
    expect(row('pr:second')).toMatchObject({ pushover_owed: 'alert', pushover_error: 'HTTP 503' });
    advance(15_000);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(2);
  });

  it('survives the network being down and a restart while a send is owed', async () => {
    const { svc, sink } = setup({}, { baseUrl: 'http://127.0.0.1:9' });
    svc.update([PR]);
    await settle(svc, sink);
    expect(row(PR.key)).toMatchObject({ pushover_owed: 'alert' });
    // Restarted with the right address: the owed send goes out, once.
    advance(60_000);
    const again = setup();
    await settle(again.svc, again.sink);
    await settle(again.svc, again.sink);
    expect(server.messages).toHaveLength(1);
  });

  it('records a 4xx refusal, names the config keys, and does not retry it', async () => {
    const { svc, sink, logs } = setup({}, { token: 'wrong-token' });
    svc.update([PR]);
    await settle(svc, sink);
    advance(60_000);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(0);
    expect(row(PR.key)).toMatchObject({ pushover_owed: null, pushover_error: 'rejected: application token is invalid' });
    expect(logs.filter((l) => l.includes('rejected')).join('\n')).toMatch(/HTTP 400.*notify\.pushover\.token/);
    expect(svc.list()).toHaveLength(1);
  });

  it('does nothing without a user and token', async () => {
    const sink = new PushoverSink({ store, notify: {}, now });
    expect(sink.enabled).toBe(false);
    const svc = new NoticeService({ store, notify: {}, now, sinks: [sink] });
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.messages).toHaveLength(0);
  });
});

describe('PushoverSink on a full data folder', () => {
  let disk: Tmpfs;
  let onDisk: Store;
  beforeEach(() => {
    disk = mountTmpfs(1024 * 1024);
    onDisk = Store.open(join(disk.dir, 'loopdeck.db'));
  });
  afterEach(() => {
    onDisk.close();
    disk.unmount();
  });

  it('sends an owed notice once although its row cannot say so, and records it once there is room', async () => {
    const logs: string[] = [];
    const notify: NotifyConfig = { pushover: { user: USER, token: TOKEN, baseUrl: server.url }, retry: 60_000, expire: 3_600_000 };
    const sink = new PushoverSink({ store: onDisk, notify, now, log: (m) => logs.push(m), pollMs: 10_000, backoffMs: 15_000, random: () => 0.5 });
    const svc = new NoticeService({ store: onDisk, notify, now, sinks: [sink], log: (m) => logs.push(m) });
    const stored = (): Record<string, unknown> => onDisk.sql.prepare('SELECT * FROM notices WHERE key = ?').get(PR.key) as Record<string, unknown>;
    // Pushover is down at first: the send stays owed.
    server.failNext(503);
    svc.update([PR]);
    await settle(svc, sink);
    expect(stored()).toMatchObject({ pushover_owed: 'alert' });
    const unfill = disk.fill();
    // Pushover answers now; the row cannot take its answer.
    for (let i = 0; i < 5; i++) {
      advance(30_000);
      await settle(svc, sink);
    }
    expect(server.messages).toHaveLength(1);
    expect(stored()).toMatchObject({ pushover_owed: 'alert' });
    expect(onDisk.space.problem()?.message).toMatch(/^data folder full: \d+ bytes free in /);
    expect(logs.filter((l) => /full/.test(l))).toEqual([]);
    unfill();
    advance(30_000);
    await settle(svc, sink);
    expect(stored()).toMatchObject({ pushover_owed: null, pushover_error: null });
    expect(server.messages).toHaveLength(1);
  });
});
