import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../../../../testing/runner-fixture';
import { until } from '../../../../testing/until';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../testing/webhook-receiver';
import { createSession, type Session } from '../../session/session';

// The whole path with real parts: a runner folder followed by the app core (as serve runs it),
// the secret in the environment as `env:NAME` says, and a receiver verifying what it is sent.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const VAR = 'LOOPDECK_TEST_WEBHOOK_SECRET';

let receiver: WebhookReceiver;
let core: Session | null = null;

beforeEach(async () => {
  process.env[VAR] = SECRET;
  receiver = await startWebhookReceiver({ secret: SECRET });
});
afterEach(async () => {
  await core?.close();
  core = null;
  await receiver.close();
  delete process.env[VAR];
});

const stamp = (phase: string, status: string): string => `${phase} 2026-11-29T01:00:00+00:00 ${status}\n`;

describe('a webhook receives the notices of a running Loopdeck', () => {
  it('posts nothing for the first start, a signed post for a failure raised afterwards, and nothing again after a restart', async () => {
    const fx = createRunnerFixture(`notify:\n  webhooks:\n    - { url: ${JSON.stringify(receiver.url)}, secret: "env:${VAR}" }\n`);
    fx.write('2026-11-29', 'audit.status', stamp('audit', 'STARTED') + stamp('audit', 'FAILED 2'));
    const open = async (): Promise<Session> => {
      const s = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
      s.setConsoleUrl('http://127.0.0.1:7777/');
      await s.start();
      await s.pollOnce();
      return s;
    };
    core = await open();
    expect(core.snapshot().notices.map((n) => n.key)).toContain('phase:reliability:2026-11-29:audit:failed');
    expect(core.snapshot().problems.filter((p) => p.source.startsWith('notify.webhooks'))).toEqual([]);

    fx.write('2026-11-29', 'remediate.status', stamp('remediate', 'STARTED') + stamp('remediate', 'FAILED 1'));
    await core.pollOnce();
    await until(() => receiver.received.length === 1, 15_000, 'the webhook to receive the failure');
    const got = receiver.received[0];
    expect(got?.verified).toMatchObject({
      ok: true,
      payload: {
        type: 'loopdeck.phase-failed',
        data: { key: 'phase:reliability:2026-11-29:remediate:failed', priority: 1, title: 'reliability remediate failed', url: 'http://127.0.0.1:7777/#/loops/reliability/2026-11-29/remediate/log' },
      },
    });

    await core.close();
    core = await open();
    await core.pollOnce();
    await core.close();
    core = null;
    expect(receiver.received).toHaveLength(1);
  }, 60_000);

  it('shows a webhook whose variable is unset as a problem naming the key and the variable', async () => {
    delete process.env[VAR];
    const fx = createRunnerFixture(`notify:\n  webhooks:\n    - { url: ${JSON.stringify(receiver.url)}, secret: "env:${VAR}" }\n`);
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    await core.start();
    await core.pollOnce();
    expect(core.snapshot().problems.filter((p) => p.source.startsWith('notify.webhooks'))).toEqual([
      { source: 'notify.webhooks.0.secret', line: null, message: expect.stringContaining(`the environment variable ${VAR} is not set`) },
    ]);
  }, 60_000);
});
