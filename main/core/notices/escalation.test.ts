import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/domain';
import type { Session } from '../session/session';
import { openServeSession } from '../../../testing/maintenance-night';
import { createRunnerFixture, type RunnerFixture } from '../../../testing/runner-fixture';
import { startSmtpTestServer, type SmtpTestServer } from '../../../testing/smtp-test-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../../testing/webhook-receiver';
import { TEST_CALLER } from '../../../testing/callers';
import { until } from '../../../testing/until';

// Escalation with real parts: runner folders read by the core as serve runs it (its own notices'
// tick), a real SQLite file, a real SMTP server and a verifying webhook receiver. Two phases fail
// at once; one is acknowledged before `after`, the other is not: only the second is sent on, once,
// and says so. A third failure later is the fence: its escalation arriving shows that later ticks
// ran and sent nothing again, across a restart too.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const SECRET_VAR = `LOOPDECK_TEST_ESCALATION_SECRET_${process.pid}`;
const DAY = '2026-12-07';
const T0 = Date.parse(`${DAY}T03:00:00Z`);
const MIN = 60_000;
const AUDIT = `phase:reliability:${DAY}:audit:failed`;
const REMEDIATE = `phase:reliability:${DAY}:remediate:failed`;
const DELIVER = `phase:reliability:${DAY}:deliver:failed`;

let smtp: SmtpTestServer;
let hooks: WebhookReceiver;
let t = T0;
const now = (): Date => new Date(t);
let core: Session | null = null;

beforeAll(async () => {
  process.env[SECRET_VAR] = SECRET;
  smtp = await startSmtpTestServer();
  hooks = await startWebhookReceiver({ secret: SECRET });
}, 30_000);
afterAll(async () => {
  await smtp?.close();
  await hooks?.close();
});
afterEach(async () => {
  await core?.close();
  core = null;
});

function fixture(): RunnerFixture {
  return createRunnerFixture(
    [
      'notify:',
      `  email: { smtp: ${JSON.stringify(smtp.url)}, from: loopdeck@example.com, to: [oncall@example.com] }`,
      `  webhooks: [{ url: ${JSON.stringify(hooks.url)}, secret: "env:${SECRET_VAR}" }]`,
      'escalate: { after: 15m, to: [email, webhooks] }',
      '',
    ].join('\n'),
  );
}

const open = (fx: RunnerFixture): Promise<Session> => openServeSession(fx, now);

const notice = (s: Session, key: string): Notice | undefined => s.snapshot().notices.find((n) => n.key === key);
const mailsAbout = (key: string): number => smtp.messages.filter((m) => m.raw.includes(`loopdeck-escalation-${key}`)).length;
const hooksAbout = (key: string): number => hooks.received.filter((h) => h.body.includes(`"key":"${key}"`) && h.body.includes('loopdeck.escalation')).length;

describe('escalation', () => {
  it('sends on a priority-1 notice nobody acknowledged within escalate.after, once, not one acknowledged in time, and says so on the notice', async () => {
    const fx = fixture();
    fx.write(DAY, 'audit.status', `audit ${DAY}T00:00:00+00:00 STARTED\n`);
    core = await open(fx);
    // Seeded (the first start lists history without alerting); then two phases fail at once.
    fx.write(DAY, 'audit.status', `audit ${DAY}T00:00:00+00:00 STARTED\naudit ${DAY}T00:40:00+00:00 FAILED 1\n`);
    fx.write(DAY, 'remediate.status', `remediate ${DAY}T01:00:00+00:00 STARTED\nremediate ${DAY}T02:00:00+00:00 FAILED 2\n`);
    await core.pollOnce();
    await until(() => notice(core!, AUDIT) !== undefined && notice(core!, REMEDIATE) !== undefined, 10_000, 'both notices');
    expect(notice(core, REMEDIATE)?.priority).toBe(1);
    t = T0 + 5 * MIN;
    await core.handlers['notices.ack']({ key: AUDIT }, TEST_CALLER);
    t = T0 + 16 * MIN;
    await until(() => mailsAbout(REMEDIATE) === 1 && hooksAbout(REMEDIATE) === 1, 20_000, 'the unacknowledged notice sent on');
    // Considered in the same tick, the acknowledged one was not sent on.
    expect(mailsAbout(AUDIT) + hooksAbout(AUDIT)).toBe(0);
    const mail = smtp.messages.find((m) => m.raw.includes(`loopdeck-escalation-${REMEDIATE}`));
    expect(mail?.to).toEqual(['oncall@example.com']);
    expect(mail?.subject).toMatch(/^Loopdeck P1: .* — not acknowledged in 15m$/);
    expect(mail?.text).toContain('nobody acknowledged it within 15m, so it is sent on to email, webhooks');
    const hook = hooks.received.find((h) => h.body.includes('loopdeck.escalation'));
    expect(hook?.verified).toMatchObject({ ok: true, payload: { type: 'loopdeck.escalation', data: { afterMs: 15 * MIN, to: ['email', 'webhooks'], notice: { key: REMEDIATE } } } });
    await until(() => (notice(core!, REMEDIATE)?.escalated?.to.length ?? 0) === 2, 10_000, 'the notice to say where it went');
    expect(notice(core, REMEDIATE)?.escalated).toMatchObject({ afterMs: 15 * MIN, to: ['email', 'webhooks'], failed: [] });
    expect(notice(core, AUDIT)?.escalated).toBeUndefined();

    // A restart, then a third failure (the fence): once it is sent on, later ticks have run.
    await core.close();
    core = await open(fx);
    fx.write(DAY, 'deliver.status', `deliver ${DAY}T03:00:00+00:00 STARTED\ndeliver ${DAY}T03:10:00+00:00 FAILED 1\n`);
    await core.pollOnce();
    await until(() => notice(core!, DELIVER) !== undefined, 10_000, 'the third notice');
    t = T0 + 40 * MIN;
    await until(() => mailsAbout(DELIVER) === 1, 20_000, 'the third notice sent on');
    expect(mailsAbout(REMEDIATE)).toBe(1);
    expect(hooksAbout(REMEDIATE)).toBe(1);
    expect(mailsAbout(AUDIT)).toBe(0);
  }, 90_000);

  it('tries a sink that failed again, without sending the one that worked twice', async () => {
    const fx = fixture();
    fx.write('2026-12-08', 'audit.status', 'audit 2026-12-08T00:00:00+00:00 STARTED\n');
    t = Date.parse('2026-12-08T03:00:00Z');
    const key = 'phase:reliability:2026-12-08:audit:failed';
    core = await open(fx);
    fx.write('2026-12-08', 'audit.status', 'audit 2026-12-08T00:00:00+00:00 STARTED\naudit 2026-12-08T00:40:00+00:00 FAILED 1\n');
    await core.pollOnce();
    await until(() => notice(core!, key) !== undefined, 10_000, 'the notice');
    // Every notice is POSTed to the webhook too: the refusal is for the escalation, after that one.
    await until(() => hooks.received.some((h) => h.body.includes(`"key":"${key}"`)), 10_000, 'the notice\'s own webhook');
    hooks.answer(503);
    const before = hooks.received.length;
    t += 16 * MIN;
    await until(() => notice(core!, key)?.escalated?.failed.includes('webhooks') === true, 20_000, 'the webhook to fail');
    expect(hooks.received.slice(before).map((h) => h.status)).toEqual([503]);
    expect(notice(core, key)?.escalated?.to).toEqual(['email']);
    t += 2 * MIN;
    await until(() => notice(core!, key)?.escalated?.to.includes('webhooks') === true, 20_000, 'the webhook retried');
    expect(hooks.received.slice(before).map((h) => h.status)).toEqual([503, 200]);
    expect(mailsAbout(key)).toBe(1);
    expect(notice(core, key)?.escalated?.failed).toEqual([]);
  }, 60_000);

  it('does not send on a notice acknowledged after a sink failed: its retries stop', async () => {
    const fx = fixture();
    const day = '2026-12-09';
    fx.write(day, 'audit.status', `audit ${day}T00:00:00+00:00 STARTED\n`);
    t = Date.parse(`${day}T03:00:00Z`);
    const key = `phase:reliability:${day}:audit:failed`;
    core = await open(fx);
    fx.write(day, 'audit.status', `audit ${day}T00:00:00+00:00 STARTED\naudit ${day}T00:40:00+00:00 FAILED 1\n`);
    await core.pollOnce();
    await until(() => hooks.received.some((h) => h.body.includes(`"key":"${key}"`)), 10_000, 'the notice\'s own webhook');
    hooks.answer(503);
    t += 16 * MIN;
    await until(() => notice(core!, key)?.escalated?.failed.includes('webhooks') === true, 20_000, 'the webhook to fail');
    await core.handlers['notices.ack']({ key }, TEST_CALLER);
    // A fence: a second failure, escalated later, shows ticks ran after the acknowledgement.
    const fence = `phase:reliability:${day}:remediate:failed`;
    fx.write(day, 'remediate.status', `remediate ${day}T01:00:00+00:00 STARTED\nremediate ${day}T02:00:00+00:00 FAILED 2\n`);
    await core.pollOnce();
    await until(() => notice(core!, fence) !== undefined, 10_000, 'the fence notice');
    t += 30 * MIN;
    await until(() => hooksAbout(fence) === 1, 20_000, 'the fence sent on');
    expect(hooks.received.filter((h) => h.body.includes('loopdeck.escalation') && h.body.includes(`"key":"${key}"`)).map((h) => h.status)).toEqual([503]);
    expect(notice(core, key)?.escalated?.failed).toEqual(['webhooks']);
  }, 60_000);
});
