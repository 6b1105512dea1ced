import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSession, type Session } from '../session/session';
import { startAlertmanager, type TestAlertmanager } from '../../../testing/alertmanager';
import { startPushoverTestServer, type PushoverTestServer } from '../../../testing/pushover-test-server';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { until } from '../../../testing/until';
import { startWebhookReceiver, type WebhookReceiver } from '../../../testing/webhook-receiver';

// The whole path with real parts: a `.status` detail line holding an OSC 52 clipboard write (ESC
// ] 52 ; c ; … BEL) and a U+202E, followed by the app core as serve runs it, reaches a webhook
// receiver, a real Alertmanager and the Pushover test server, and none gets a raw control.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const VAR = 'LOOPDECK_TEST_ESCAPE_WEBHOOK_SECRET';
const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const KEY = 'phase:reliability:2026-11-29:remediate:failed';
const DETAIL = 'gate said \x1b]52;c;cm0gLXJmIH4=\x07 then \u202eevil\u202c';
const SHOWN = 'gate said \\x1b]52;c;cm0gLXJmIH4=\\x07 then \\u202eevil\\u202c';
// ESC, BEL, any other C0 but LF, C1, and the bidi characters.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Every string inside a parsed body, with where it is. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [[`${path}.${k}#key`, k] as [string, string], ...strings(v, `${path}.${k}`)]);
  return [];
}
const rawIn = (value: unknown): string[] => strings(value).filter(([, s]) => RAW.test(s)).map(([p]) => p);

let receiver: WebhookReceiver;
let am: TestAlertmanager;
let pushover: PushoverTestServer;
let core: Session | null = null;

beforeAll(async () => {
  process.env[VAR] = SECRET;
  [receiver, am, pushover] = await Promise.all([startWebhookReceiver({ secret: SECRET }), startAlertmanager(), startPushoverTestServer({ token: TOKEN, user: USER })]);
}, 30_000);
afterAll(async () => {
  await Promise.all([receiver?.close(), am?.stop(), pushover?.close()]);
  delete process.env[VAR];
});
afterEach(async () => {
  await core?.close();
  core = null;
});

const stamp = (phase: string, status: string): string => `${phase} 2026-11-29T01:00:00+00:00 ${status}\n`;

describe('a .status detail line with terminal controls, through every notice sink', () => {
  it('reaches the webhook, Alertmanager, Pushover and the stored notice escaped, visibly', async () => {
    const fx = createRunnerFixture(
      'notify:\n' +
        `  webhooks:\n    - { url: ${JSON.stringify(receiver.url)}, secret: "env:${VAR}" }\n` +
        `  alertmanager: { url: ${JSON.stringify(am.url)} }\n` +
        `  pushover: { user: ${USER}, token: ${TOKEN}, baseUrl: ${JSON.stringify(pushover.url)} }\n`,
    );
    fx.write('2026-11-29', 'audit.status', stamp('audit', 'STARTED') + stamp('audit', 'OK'));
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    core.setConsoleUrl('http://127.0.0.1:7777/');
    await core.start();
    await core.pollOnce();

    // News after the first start: remediate fails, its detail line written by the agent's output.
    fx.write('2026-11-29', 'remediate.status', `${stamp('remediate', 'STARTED')}${stamp('remediate', 'FAILED 1')}  ${DETAIL}\n`);
    await core.pollOnce();

    const stored = core.snapshot().notices.find((n) => n.key === KEY);
    expect(stored?.message).toContain(SHOWN);
    expect(rawIn(stored)).toEqual([]);

    await until(() => receiver.received.length >= 1, 15_000, 'the webhook to receive the failure');
    const hook = receiver.received[0];
    expect(RAW.test(hook?.body ?? '')).toBe(false);
    expect(hook?.verified).toMatchObject({ ok: true, payload: { data: { key: KEY, message: expect.stringContaining(SHOWN) } } });
    expect(rawIn(hook?.verified)).toEqual([]);

    await until(async () => (await am.alerts()).some((a) => a.labels.key === KEY), 15_000, 'Alertmanager to hold the alert');
    const alert = (await am.alerts()).find((a) => a.labels.key === KEY);
    expect(alert?.annotations.description).toContain(SHOWN);
    expect(rawIn(alert)).toEqual([]);

    await until(() => pushover.messages.some((m) => m.fields.message?.includes(SHOWN)), 15_000, 'Pushover to get the message');
    expect(pushover.messages.flatMap((m) => rawIn(m.fields))).toEqual([]);
  }, 60_000);
});
