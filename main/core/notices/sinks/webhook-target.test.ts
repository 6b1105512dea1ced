import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/load-config';
import { Store } from '../../store/store';
import { Notifier } from '../notifier';
import { messageId, signingKeyOf, webhookTargets } from './webhook-target';

const KEY = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECRET = `whsec_${Buffer.from(KEY).toString('base64')}`;

const webhooks = (yaml: string): string => `notify:\n  webhooks:\n${yaml}`;

describe('notify.webhooks in the config', () => {
  it('takes a list of url, secret and format (standard by default)', () => {
    const cfg = parseConfig(
      '/c.yaml',
      webhooks(
        '    - { url: "https://hooks.example.com/loopdeck", secret: "env:HOOK_SECRET" }\n' +
          '    - { url: "http://127.0.0.1:9000/events", format: cloudevents }\n' +
          '    - { url: "http://[::1]:9000/am", format: alertmanager, secret: "env:AM_HOOK" }\n',
      ),
    );
    expect(cfg.notify.webhooks).toEqual([
      { url: 'https://hooks.example.com/loopdeck', secret: 'env:HOOK_SECRET', format: 'standard' },
      { url: 'http://127.0.0.1:9000/events', format: 'cloudevents' },
      { url: 'http://[::1]:9000/am', format: 'alertmanager', secret: 'env:AM_HOOK' },
    ]);
  });

  it('refuses, naming the key and the line: plain http off loopback, a bad format, a bad env: reference, standard without a secret', () => {
    const cases: [string, RegExp][] = [
      ['    - { url: "http://hooks.example.com/x", secret: "env:S" }\n', /\/c\.yaml:3: notify\.webhooks\.0\.url: expected an https:\/\/ URL \(plain http:\/\/ only on loopback.*the notices would cross the network in clear/],
      ['    - { url: "hooks.example.com", secret: "env:S" }\n', /notify\.webhooks\.0\.url: expected the receiver's URL such as "https:\/\/hooks\.example\.com\/loopdeck"/],
      ['    - { url: "https://h.example.com", secret: "env:S", format: slack }\n', /notify\.webhooks\.0\.format: expected one of standard, cloudevents, alertmanager/],
      ['    - { url: "https://h.example.com", secret: "env:1BAD" }\n', /notify\.webhooks\.0\.secret: expected "env:NAME" with NAME an environment variable name/],
      ['    - { url: "https://h.example.com", secret: "env:S" }\n    - { url: "https://h.example.com/2" }\n', /notify\.webhooks\.1\.secret: required for format "standard"/],
      ['    - { url: "https://h.example.com", secret: "env:S", token: x }\n', /notify\.webhooks\.0: Unrecognized key: "token"/],
    ];
    for (const [yaml, message] of cases) expect(() => parseConfig('/c.yaml', webhooks(yaml))).toThrow(message);
  });
});

describe('webhookTargets: the secrets read when the notifier starts', () => {
  const notify = (secret: string | undefined) => ({ webhooks: [{ url: 'https://hooks.example.com/a?token=t0p', format: 'standard' as const, ...(secret ? { secret } : {}) }] });

  it('reads env:NAME, with or without the whsec_ prefix, and names the host only', () => {
    for (const value of [SECRET, SECRET.slice('whsec_'.length)]) {
      const { targets, problems } = webhookTargets(notify('env:HOOK_SECRET'), { HOOK_SECRET: value });
      expect(problems).toEqual([]);
      expect(targets).toMatchObject([{ key: 'notify.webhooks.0', host: 'hooks.example.com', format: 'standard' }]);
      expect(targets[0]?.signingKey?.toString()).toBe(KEY);
    }
  });

  it('leaves out a webhook whose variable is unset, or whose secret is not base64 of 24 to 64 bytes, naming the key and never the value', () => {
    const unset = webhookTargets(notify('env:HOOK_SECRET'), {});
    expect(unset.targets).toEqual([]);
    expect(unset.problems).toEqual([
      {
        source: 'notify.webhooks.0.secret',
        line: null,
        message: 'notify.webhooks.0.secret is "env:HOOK_SECRET", but the environment variable HOOK_SECRET is not set (or empty) in Loopdeck\'s environment; nothing is posted to this webhook until then.',
      },
    ]);
    for (const bad of ['hunter2-not-base64!', `whsec_${Buffer.from('short').toString('base64')}`]) {
      const r = webhookTargets(notify('env:HOOK_SECRET'), { HOOK_SECRET: bad });
      expect(r.targets).toEqual([]);
      expect(r.problems[0]?.source).toBe('notify.webhooks.0.secret');
      expect(r.problems[0]?.message).toMatch(/^notify\.webhooks\.0\.secret is not a Standard Webhooks secret: expected "whsec_" and the base64 of 24 to 64 random bytes/);
      expect(r.problems[0]?.message).not.toContain(bad);
    }
  });

  it('refuses a second entry with the same URL and format (one webhook-id per notice there)', () => {
    const w = { url: 'https://hooks.example.com/a', format: 'cloudevents' as const };
    const { targets, problems } = webhookTargets({ webhooks: [w, w, { ...w, format: 'alertmanager' }] }, {});
    expect(targets.map((t) => t.key)).toEqual(['notify.webhooks.0', 'notify.webhooks.2']);
    expect(problems).toMatchObject([{ source: 'notify.webhooks.1', message: expect.stringContaining('same URL in the same format as notify.webhooks.0') }]);
  });

  it('gives each (notice, webhook) one webhook-id, whichever process computes it', () => {
    const [a] = webhookTargets({ webhooks: [{ url: 'https://h.example.com/a', format: 'standard', secret: SECRET }] }, {}).targets;
    const [b] = webhookTargets({ webhooks: [{ url: 'https://h.example.com/b', format: 'standard', secret: SECRET }] }, {}).targets;
    if (!a || !b) throw new Error('no targets');
    expect(messageId('finding:reliability:R-1', a)).toBe(messageId('finding:reliability:R-1', a));
    expect(messageId('finding:reliability:R-1', a)).not.toBe(messageId('finding:reliability:R-2', a));
    expect(messageId('finding:reliability:R-1', a)).not.toBe(messageId('finding:reliability:R-1', b));
    expect(signingKeyOf('whsec_')).toBeNull();
  });

  it("are the notifier's problems, as the console shows them", () => {
    const store = Store.open(join(mkdtempSync(join(tmpdir(), 'ld-webhook-')), 'loopdeck.db'));
    const notifier = new Notifier({ store, notify: notify('env:HOOK_SECRET'), now: () => new Date(), emit: () => undefined, reviewed: () => ({ lastReviewedAt: null, lastReviewedBy: null }), env: {} });
    expect(notifier.problems()).toMatchObject([{ source: 'notify.webhooks.0.secret', message: expect.stringContaining('HOOK_SECRET is not set') }]);
    store.close();
  });
});
