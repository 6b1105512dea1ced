import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/load-config';
import { Store } from '../../store/store';
import type { NoticeDraft } from '../notice-draft';
import { NoticeService } from '../notice-service';
import { Notifier } from '../notifier';
import type { NotifyConfig } from '../notify-config';
import { NtfySink, ntfyPriority } from './ntfy-sink';
import { startNtfyServer, type NtfyServer } from '../../../../testing/ntfy-server';
import { P0_DRAFT, PR_READY_DRAFT } from '../../../../testing/notice-fixtures';
import { mountTmpfs, type Tmpfs } from '../../../../testing/tmpfs';

const TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';

let server: NtfyServer;
let store: Store;
let t: Date;
const now = (): Date => t;
const advance = (ms: number): void => void (t = new Date(t.getTime() + ms));

beforeEach(async () => {
  t = new Date('2026-11-30T12:00:00.000Z');
  server = await startNtfyServer({ token: TOKEN });
  store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-ntfy-')), 'loopdeck.db'));
});
afterEach(async () => {
  store.close();
  await server.close();
});

type NtfyConfig = NonNullable<NotifyConfig['ntfy']>;

function setup(over: Partial<NotifyConfig> = {}, ntfy: Partial<NtfyConfig> = {}, env: NodeJS.ProcessEnv = { NTFY_TOKEN: TOKEN }) {
  const logs: string[] = [];
  const notify: NotifyConfig = { ntfy: { url: server.url, topic: 'loopdeck', token: 'env:NTFY_TOKEN', ...ntfy }, retry: 60_000, expire: 3_600_000, ...over };
  const sink = new NtfySink({ store, notify, now, env, log: (m) => logs.push(m), backoffMs: 15_000, random: () => 0.5 });
  const svc = new NoticeService({ store, notify, now, sinks: [sink], log: (m) => logs.push(m) });
  return { sink, svc, logs };
}

/** Let the sink's requests in flight finish, then tick once. */
async function settle(svc: NoticeService, sink: NtfySink): Promise<void> {
  await sink.flush();
  await svc.tick();
  await sink.flush();
}

function row(key: string): Record<string, unknown> {
  return store.sql.prepare('SELECT * FROM notices WHERE key = ?').get(key) as Record<string, unknown>;
}

const PR = PR_READY_DRAFT;
const P0 = P0_DRAFT;
const draft = (priority: NoticeDraft['priority'], title: string): NoticeDraft => ({ ...PR, key: `test:${title}`, priority, title });
const byTitle = (): Record<string, unknown> => Object.fromEntries(server.published.map((p) => [p.json.title, p.json.priority]));

describe('NtfySink against the local ntfy server', () => {
  it('publishes the JSON ntfy expects to the root URL, with the bearer token, the click link and a view button', async () => {
    const { svc, sink } = setup();
    svc.update([P0, PR]);
    await settle(svc, sink);
    expect(server.published).toHaveLength(2);
    const [p0, pr] = server.published;
    expect(p0?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(p0?.headers['content-type']).toBe('application/json');
    expect(p0?.json).toEqual({
      topic: 'loopdeck',
      title: 'P0 R-123 (reliability)',
      message: 'ib_execute places an order without check_order_limits',
      priority: 5,
      tags: ['rotating_light'],
      click: 'http://127.0.0.1:7777/#/findings/R-123',
      actions: [{ action: 'view', label: 'R-123 in Loopdeck', url: 'http://127.0.0.1:7777/#/findings/R-123' }],
    });
    expect(pr?.json).toEqual({
      topic: 'loopdeck',
      title: 'PR #88 ready to merge',
      message: PR.message,
      priority: 3,
      click: 'https://github.com/acme/radon/pull/88',
      actions: [{ action: 'view', label: 'PR #88', url: 'https://github.com/acme/radon/pull/88' }],
    });
    expect(row(P0.key)).toMatchObject({ ntfy_owed: null, ntfy_error: null });
  });

  it("maps Loopdeck's priorities to ntfy's (−1 → 2, 0 → 3, 1 → 4, 2 → 5) and never sends −2", async () => {
    expect([-2, -1, 0, 1, 2].map(ntfyPriority)).toEqual([1, 2, 3, 4, 5]);
    const { svc, sink } = setup();
    svc.update([draft(-2, 'list only'), draft(-1, 'quiet'), draft(0, 'normal'), draft(1, 'high'), draft(2, 'emergency')]);
    await settle(svc, sink);
    expect(byTitle()).toEqual({ quiet: 2, normal: 3, high: 4, emergency: 5 });
    expect(row('test:list only')).toMatchObject({ ntfy_owed: null });
  });

  it("lowers priority ≤ 0 to ntfy's low priority during quiet hours; 1 and up still alert", async () => {
    t = new Date(2026, 10, 30, 23, 30);
    const { svc, sink } = setup({ quietHours: '22:00-07:00' });
    svc.update([draft(0, 'normal'), draft(1, 'high'), draft(2, 'emergency')]);
    await settle(svc, sink);
    expect(byTitle()).toEqual({ normal: 2, high: 4, emergency: 5 });
  });

  it('publishes an emergency again at each of the service repeats until it is acknowledged in Loopdeck', async () => {
    const { svc, sink } = setup({ retry: 90_000 });
    svc.update([P0]);
    await settle(svc, sink);
    advance(90_000);
    await settle(svc, sink);
    expect(server.published.map((p) => p.json.priority)).toEqual([5, 5]);
    svc.acknowledge(P0.key, 'alice');
    advance(90_000);
    await settle(svc, sink);
    expect(server.published).toHaveLength(2);
  });

  it('keeps a send owed through a failing server (500) and retries it with the backoff, as the Pushover sink does', async () => {
    const { svc, sink, logs } = setup();
    server.failNext(500, 2);
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.published).toHaveLength(0);
    expect(row(PR.key)).toMatchObject({ ntfy_owed: 'alert', ntfy_error: 'HTTP 500' });
    expect(logs.join('\n')).toContain(`ntfy send of notice ${PR.key} to ${new URL(server.url).host} failed (HTTP 500); it stays owed and is retried.`);
    advance(15_000);
    await settle(svc, sink); // the second 500
    expect(server.requests).toBe(2);
    // The wait doubles while ntfy keeps failing (the shared backoff): 15 s is not yet enough.
    advance(15_000);
    await settle(svc, sink);
    expect(server.requests).toBe(2);
    advance(15_000);
    await settle(svc, sink);
    expect(server.published).toHaveLength(1);
    expect(row(PR.key)).toMatchObject({ ntfy_owed: null, ntfy_error: null });
    // After a success a new outage starts again from the base wait.
    server.failNext(500, 1);
    svc.update([{ ...PR, key: 'pr:second', title: 'second' }]);
    await settle(svc, sink);
    expect(row('pr:second')).toMatchObject({ ntfy_owed: 'alert', ntfy_error: 'HTTP 500' });
    advance(15_000);
    await settle(svc, sink);
    expect(server.published).toHaveLength(2);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('survives the network being down and a restart while a send is owed, and sends it once', async () => {
    const { svc, sink } = setup({}, { url: 'http://127.0.0.1:9' });
    svc.update([PR]);
    await settle(svc, sink);
    expect(row(PR.key)).toMatchObject({ ntfy_owed: 'alert' });
    advance(60_000);
    const again = setup();
    await settle(again.svc, again.sink);
    await settle(again.svc, again.sink);
    expect(server.published).toHaveLength(1);
  });

  it("records a refusal (a wrong token: 401) with ntfy's error, names the config keys but never the token, and does not retry it", async () => {
    const { svc, sink, logs } = setup({}, {}, { NTFY_TOKEN: 'tk_wrongwrongwrongwrongwrongwro' });
    svc.update([PR, P0]);
    await settle(svc, sink);
    advance(60_000);
    await settle(svc, sink);
    // Neither the owed send nor the emergency's repeat goes out again.
    expect(server.requests).toBe(2);
    expect(server.published).toHaveLength(0);
    expect(row(PR.key)).toMatchObject({ ntfy_owed: null, ntfy_error: 'rejected: HTTP 401: unauthorized' });
    const said = logs.join('\n');
    expect(said).toMatch(/ntfy at 127\.0\.0\.1:\d+ refused notice .*HTTP 401: unauthorized.*notify\.ntfy\.token/);
    expect(said).not.toContain('tk_wrong');
  });

  it('sends no Authorization header without a token (a public topic), and a protected topic refuses that (403)', async () => {
    const open = await startNtfyServer();
    try {
      const { svc, sink } = setup({}, { url: open.url, token: undefined });
      svc.update([PR]);
      await settle(svc, sink);
      expect(open.published).toHaveLength(1);
      expect(open.published[0]?.headers.authorization).toBeUndefined();
      const refused = setup({}, { token: undefined });
      refused.svc.update([{ ...PR, key: 'pr:protected' }]);
      await settle(refused.svc, refused.sink);
      expect(row('pr:protected')).toMatchObject({ ntfy_owed: null, ntfy_error: 'rejected: HTTP 403: forbidden' });
    } finally {
      await open.close();
    }
  });

  it('drops an owed send once the notice is acknowledged', async () => {
    const { svc, sink } = setup();
    server.failNext(503);
    svc.update([PR]);
    await settle(svc, sink);
    svc.acknowledge(PR.key, 'alice');
    advance(60_000);
    await settle(svc, sink);
    expect(server.published).toHaveLength(0);
    expect(row(PR.key)).toMatchObject({ ntfy_owed: null });
  });

  it('keeps title, message and link within bounds: cut with an ellipsis, a long or non-http link left out', async () => {
    const { svc, sink } = setup();
    const long: NoticeDraft = { ...PR, key: 'pr:long', title: 'T'.repeat(300), message: '€'.repeat(3000), url: `https://github.com/acme/radon/pull/88?${'x'.repeat(600)}` };
    const script: NoticeDraft = { ...PR, key: 'pr:script', title: 'script', url: 'javascript:alert(1)' };
    svc.update([long, script]);
    await settle(svc, sink);
    expect(server.published).toHaveLength(2);
    const [a, b] = server.published.map((p) => p.json);
    expect(a?.title).toBe(`${'T'.repeat(99)}…`);
    expect(a?.message).toBe(`${'€'.repeat(1023)}…`);
    expect(Buffer.byteLength(String(a?.message))).toBeLessThanOrEqual(4096);
    expect(a).not.toHaveProperty('click');
    expect(a).not.toHaveProperty('actions');
    expect(b).not.toHaveProperty('click');
  });

  it('does nothing without notify.ntfy', async () => {
    const sink = new NtfySink({ store, notify: {}, now });
    expect(sink.enabled).toBe(false);
    const svc = new NoticeService({ store, notify: {}, now, sinks: [sink] });
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.requests).toBe(0);
  });
});

describe('NtfySink on a full data folder', () => {
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

  it('publishes an owed notice once although its row cannot say so, and records it once there is room', async () => {
    const logs: string[] = [];
    const notify: NotifyConfig = { ntfy: { url: server.url, topic: 'loopdeck', token: 'env:NTFY_TOKEN' } };
    const sink = new NtfySink({ store: onDisk, notify, now, env: { NTFY_TOKEN: TOKEN }, log: (m) => logs.push(m), backoffMs: 15_000, random: () => 0.5 });
    const svc = new NoticeService({ store: onDisk, notify, now, sinks: [sink], log: (m) => logs.push(m) });
    const stored = (): Record<string, unknown> => onDisk.sql.prepare('SELECT * FROM notices WHERE key = ?').get(PR.key) as Record<string, unknown>;
    server.failNext(503);
    svc.update([PR]);
    await settle(svc, sink);
    expect(stored()).toMatchObject({ ntfy_owed: 'alert' });
    const unfill = disk.fill();
    for (let i = 0; i < 5; i++) {
      advance(30_000);
      await settle(svc, sink);
    }
    expect(server.published).toHaveLength(1);
    expect(stored()).toMatchObject({ ntfy_owed: 'alert' });
    expect(logs.filter((l) => /full/.test(l))).toEqual([]);
    unfill();
    advance(30_000);
    await settle(svc, sink);
    expect(stored()).toMatchObject({ ntfy_owed: null, ntfy_error: null });
    expect(server.published).toHaveLength(1);
  });
});

describe('notify.ntfy.token from the environment', () => {
  it('leaves ntfy out while the variable is unset, saying so as a config problem naming the key and the variable', async () => {
    const { svc, sink } = setup({}, {}, {});
    expect(sink.enabled).toBe(false);
    const problem = {
      source: 'notify.ntfy.token',
      line: null,
      message: expect.stringMatching(/^notify\.ntfy\.token is "env:NTFY_TOKEN", but the environment variable NTFY_TOKEN is not set .*; nothing is sent to ntfy until then\.$/) as unknown,
    };
    expect(sink.problems()).toEqual([problem]);
    svc.update([PR]);
    await settle(svc, sink);
    expect(server.requests).toBe(0);
    const notify: NotifyConfig = { ntfy: { url: server.url, topic: 'loopdeck', token: 'env:NTFY_TOKEN' } };
    const notifier = new Notifier({ store, notify, now, emit: () => undefined, reviewed: () => ({ lastReviewedAt: null, lastReviewedBy: null }), env: {} });
    expect(notifier.problems()).toEqual([problem]);
  });
});

describe('notify.ntfy in the config', () => {
  const ntfy = (body: string): string => `notify:\n  ntfy: ${body}\n`;

  it('takes url, topic and an optional token from the environment', () => {
    expect(parseConfig('/c.yaml', ntfy('{ url: "https://ntfy.example.com", topic: loopdeck, token: "env:NTFY_TOKEN" }')).notify.ntfy).toEqual({
      url: 'https://ntfy.example.com',
      topic: 'loopdeck',
      token: 'env:NTFY_TOKEN',
    });
    expect(parseConfig('/c.yaml', ntfy('{ url: "http://127.0.0.1:2586/", topic: ops_alerts-1 }')).notify.ntfy).toEqual({ url: 'http://127.0.0.1:2586/', topic: 'ops_alerts-1' });
  });

  it('refuses, naming the key and the line: plain http off loopback, a topic URL, credentials in the URL, a bad topic, a token not from the environment', () => {
    const cases: [string, RegExp][] = [
      ['{ url: "http://ntfy.example.com", topic: loopdeck }', /\/c\.yaml:2: notify\.ntfy\.url: expected an https:\/\/ URL \(plain http:\/\/ only on loopback.*the token and the notices would cross the network in clear/],
      ['{ url: "ntfy.example.com", topic: loopdeck }', /notify\.ntfy\.url: expected the ntfy server's URL such as "https:\/\/ntfy\.sh"/],
      ['{ url: "https://ntfy.sh/loopdeck", topic: loopdeck }', /notify\.ntfy\.url: expected the server's root URL, not the topic's: url: "https:\/\/ntfy\.sh" and topic: "loopdeck"/],
      ['{ url: "https://example.com/ntfy/loopdeck/", topic: loopdeck }', /notify\.ntfy\.url: expected the server's root URL, not the topic's: url: "https:\/\/example\.com\/ntfy" and topic/],
      ['{ url: "https://ops:hunter2@ntfy.example.com", topic: loopdeck }', /notify\.ntfy\.url: expected no user or password in the URL/],
      ['{ url: "https://ntfy.example.com/?auth=x", topic: loopdeck }', /notify\.ntfy\.url: expected no query or fragment in the URL/],
      ['{ url: "https://ntfy.sh", topic: "my topic" }', /notify\.ntfy\.topic: expected a topic of 1 to 64 letters, digits, "-" or "_"/],
      ['{ url: "https://ntfy.sh", topic: loopdeck, token: tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2 }', /notify\.ntfy\.token: expected "env:NAME" .*never written in the config/],
      ['{ url: "https://ntfy.sh", topic: loopdeck, token: "env:1BAD" }', /notify\.ntfy\.token: expected "env:NAME"/],
      ['{ url: "https://ntfy.sh" }', /notify\.ntfy\.topic: /],
      ['{ url: "https://ntfy.sh", topic: loopdeck, priority: 5 }', /notify\.ntfy: Unrecognized key: "priority"/],
    ];
    for (const [yaml, message] of cases) {
      let said = '';
      try {
        parseConfig('/c.yaml', ntfy(yaml));
      } catch (err) {
        said = String(err);
      }
      expect(said).toMatch(message);
      expect(said).not.toContain('hunter2');
      expect(said).not.toContain('tk_AgQdq7');
    }
  });
});
