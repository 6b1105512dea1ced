import * as z from 'zod';
import { Duration, httpsOrLoopback, NonEmpty } from './config-parts';
import { secretSource } from './secret';
import { EmailConfigSchema } from './push-config';

// `notify:` — where notices go beyond the console: Pushover, Alertmanager, webhooks, ntfy.

/** The payload shapes a webhook can take (see notices/sinks/webhook-payload.ts). */
export const WEBHOOK_FORMATS = ['standard', 'cloudevents', 'alertmanager'] as const;

/**
 * One `notify.webhooks` entry: every notice is POSTed there. The secret (`env:NAME`, or the
 * value itself, as `github.token`) signs the body with the Standard Webhooks headers; `standard`
 * needs one, the other formats are signed when one is given. Whether the variable is set, and the
 * secret is base64, is checked when the notifier starts (notices/sinks/webhook-target.ts).
 */
export const WebhookConfigSchema = z
  .object({
    url: httpsOrLoopback('the receiver\'s URL', '"https://hooks.example.com/loopdeck"', 'the notices'),
    secret: NonEmpty.refine((v) => secretSource(v) !== null, { message: 'expected "env:NAME" with NAME an environment variable name, e.g. "env:LOOPDECK_WEBHOOK_SECRET"' }).optional(),
    format: z.enum(WEBHOOK_FORMATS, { error: `expected one of ${WEBHOOK_FORMATS.join(', ')}` }).default('standard'),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (w.format === 'standard' && w.secret === undefined) {
      ctx.addIssue({ code: 'custom', path: ['secret'], message: 'required for format "standard" (Standard Webhooks bodies are signed): e.g. secret: "env:LOOPDECK_WEBHOOK_SECRET" holding a whsec_… secret' });
    }
  });

/** ntfy's rule for a topic name (its server's topic pattern). */
const NTFY_TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/**
 * `notify.ntfy`: a self-hosted ntfy server or ntfy.sh; every notice is published to the topic with
 * ntfy's JSON publish API (notices/sinks/ntfy-sink.ts). The access token is read from the
 * environment only (`env:NAME`); whether the variable is set is checked when the notifier starts.
 */
export const NtfyConfigSchema = z
  .object({
    url: httpsOrLoopback("the ntfy server's URL", '"https://ntfy.sh" or "https://ntfy.example.com"', 'the token and the notices'),
    topic: z.string().regex(NTFY_TOPIC, 'expected a topic of 1 to 64 letters, digits, "-" or "_" (ntfy\'s rule), e.g. "loopdeck"'),
    token: z
      .string()
      .refine((v) => secretSource(v)?.kind === 'env', {
        message: 'expected "env:NAME" with NAME the environment variable holding the access token (tk_…), e.g. "env:NTFY_TOKEN": the token is read from the environment, never written in the config',
      })
      .optional(),
  })
  .strict()
  .superRefine((n, ctx) => {
    let url: URL;
    try {
      url = new URL(n.url);
    } catch {
      return;
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'expected no user or password in the URL (it would be logged): give an access token as token: "env:NTFY_TOKEN"' });
    }
    if (url.search !== '' || url.hash !== '') ctx.addIssue({ code: 'custom', path: ['url'], message: 'expected no query or fragment in the URL: the JSON is published to the server\'s root URL' });
    // JSON is published to the server's root; a topic's URL there would publish to nothing.
    const path = url.pathname.replace(/\/+$/, '');
    if (path.split('/').pop() === n.topic) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `expected the server's root URL, not the topic's: url: "${url.origin}${path.slice(0, -n.topic.length - 1)}" and topic: "${n.topic}"` });
    }
  });

const QuietHours = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/, 'expected "HH:MM-HH:MM", e.g. "22:00-07:00"');

/** Notification settings. */
export const NotifyConfigSchema = z
  .object({
    quietHours: QuietHours.optional(),
    pushover: z.object({ user: NonEmpty, token: NonEmpty, baseUrl: z.url().optional() }).strict().optional(),
    /** Alertmanager's base URL: notices of priority 0 and up are posted to `<url>/api/v2/alerts`. */
    alertmanager: z.object({ url: z.url({ protocol: /^https?$/, error: 'expected Alertmanager\'s http(s) URL such as "http://127.0.0.1:9093"' }) }).strict().optional(),
    /** Receivers every notice is POSTed to, signed (Standard Webhooks), at most once per notice and webhook. */
    webhooks: z.array(WebhookConfigSchema).max(20, 'at most 20 webhooks').optional(),
    /** A self-hosted ntfy or ntfy.sh: every notice of priority −1 and up is published to the topic, as Pushover's. */
    ntfy: NtfyConfigSchema.optional(),
    /** An SMTP server and addresses: the morning digest's `email` sink (push-config.ts). */
    email: EmailConfigSchema.optional(),
    rules: z.record(z.string(), z.number().int().min(-2).max(2)).optional(),
    retry: Duration.optional(),
    expire: Duration.optional(),
  })
  .strict();
