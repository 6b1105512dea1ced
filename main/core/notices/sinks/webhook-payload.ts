import { createHmac } from 'node:crypto';
import type { Notice } from '../../../../shared/domain';
import { alertAnnotations, generatorUrl, ruleOfKey } from './alertmanager-alert';
import type { WebhookFormat } from './webhook-target';

/** What a body needs besides the notice. */
export interface PayloadContext {
  /** The webhook-id, which is also the CloudEvents `id`. */
  readonly messageId: string;
  /** CloudEvents `source`: the console's URL, or `loopdeck://<hostname>`. */
  readonly source: string;
  /** The console's URL, Alertmanager's `externalURL` (the source when unknown). */
  readonly consoleUrl: string | undefined;
  /** The alert's labels (alertmanager-alert.ts alertLabels), for the `alertmanager` format. */
  readonly labels: Readonly<Record<string, string>>;
  /** For a host's recovery: the outage it ends, posted as that alert resolved. */
  readonly resolves?: { readonly labels: Readonly<Record<string, string>>; readonly startsAt: string; readonly annotations: Readonly<Record<string, string>> };
}

/** A body ready to post. */
export interface Payload {
  readonly contentType: string;
  readonly body: string;
}

/** The event's name after the prefix: the rule that raised the notice (`phase-failed`), `notice` for a key no rule builds. */
export function eventName(n: Pick<Notice, 'key'>): string {
  return ruleOfKey(n.key) ?? 'notice';
}

/** What Alertmanager puts as `endsAt` of an alert still firing (Go's zero time). */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * Alertmanager's fingerprint of a label set (prometheus/common model.LabelSet.Fingerprint): FNV-1a
 * 64 over the names in order, each name and value followed by the byte 0xff, as 16 hex digits.
 */
export function fingerprint(labels: Readonly<Record<string, string>>): string {
  const prime = 0x100000001b3n;
  let h = 0xcbf29ce484222325n;
  const add = (bytes: Uint8Array): void => {
    for (const b of bytes) h = ((h ^ BigInt(b)) * prime) & 0xffffffffffffffffn;
  };
  const sep = Uint8Array.of(0xff);
  for (const name of Object.keys(labels).sort()) {
    add(Buffer.from(name, 'utf8'));
    add(sep);
    add(Buffer.from(labels[name] ?? '', 'utf8'));
    add(sep);
  }
  return h.toString(16).padStart(16, '0');
}

/** `{}:{alertname="x"}`, the shape of Alertmanager's groupKey for a route grouping by alertname. */
function groupKey(labels: Readonly<Record<string, string>>): string {
  return `{}:{alertname=${JSON.stringify(labels.alertname ?? '')}}`;
}

function alertmanagerBody(n: Notice, ctx: PayloadContext): Record<string, unknown> {
  const gen = generatorUrl(n.url);
  const resolved = ctx.resolves;
  const labels = resolved?.labels ?? ctx.labels;
  const annotations = resolved ? { ...resolved.annotations, resolution: n.title } : alertAnnotations(n);
  const alert = {
    status: resolved ? 'resolved' : 'firing',
    labels,
    annotations,
    startsAt: resolved?.startsAt ?? n.createdAt,
    endsAt: resolved ? n.createdAt : GO_ZERO_TIME,
    generatorURL: gen ?? ctx.consoleUrl ?? '',
    fingerprint: fingerprint(labels),
  };
  return {
    version: '4',
    groupKey: groupKey(labels),
    truncatedAlerts: 0,
    status: alert.status,
    receiver: 'loopdeck',
    groupLabels: { alertname: labels.alertname ?? '' },
    // One alert a post: its labels and annotations are the common ones.
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: ctx.consoleUrl ?? ctx.source,
    alerts: [alert],
  };
}

/** The body of a notice in a webhook's format (one notice a post). */
export function webhookPayload(n: Notice, format: WebhookFormat, ctx: PayloadContext): Payload {
  const name = eventName(n);
  switch (format) {
    case 'standard':
      return { contentType: 'application/json', body: JSON.stringify({ type: `loopdeck.${name}`, timestamp: n.createdAt, data: n }) };
    case 'cloudevents':
      return {
        contentType: 'application/cloudevents+json',
        body: JSON.stringify({
          specversion: '1.0',
          id: ctx.messageId,
          source: ctx.source,
          type: `dev.loopdeck.${name}`,
          subject: n.key,
          time: n.createdAt,
          datacontenttype: 'application/json',
          data: n,
        }),
      };
    case 'alertmanager':
      return { contentType: 'application/json', body: JSON.stringify(alertmanagerBody(n, ctx)) };
  }
}

/**
 * The Standard Webhooks headers for one attempt: `webhook-id`, `webhook-timestamp` (the attempt's
 * time, seconds) and, with a key, `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`.
 */
export function signatureHeaders(messageId: string, at: Date, body: string, key: Buffer | null): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const headers: Record<string, string> = { 'webhook-id': messageId, 'webhook-timestamp': timestamp };
  if (key) headers['webhook-signature'] = `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
  return headers;
}
