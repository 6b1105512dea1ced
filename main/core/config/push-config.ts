import * as z from 'zod';
import { Duration, loopbackHost, NonEmpty, TimeZone } from './config-parts';
import { secretSource } from './secret';

// `notify.email` (an SMTP server), `digest:` (the morning summary, pushed) and `escalate:` (a notice
// nobody acknowledged, sent on): what is pushed by name to the `notify` sinks.

/** `Name <addr@host>` or `addr@host`: one line (a CR or LF would start another header). */
const Address = z
  .string()
  .trim()
  .regex(/^(?:[^<>\r\n@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'expected an address such as "ops@example.com" or "Loopdeck <loopdeck@example.com>"');

/**
 * `notify.email`: mail through an SMTP server. `smtp` is `smtps://host[:465]` (TLS from the start)
 * or `smtp://host[:587]`, which must upgrade with STARTTLS unless the server is on this machine's
 * loopback: the summary, and a password, never cross a network in clear. The password is read from
 * the environment only (`env:NAME`).
 */
export const EmailConfigSchema = z
  .object({
    smtp: z.string().superRefine((text, ctx) => {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `expected the SMTP server as "smtps://mail.example.com" or "smtp://mail.example.com:587", got ${JSON.stringify(text)}` });
        return;
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') ctx.addIssue({ code: 'custom', message: `expected smtp:// or smtps://, got ${JSON.stringify(url.protocol)}` });
      if (url.username !== '' || url.password !== '') ctx.addIssue({ code: 'custom', message: 'expected no user or password in the URL (it would be logged): give user: and password: "env:SMTP_PASSWORD"' });
      if (url.pathname.replace(/\/+$/, '') !== '' || url.search !== '' || url.hash !== '') ctx.addIssue({ code: 'custom', message: 'expected only a scheme, a host and a port, e.g. "smtp://mail.example.com:587"' });
    }),
    user: NonEmpty.optional(),
    password: z
      .string()
      .refine((v) => secretSource(v)?.kind === 'env', { message: 'expected "env:NAME" with NAME the environment variable holding the password, e.g. "env:SMTP_PASSWORD": it is never written in the config' })
      .optional(),
    from: Address,
    to: z.array(Address).min(1, 'expected at least one address').max(20, 'at most 20 addresses'),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.password !== undefined && e.user === undefined) ctx.addIssue({ code: 'custom', path: ['user'], message: 'required with password: the account the SMTP server signs in' });
  });

/** The SMTP server's settings as the mailer takes them. */
export function smtpEndpoint(smtp: string): { host: string; port: number; secure: boolean; requireTls: boolean } {
  const url = new URL(smtp);
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, port: url.port ? Number(url.port) : secure ? 465 : 587, secure, requireTls: !secure && !loopbackHost(url.hostname) };
}

/** Where a digest can be sent: the `notify` sinks of those names. */
export const PUSH_SINKS = ['pushover', 'webhooks', 'email', 'ntfy'] as const;
export type PushSink = (typeof PUSH_SINKS)[number];

/** The `notify` sinks a push goes to, by name, each once. */
const SinkList = z
  .array(z.enum(PUSH_SINKS, { error: `expected one of ${PUSH_SINKS.join(', ')}` }))
  .min(1, `expected at least one of ${PUSH_SINKS.join(', ')}`)
  .refine((l) => new Set(l).size === l.length, 'expected each sink once');

/**
 * `digest:` — the Review's headline, Waiting on you and Broken contract sent at `at` (local time in
 * `timezone`) to the sinks `to` names, once a day (see notices/digest/digest-service.ts).
 */
export const DigestConfigSchema = z
  .object({
    at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time "HH:MM" (24-hour), e.g. "07:30"'),
    timezone: TimeZone.default('UTC'),
    to: SinkList,
  })
  .strict();
export type DigestConfig = z.infer<typeof DigestConfigSchema>;

/**
 * `escalate:` — a notice of priority 1 or 2 that nobody acknowledged within `after` of its
 * delivery goes to the sinks `to` names, once (see notices/escalation.ts).
 */
export const EscalateConfigSchema = z
  .object({
    after: Duration.refine((ms) => ms >= 60_000, 'expected at least "1m"'),
    to: SinkList,
  })
  .strict();
export type EscalateConfig = z.infer<typeof EscalateConfigSchema>;

/** The `notify` section each digest sink needs, for an error naming both keys. */
const NEEDS: Record<PushSink, string> = {
  pushover: 'notify.pushover (user and token)',
  webhooks: 'at least one notify.webhooks entry',
  email: 'notify.email (smtp, from and to)',
  ntfy: 'notify.ntfy (url and topic)',
};

/** `digest.to` or `escalate.to` entries whose sink is not configured under `notify`: index and message. */
export function unconfiguredSinks(list: { readonly to: readonly PushSink[] }, notify: { pushover?: unknown; webhooks?: readonly unknown[]; email?: unknown; ntfy?: unknown }): { index: number; message: string }[] {
  const has: Record<PushSink, boolean> = {
    pushover: notify.pushover !== undefined,
    webhooks: (notify.webhooks?.length ?? 0) > 0,
    email: notify.email !== undefined,
    ntfy: notify.ntfy !== undefined,
  };
  return list.to.flatMap((sink, index) => (has[sink] ? [] : [{ index, message: `"${sink}" needs ${NEEDS[sink]}` }]));
}
