import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../../../testing/until';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../testing/webhook-receiver';
import { MIGRATIONS } from '../../engine/migrations';
import { Store } from '../../store/store';
import type { NoticeDraft } from '../notice-draft';
import { NoticeService } from '../notice-service';
import type { NotifyConfig } from '../notify-config';
import { WEBHOOKS_MIGRATION, type DeliveryRow } from './webhook-schema';
import { retryAfterMs, WebhookSink, type WebhookSinkOptions } from './webhook-sink';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ENV = { HOOK_SECRET: SECRET };

let receiver: WebhookReceiver;
let file: string;
let store: Store;
let logs: string[];

beforeEach(async () => {
  receiver = await startWebhookReceiver({ secret: SECRET });
  file = join(mkdtempSync(join(tmpdir(), 'ld-webhook-')), 'loopdeck.db');
  store = Store.open(file);
  logs = [];
});
afterEach(async () => {
  store.close();
  await receiver.close();
  expect(logs.join('\n')).not.toContain(SECRET.slice('whsec_'.length));
});

/** A notice service with the webhook sink, on the current store; the backoff in milliseconds so retries are quick. */
function start(over: Partial<WebhookSinkOptions> = {}) {
  const notify: NotifyConfig = { webhooks: [{ url: receiver.url, format: 'standard', secret: 'env:HOOK_SECRET' }] };
  const sink = new WebhookSink({ store, notify, env: ENV, log: (m) => logs.push(m), backoffMs: 20, backoffMaxMs: 80, random: () => 0.5, ...over });
  const svc = new NoticeService({ store, notify, sinks: [sink], log: (m) => logs.push(m) });
  /** Tick until `cond` holds (a tick retries what is owed once its backoff has passed). */
  const tickUntil = (cond: () => boolean, what: string) =>
    until(async () => {
      await svc.tick();
      return cond();
    }, 10_000, what);
  return { sink, svc, tickUntil };
}

/** Close the service's store and open it again, as a restart does. */
async function restart(sink: WebhookSink): Promise<void> {
  await sink.flush();
  store.close();
  store = Store.open(file);
}

const row = (key: string): DeliveryRow | undefined => store.sql.prepare('SELECT * FROM webhook_deliveries WHERE notice_key = ?').get(key) as DeliveryRow | undefined;
const delivered = (): number => receiver.received.filter((r) => r.status === 200).length;
const ids = (): string[] => receiver.received.map((r) => String(r.headers['webhook-id']));

const PR: NoticeDraft = { key: 'pr:https://github.com/acme/radon/pull/88:ready', priority: 0, source: 'loop:reliability', title: 'PR #88 ready to merge', message: '', url: null, urlTitle: null };
const PR2: NoticeDraft = { ...PR, key: 'pr:https://github.com/acme/radon/pull/89:ready', title: 'PR #89 ready to merge' };
const PR3: NoticeDraft = { ...PR, key: 'pr:https://github.com/acme/radon/pull/90:ready', title: 'PR #90 ready to merge' };

describe('WebhookSink retries', () => {
  it('retries a 500 with the same webhook-id until a 200, which ends it: delivered once', async () => {
    receiver.answer(500, 500);
    const { svc, sink, tickUntil } = start();
    svc.update([PR]);
    await tickUntil(() => row(PR.key)?.state === 'delivered', 'the notice delivered after two 500s');
    await sink.flush();
    expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(ids()).size).toBe(1);
    expect(receiver.received.every((r) => r.verified?.ok)).toBe(true);
    expect(row(PR.key)).toMatchObject({ state: 'delivered', attempts: 3 });
    expect(logs.filter((l) => l.includes('failed (HTTP 500)'))).toHaveLength(2);
    expect(logs.at(-1)).toBe('Webhook notify.webhooks.0 (' + new URL(receiver.url).host + ') answers again.');
    await svc.tick();
    await sink.flush();
    expect(receiver.received).toHaveLength(3);
  });

  it('keeps what is owed while the receiver is down and delivers it, in order, once it is up', async () => {
    await receiver.stop();
    const { svc, sink, tickUntil } = start();
    svc.update([PR]);
    svc.update([PR2]);
    await tickUntil(() => (row(PR.key)?.attempts ?? 0) >= 3, 'three refused connections');
    expect(row(PR.key)).toMatchObject({ state: 'pending' });
    expect(row(PR.key)?.last_error).toMatch(/fetch failed/);
    // Head of line: nothing after the failing notice is tried meanwhile.
    expect(row(PR2.key)?.attempts).toBe(0);
    await receiver.start();
    await tickUntil(() => row(PR2.key)?.state === 'delivered', 'both delivered once the receiver is up');
    await sink.flush();
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { data: { key: string } }).data.key)).toEqual([PR.key, PR2.key]);
  });

  it('does not retry a 400: it is recorded as rejected, logged with the host, and the next notice goes on', async () => {
    receiver.answer(400);
    const { svc, sink, tickUntil } = start();
    svc.update([PR]);
    await until(() => row(PR.key)?.state === 'rejected', 5000, 'the notice rejected');
    for (let i = 0; i < 3; i++) await svc.tick();
    await sink.flush();
    expect(receiver.received).toHaveLength(1);
    expect(row(PR.key)).toMatchObject({ attempts: 1, last_error: 'HTTP 400' });
    expect(logs).toEqual([expect.stringMatching(new RegExp(`^Webhook notify\\.webhooks\\.0 \\(127\\.0\\.0\\.1:\\d+\\) refused notice ${PR.key.replace(/[.:/]/g, '\\$&')} with HTTP 400; not retried`))]);
    expect(logs[0]).not.toContain('/hooks/loopdeck');
    svc.update([PR2]);
    await tickUntil(() => row(PR2.key)?.state === 'delivered', 'the next notice delivered');
  });

  it('retries a 429 and a 408 (the receiver asks to slow down, or timed out)', async () => {
    receiver.answer(429, 408);
    const { svc, tickUntil } = start();
    svc.update([PR]);
    await tickUntil(() => row(PR.key)?.state === 'delivered', 'delivered after 429 and 408');
    expect(receiver.received.map((r) => r.status)).toEqual([429, 408, 200]);
  });

  it("waits the receiver's Retry-After on a 429, within the backoff's bound", async () => {
    receiver.answerWith(429, { 'retry-after': '1' });
    const { svc, tickUntil } = start({ backoffMaxMs: 5000 });
    svc.update([PR]);
    await tickUntil(() => row(PR.key)?.state === 'delivered', 'delivered after the Retry-After');
    const [first, second] = receiver.received;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs('Wed, 02 Dec 2026 06:00:30 GMT', Date.parse('2026-12-02T06:00:00Z'))).toBe(30_000);
    expect(retryAfterMs('soon', 0)).toBeNull();
  });

  it('does not follow a redirect nor retry it (a 302 is refused like a 4xx)', async () => {
    receiver.answerWith(302, { location: 'http://example.com/elsewhere' });
    const { svc, sink } = start();
    svc.update([PR]);
    await until(() => row(PR.key)?.state === 'rejected', 5000, 'the notice rejected');
    await svc.tick();
    await sink.flush();
    expect(receiver.received).toHaveLength(1);
    expect(row(PR.key)?.last_error).toBe('HTTP 302');
  });

  it('bounds the queue: past maxQueue owed notices the oldest are dropped, and said', async () => {
    await receiver.stop();
    const { svc, sink, tickUntil } = start({ maxQueue: 2 });
    svc.update([PR, PR2, PR3]);
    await sink.flush();
    expect([PR, PR2, PR3].map((d) => row(d.key)?.state)).toEqual(['dropped', 'pending', 'pending']);
    expect(logs.some((l) => l.includes('more than 2 notices owed; the 1 oldest were dropped'))).toBe(true);
    await receiver.start();
    await tickUntil(() => row(PR3.key)?.state === 'delivered' && row(PR2.key)?.state === 'delivered', 'the two kept delivered');
    expect(receiver.received.filter((r) => r.status === 200)).toHaveLength(2);
  });

  it('gives up a delivery still failing past giveUpMs', async () => {
    await receiver.stop();
    const { svc, tickUntil } = start({ giveUpMs: 150 });
    svc.update([PR]);
    await tickUntil(() => row(PR.key)?.state === 'expired', 'the delivery given up');
    expect(logs.at(-1)).toMatch(/gave up notice pr:.* after \d+ attempts \(last: fetch failed/);
  });
});

describe('WebhookSink across restarts (a real SQLite file)', () => {
  it('retries after a restart what was owed, with the same webhook-id, and never resends what was delivered', async () => {
    receiver.answer(500);
    let s = start();
    s.svc.update([PR]);
    await until(() => row(PR.key)?.last_error === 'HTTP 500', 5000, 'the first attempt failed');
    await restart(s.sink);
    s = start();
    await s.tickUntil(() => row(PR.key)?.state === 'delivered', 'delivered after the restart');
    expect(receiver.received.map((r) => r.status)).toEqual([500, 200]);
    expect(new Set(ids()).size).toBe(1);
    // Another restart: the delivered notice is not posted again.
    await restart(s.sink);
    s = start();
    for (let i = 0; i < 3; i++) await s.svc.tick();
    await s.sink.flush();
    expect(delivered()).toBe(1);
  });

  it('sends again, with the id the receiver saw, a notice whose 2xx was not recorded (a crash mid-send): the receiver dedupes', async () => {
    let s = start();
    s.svc.update([PR]);
    await until(() => row(PR.key)?.state === 'delivered', 5000, 'delivered');
    // The crash: the receiver took it, the 2xx never reached the row.
    store.sql.prepare("UPDATE webhook_deliveries SET state = 'pending'").run();
    await restart(s.sink);
    s = start();
    await s.tickUntil(() => row(PR.key)?.state === 'delivered', 'delivered again');
    expect(receiver.received).toHaveLength(2);
    expect(ids()[0]).toBe(ids()[1]);
  });

  it('catches up a notice sent by the service but not recorded for the webhook (a crash between the two writes)', async () => {
    let s = start();
    s.svc.update([PR]);
    await until(() => row(PR.key)?.state === 'delivered', 5000, 'the first delivered');
    await restart(s.sink);
    // What a crash right after the service recorded the send leaves: a sent notice, no delivery row.
    store.sql
      .prepare("INSERT INTO notices (key, priority, source, title, message, created_at, sends, last_sent_at, seeded) VALUES (?, 0, 'loop:reliability', 'PR #89 ready to merge', '', ?, 1, ?, 0)")
      .run(PR2.key, new Date().toISOString(), new Date().toISOString());
    s = start();
    await s.tickUntil(() => row(PR2.key)?.state === 'delivered', 'the unrecorded notice delivered');
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { data: { key: string } }).data.key)).toEqual([PR.key, PR2.key]);
  });

  it('does not post to a webhook added to the config the notices raised before it', async () => {
    const svc = new NoticeService({ store, notify: {}, sinks: [] });
    svc.update([PR]);
    const s = start();
    await s.svc.tick();
    s.svc.update([PR2]);
    await s.tickUntil(() => row(PR2.key)?.state === 'delivered', 'the new notice delivered');
    expect(row(PR.key)).toBeUndefined();
    expect(receiver.received).toHaveLength(1);
  });

  it('upgrades a schema-13 database with its notices to one with webhook_deliveries', () => {
    store.close();
    const old = join(mkdtempSync(join(tmpdir(), 'ld-webhook-')), 'loopdeck.db');
    Store.open(old, { migrateTo: MIGRATIONS.indexOf(WEBHOOKS_MIGRATION) }).close();
    const raw = new Database(old);
    raw.prepare("INSERT INTO notices (key, priority, source, title, message, created_at) VALUES ('k', 0, 's', 't', '', '2026-11-30T00:00:00.000Z')").run();
    raw.close();
    store = Store.open(old);
    expect(store.version).toBe(MIGRATIONS.length);
    expect(store.sql.prepare('SELECT COUNT(*) FROM webhook_deliveries').pluck().get()).toBe(0);
    expect(store.sql.prepare('SELECT key FROM notices').pluck().all()).toEqual(['k']);
  });
});
