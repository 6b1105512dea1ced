import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config';
import { smtpEndpoint } from './push-config';

// `digest:` and `notify.email` as written: the sinks named must be configured, the SMTP server's
// URL carries no secret, a password comes from the environment, and errors name the key.

const BASE = 'hosts:\n  runner: { local: true }\nloops:\n  reliability: { host: runner, runs: /tmp/runs }\n';

function problems(text: string): string[] {
  try {
    parseConfig('/c.yaml', `${BASE}${text}`);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

const EMAIL = '  email: { smtp: "smtp://mail.example.com:587", user: loopdeck, password: "env:SMTP_PASSWORD", from: "Loopdeck <loopdeck@example.com>", to: [ops@example.com] }\n';

describe('digest: and notify.email in the config', () => {
  it('reads a digest to email, with the time zone defaulting to UTC', () => {
    const cfg = parseConfig('/c.yaml', `${BASE}notify:\n${EMAIL}digest: { at: "07:30", to: [email] }\n`);
    expect(cfg.digest).toEqual({ at: '07:30', timezone: 'UTC', to: ['email'] });
    expect(cfg.notify.email?.to).toEqual(['ops@example.com']);
  });

  it.each([
    ['a sink that is not configured', 'digest: { at: "07:30", to: [email, webhooks] }\n', /digest\.to\.0.*"email" needs notify\.email[\s\S]*digest\.to\.1.*"webhooks" needs at least one notify\.webhooks entry/],
    ['a time that is not HH:MM', `notify:\n${EMAIL}digest: { at: "7:30am", to: [email] }\n`, /digest\.at.*expected a time "HH:MM"/],
    ['an unknown time zone', `notify:\n${EMAIL}digest: { at: "07:30", timezone: Mars/Olympus, to: [email] }\n`, /digest\.timezone.*IANA time zone/],
    ['an unknown sink', `notify:\n${EMAIL}digest: { at: "07:30", to: [slack] }\n`, /digest\.to\.0.*expected one of pushover, webhooks, email, ntfy/],
    ['a sink twice', `notify:\n${EMAIL}digest: { at: "07:30", to: [email, email] }\n`, /digest\.to.*each sink once/],
    ['a password in the URL', 'notify:\n  email: { smtp: "smtp://me:secret@mail.example.com", from: a@example.com, to: [b@example.com] }\n', /notify\.email\.smtp.*no user or password in the URL/],
    ['a password written in the config', 'notify:\n  email: { smtp: "smtps://mail.example.com", user: me, password: hunter2, from: a@example.com, to: [b@example.com] }\n', /notify\.email\.password.*"env:NAME"/],
    ['a password without a user', 'notify:\n  email: { smtp: "smtps://mail.example.com", password: "env:P", from: a@example.com, to: [b@example.com] }\n', /notify\.email\.user.*required with password/],
    ['an http URL', 'notify:\n  email: { smtp: "http://mail.example.com", from: a@example.com, to: [b@example.com] }\n', /notify\.email\.smtp.*expected smtp:\/\/ or smtps:\/\//],
    ['an escalation to a sink that is not configured', `notify:\n${EMAIL}escalate: { after: 15m, to: [email, ntfy] }\n`, /escalate\.to\.1.*"ntfy" needs notify\.ntfy/],
    ['an escalation sooner than a minute', `notify:\n${EMAIL}escalate: { after: 30s, to: [email] }\n`, /escalate\.after.*at least "1m"/],
    ['a header in an address', 'notify:\n  email: { smtp: "smtps://mail.example.com", from: "a@example.com\\nBcc: x@evil.example", to: [b@example.com] }\n', /notify\.email\.from.*expected an address/],
  ])('refuses %s, naming the key', (_what, text, message) => {
    expect(problems(text).join('\n')).toMatch(message);
  });

  it('reads an escalation', () => {
    const cfg = parseConfig('/c.yaml', `${BASE}notify:\n${EMAIL}escalate: { after: 15m, to: [email] }\n`);
    expect(cfg.escalate).toEqual({ after: 15 * 60_000, to: ['email'] });
  });

  it('requires STARTTLS for plain smtp:// unless the server is on loopback', () => {
    expect(smtpEndpoint('smtp://mail.example.com')).toEqual({ host: 'mail.example.com', port: 587, secure: false, requireTls: true });
    expect(smtpEndpoint('smtps://mail.example.com')).toEqual({ host: 'mail.example.com', port: 465, secure: true, requireTls: false });
    expect(smtpEndpoint('smtp://127.0.0.1:2525')).toEqual({ host: '127.0.0.1', port: 2525, secure: false, requireTls: false });
  });
});
