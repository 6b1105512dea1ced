import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../../../testing/until';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../testing/webhook-receiver';
import { Store } from '../../store/store';
import { alertLabels } from './alertmanager-alert';
import type { NoticeDraft } from '../notice-draft';
import { NoticeService } from '../notice-service';
import type { NotifyConfig } from '../notify-config';
import { fingerprint } from './webhook-payload';
import { WebhookSink } from './webhook-sink';
import type { WebhookFormat } from './webhook-target';
import { P0_DRAFT, PR_READY_DRAFT } from '../../../../testing/notice-fixtures';

/** A Standard Webhooks secret, as `openssl rand -base64 32` after `whsec_`. */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ENV = { LOOPDECK_WEBHOOK_SECRET: SECRET };

let receiver: WebhookReceiver;
let store: Store;
let logs: string[];

beforeEach(() => {
  store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-webhook-')), 'loopdeck.db'));
  logs = [];
});
afterEach(async () => {
  store.close();
  await receiver.close();
  // Whatever went wrong, the secret is in no message.
  expect(logs.join('\n')).not.toContain(SECRET.slice('whsec_'.length));
});

// The real clock: the reference verifier refuses a timestamp more than 5 minutes from now.
function setup(format: WebhookFormat, over: { secret?: string; env?: NodeJS.ProcessEnv; consoleUrl?: string } = {}) {
  const notify: NotifyConfig = { webhooks: [{ url: receiver.url, format, secret: over.secret ?? 'env:LOOPDECK_WEBHOOK_SECRET' }] };
  const sink = new WebhookSink({ store, notify, env: over.env ?? ENV, log: (m) => logs.push(m), hostname: 'ops-mac', consoleUrl: () => over.consoleUrl, backoffMs: 20, backoffMaxMs: 80, random: () => 0.5 });
  const svc = new NoticeService({ store, notify, sinks: [sink], log: (m) => logs.push(m) });
  return { sink, svc };
}

const PR = PR_READY_DRAFT;
const P0 = P0_DRAFT;
const DOWN: NoticeDraft = { key: 'host-down:crossbar/gpu-2:2026-11-30T03:00:00.000Z', priority: 1, source: 'proxy:crossbar', title: 'gpu-2 is down', message: 'crossbar reports gpu-2 unreachable since 03:00.', url: null, urlTitle: null };
const UP: NoticeDraft = { ...DOWN, key: 'host-recovered:crossbar/gpu-2:2026-11-30T03:00:00.000Z', priority: 0, title: 'gpu-2 is back', message: 'crossbar reaches gpu-2 again.', requires: DOWN.key };

function state(key: string): string | undefined {
  return (store.sql.prepare('SELECT state FROM webhook_deliveries WHERE notice_key = ?').get(key) as { state: string } | undefined)?.state;
}

describe('WebhookSink, format standard, against a receiver verifying with the standardwebhooks library', () => {
  it('posts each notice once, signed; the reference verifier accepts it and reads the body', async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    const { svc, sink } = setup('standard');
    svc.update([PR]);
    await until(() => state(PR.key) === 'delivered', 5000, 'the PR notice delivered');
    await sink.flush();
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0];
    expect(got?.verified).toMatchObject({ ok: true });
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
    const notice = svc.list()[0];
    expect(JSON.parse(got?.body ?? '')).toEqual({ type: 'loopdeck.prs-ready', timestamp: notice?.createdAt, data: notice });
    // Delivered: later ticks post nothing more.
    await svc.tick();
    await sink.flush();
    expect(receiver.received).toHaveLength(1);
  });

  it('signs with a secret written without the whsec_ prefix (the base64 alone), as the spec libraries accept', async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    const { svc } = setup('standard', { env: { LOOPDECK_WEBHOOK_SECRET: SECRET.slice('whsec_'.length) } });
    svc.update([P0]);
    await until(() => receiver.received.length === 1, 5000, 'one post');
    expect(receiver.received[0]?.verified).toMatchObject({ ok: true, payload: { type: 'loopdeck.finding-p0' } });
  });

  it('fails verification with the wrong secret: the receiver can tell a forged body', async () => {
    receiver = await startWebhookReceiver({ secret: `whsec_${randomBytes(32).toString('base64')}` });
    const { svc } = setup('standard');
    svc.update([PR]);
    await until(() => receiver.received.length === 1, 5000, 'one post');
    expect(receiver.received[0]?.verified).toEqual({ ok: false, error: 'No matching signature found' });
  });
});

describe('WebhookSink, format cloudevents, read with the CloudEvents SDK', () => {
  it('posts a structured CloudEvent 1.0 the SDK accepts, signed with the Standard Webhooks headers', async () => {
    receiver = await startWebhookReceiver({ secret: SECRET, cloudEvents: true });
    const { svc } = setup('cloudevents');
    svc.update([P0]);
    await until(() => receiver.received.length === 1, 5000, 'one post');
    const got = receiver.received[0];
    expect(got?.headers['content-type']).toBe('application/cloudevents+json');
    expect(got?.verified).toMatchObject({ ok: true });
    expect(got?.cloudEvent?.ok).toBe(true);
    const event = got?.cloudEvent?.ok ? got.cloudEvent.event : null;
    expect(event?.validate()).toBe(true);
    expect(event).toMatchObject({
      specversion: '1.0',
      id: got?.headers['webhook-id'],
      source: 'loopdeck://ops-mac',
      type: 'dev.loopdeck.finding-p0',
      subject: P0.key,
      datacontenttype: 'application/json',
      time: svc.list()[0]?.createdAt,
      data: { key: P0.key, priority: 2, title: P0.title },
    });
  });

  it("takes the console's URL as the source when serve mode knows it; unsigned without a secret", async () => {
    receiver = await startWebhookReceiver({ cloudEvents: true });
    const notify: NotifyConfig = { webhooks: [{ url: receiver.url, format: 'cloudevents' }] };
    const sink = new WebhookSink({ store, notify, env: {}, log: (m) => logs.push(m), consoleUrl: () => 'http://127.0.0.1:7777/' });
    const svc = new NoticeService({ store, notify, sinks: [sink] });
    svc.update([PR]);
    await until(() => receiver.received.length === 1, 5000, 'one post');
    const got = receiver.received[0];
    expect(got?.cloudEvent).toMatchObject({ ok: true, event: { source: 'http://127.0.0.1:7777/', type: 'dev.loopdeck.prs-ready' } });
    expect(got?.headers['webhook-signature']).toBeUndefined();
    expect(got?.headers['webhook-id']).toMatch(/^msg_/);
  });
});

describe('WebhookSink, format alertmanager', () => {
  it("posts Alertmanager's webhook receiver payload: a firing alert, and a host's recovery as its outage resolved", async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    const { svc, sink } = setup('alertmanager', { consoleUrl: 'http://127.0.0.1:7777/' });
    svc.update([DOWN]);
    await until(() => receiver.received.length === 1, 5000, 'the outage posted');
    svc.update([UP]);
    await until(() => receiver.received.length === 2, 5000, 'the recovery posted');
    await sink.flush();
    const [down, up] = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    const labels = alertLabels({ key: DOWN.key, priority: 1, source: DOWN.source }, { loopHost: () => undefined, drillHost: () => undefined });
    expect(labels).toMatchObject({ alertname: 'host-down', proxy: 'crossbar', host: 'gpu-2' });
    const downAt = svc.list().find((n) => n.key === DOWN.key)?.createdAt;
    expect(down).toEqual({
      version: '4',
      groupKey: '{}:{alertname="host-down"}',
      truncatedAlerts: 0,
      status: 'firing',
      receiver: 'loopdeck',
      groupLabels: { alertname: 'host-down' },
      commonLabels: labels,
      commonAnnotations: { title: DOWN.title, summary: DOWN.title, text: DOWN.message, description: DOWN.message },
      externalURL: 'http://127.0.0.1:7777/',
      alerts: [
        {
          status: 'firing',
          labels,
          annotations: { title: DOWN.title, summary: DOWN.title, text: DOWN.message, description: DOWN.message },
          startsAt: downAt,
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: 'http://127.0.0.1:7777/',
          fingerprint: fingerprint(labels),
        },
      ],
    });
    expect(up).toMatchObject({ status: 'resolved', alerts: [{ status: 'resolved', labels, startsAt: downAt, fingerprint: fingerprint(labels) }] });
    expect(receiver.received.every((r) => r.verified?.ok)).toBe(true);
  });

  it("computes the fingerprint as Prometheus' model does (FNV-1a 64 over sorted names and values)", () => {
    expect(fingerprint({})).toBe('cbf29ce484222325');
    // prometheus/common model/signature_test.go: LabelsToSignature of this set is 5799056148416392346.
    expect(fingerprint({ name: 'garland, briggs', fear: 'love is not enough' })).toBe((5799056148416392346n).toString(16));
  });
});
