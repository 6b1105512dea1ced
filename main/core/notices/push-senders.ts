import { smtpEndpoint, type PushSink } from '../config/push-config';
import { readSecret } from '../config/secret';
import { VERSION } from '../config/version';
import type { NotifyConfig } from './notify-config';
import { PUSHOVER_BASE_URL } from './sinks/pushover-sink';
import { signatureHeaders } from './sinks/webhook-payload';
import { webhookTargets } from './sinks/webhook-target';

/**
 * A message pushed outside the notices' own sends: the morning digest, or a notice escalated
 * because nobody acknowledged it. Sent to the `notify` sinks by name (`digest.to`, `escalate.to`).
 */
export interface PushMessage {
  /** `loopdeck.<kind>` is the webhooks' event type. */
  readonly kind: 'digest' | 'escalation';
  readonly subject: string;
  /** Markdown (plain text in a mail). */
  readonly text: string;
  /** Into the console, when its address is known. */
  readonly url: string | null;
  /** Pushover's priority for it (−1 … 1: never an emergency's receipt and repeats). */
  readonly priority: -1 | 0 | 1;
  /** The webhooks' `data`. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** What a sender needs besides the message: the config, the environment for `env:` secrets, fetch. */
export interface SendContext {
  readonly notify: NotifyConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly fetch: typeof fetch;
  /** When the digest is sent (the webhooks' timestamp). */
  readonly at: Date;
  /** The wall clock, for the webhooks' signature timestamp: a receiver's replay window is about real time. */
  readonly clock?: () => Date;
  /** The message's own id, the same on every attempt: receivers can drop a repeat. */
  readonly id: string;
}

/** Bounded: a server that never answers holds a sink's attempt this long at most. */
const TIMEOUT_MS = 15_000;

/** Pushover's message limit (characters) and its title's. */
const PUSHOVER_MESSAGE_MAX = 1024;

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

async function answered(res: Response, what: string): Promise<void> {
  if (res.ok) return;
  const body = (await res.text().catch(() => '')).slice(0, 300);
  throw new Error(`${what} answered ${res.status}${body ? `: ${body}` : ''}`);
}

async function email(d: PushMessage, c: SendContext): Promise<void> {
  const cfg = c.notify.email;
  if (!cfg) throw new Error('notify.email is not configured');
  const end = smtpEndpoint(cfg.smtp);
  let pass: string | undefined;
  if (cfg.password !== undefined) {
    const secret = readSecret('notify.email.password', cfg.password, c.env);
    if ('error' in secret) throw new Error(secret.error);
    pass = secret.value;
  }
  // Loaded only when a digest is mailed: nothing of it on a start.
  const { createTransport } = await import('nodemailer');
  const mailer = createTransport({
    host: end.host,
    port: end.port,
    secure: end.secure,
    requireTLS: end.requireTls,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    ...(cfg.user !== undefined ? { auth: { user: cfg.user, ...(pass !== undefined ? { pass } : {}) } } : {}),
  });
  try {
    await mailer.sendMail({ from: cfg.from, to: cfg.to, subject: cut(d.subject, 200), text: d.text, messageId: `<${c.id}@loopdeck>`, headers: { [d.kind === 'digest' ? 'X-Loopdeck-Digest' : 'X-Loopdeck-Escalation']: c.id } });
  } finally {
    mailer.close();
  }
}

async function webhooks(d: PushMessage, c: SendContext): Promise<void> {
  const { targets, problems } = webhookTargets(c.notify, c.env);
  if (problems.length > 0) throw new Error(problems.map((p) => p.message).join('; '));
  const failures: string[] = [];
  for (const t of targets) {
    // An Alertmanager-format receiver takes alerts; a summary is not one.
    if (t.format === 'alertmanager') continue;
    const data = d.data;
    const body =
      t.format === 'cloudevents'
        ? JSON.stringify({ specversion: '1.0', id: c.id, source: 'loopdeck', type: `dev.loopdeck.${d.kind}`, time: c.at.toISOString(), datacontenttype: 'application/json', data })
        : JSON.stringify({ type: `loopdeck.${d.kind}`, timestamp: c.at.toISOString(), data });
    const type = t.format === 'cloudevents' ? 'application/cloudevents+json' : 'application/json';
    try {
      const res = await c.fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': type, 'user-agent': `Loopdeck/${VERSION}`, ...signatureHeaders(`${c.id}-${t.id}`, (c.clock ?? (() => new Date()))(), body, t.signingKey) },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await answered(res, `webhook ${t.host}`);
    } catch (err) {
      failures.push(err instanceof Error ? err.message : String(err));
    }
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
}

async function pushover(d: PushMessage, c: SendContext): Promise<void> {
  const p = c.notify.pushover;
  if (!p) throw new Error('notify.pushover is not configured');
  const form = new URLSearchParams({ token: p.token, user: p.user, title: cut(d.subject, 250), message: cut(d.text, PUSHOVER_MESSAGE_MAX), priority: String(d.priority) });
  if (d.url) form.set('url', d.url);
  const res = await c.fetch(`${(p.baseUrl ?? PUSHOVER_BASE_URL).replace(/\/+$/, '')}/1/messages.json`, { method: 'POST', body: form, signal: AbortSignal.timeout(TIMEOUT_MS) });
  await answered(res, 'Pushover');
}

async function ntfy(d: PushMessage, c: SendContext): Promise<void> {
  const n = c.notify.ntfy;
  if (!n) throw new Error('notify.ntfy is not configured');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (n.token !== undefined) {
    const secret = readSecret('notify.ntfy.token', n.token, c.env);
    if ('error' in secret) throw new Error(secret.error);
    headers.authorization = `Bearer ${secret.value}`;
  }
  const body = JSON.stringify({ topic: n.topic, title: cut(d.subject, 250), message: cut(d.text, 4000), priority: d.priority + 3, markdown: true, ...(d.url ? { click: d.url } : {}) });
  const res = await c.fetch(n.url.replace(/\/+$/, '') + '/', { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  await answered(res, 'ntfy');
}

/** Send a message to one sink by name; throws with what went wrong (never a secret). */
export const sendPush: Record<PushSink, (d: PushMessage, c: SendContext) => Promise<void>> = { email, webhooks, pushover, ntfy };
