import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildReviewSummary } from '../../../../shared/review-summary';
import { parseConfig } from '../../config/load-config';
import { createSession, type Session } from '../../session/session';
import { Store } from '../../store/store';
import { databasePath } from '../../config/paths';
import { createRunnerFixture, type RunnerFixture } from '../../../../testing/runner-fixture';
import { startSmtpTestServer, type SmtpTestServer } from '../../../../testing/smtp-test-server';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../testing/webhook-receiver';
import { until } from '../../../../testing/until';
import { DIGEST_RETRY_MS, DigestService, digestOccurrences, localDate } from './digest-service';

// The morning digest with real parts: a runner folder read by the app core, a real SQLite file, a
// real SMTP server (smtp-server) and a webhook receiver that verifies Standard Webhooks signatures.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const PASSWORD_VAR = `LOOPDECK_TEST_SMTP_PASSWORD_${process.pid}`;
const SECRET_VAR = `LOOPDECK_TEST_DIGEST_SECRET_${process.pid}`;
const PASSWORD = randomBytes(12).toString('hex');
const DAY = '2026-12-07';
// 07:30 in Berlin in December (CET, UTC+1).
const AT = Date.parse(`${DAY}T06:30:00Z`);

let smtp: SmtpTestServer;
let hooks: WebhookReceiver;
let t = AT;
const now = (): Date => new Date(t);
const sessions: Session[] = [];

beforeAll(async () => {
  process.env[PASSWORD_VAR] = PASSWORD;
  process.env[SECRET_VAR] = SECRET;
  smtp = await startSmtpTestServer({ user: 'loopdeck', pass: PASSWORD });
  hooks = await startWebhookReceiver({ secret: SECRET });
}, 30_000);
afterAll(async () => {
  await smtp?.close();
  await hooks?.close();
});
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
});

function notifyYaml(to: string): string {
  return [
    'notify:',
    `  email: { smtp: ${JSON.stringify(smtp.url)}, user: loopdeck, password: "env:${PASSWORD_VAR}", from: "Loopdeck <loopdeck@example.com>", to: [ops@example.com] }`,
    `  webhooks: [{ url: ${JSON.stringify(hooks.url)}, secret: "env:${SECRET_VAR}" }]`,
    `digest: { at: "07:30", timezone: Europe/Berlin, to: ${to} }`,
    '',
  ].join('\n');
}

/** A night whose remediate failed (something to say), or one that went well (nothing to say). */
function night(failed: boolean, to = '[email, webhooks]'): RunnerFixture {
  const fx = createRunnerFixture(notifyYaml(to));
  fx.write(DAY, 'audit.status', `audit ${DAY}T00:00:00+00:00 STARTED\naudit ${DAY}T00:40:00+00:00 OK\n`);
  fx.write(DAY, 'remediate.status', `remediate ${DAY}T01:00:00+00:00 STARTED\nremediate ${DAY}T02:00:00+00:00 ${failed ? 'FAILED 2' : 'NO-OP'}\n`);
  fx.write(DAY, 'deliver.status', `deliver ${DAY}T03:00:00+00:00 STARTED\ndeliver ${DAY}T03:10:00+00:00 NO-OP\n`);
  return fx;
}

/** The data folder's database keeps the digest of `date` as sent by email (what a restart reads). */
function expectSentByEmail(fx: RunnerFixture, date: string): void {
  const store = Store.open(databasePath(fx.dataDir));
  try {
    expect(JSON.parse(store.getMeta('digest.state') ?? '{}')).toMatchObject({ date, sent: { email: expect.any(String) } });
  } finally {
    store.close();
  }
}

/**
 * The fixture read by the core as serve runs it, and a digest service over that state and a store.
 * The core sends its own digest on its notices' tick only when `coreSends`: otherwise a tick that
 * came while a test's service sent (on the same clock, to the same servers) would be a second mail.
 */
async function open(fx: RunnerFixture, coreSends = false): Promise<{ session: Session; service: (store: Store) => DigestService }> {
  const text = readFileSync(fx.configPath, 'utf8');
  const stateConfig = join(fx.dir, 'state.yaml');
  writeFileSync(stateConfig, text.split('\n').filter((line) => !line.startsWith('digest:')).join('\n'));
  const session = createSession({ configPath: coreSends ? fx.configPath : stateConfig, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now });
  sessions.push(session);
  await session.start();
  await session.pollOnce();
  const config = parseConfig(fx.configPath, text);
  const digest = config.digest;
  if (!digest) throw new Error('no digest in the config');
  const service = (store: Store): DigestService =>
    new DigestService({ digest, notify: config.notify, store, now, review: (at) => buildReviewSummary(session.snapshot(), { now: at.getTime() }), consoleUrl: () => 'http://127.0.0.1:4999/' });
  return { session, service };
}

const mailsTo = (n: number) => smtp.messages.slice(n);

describe('the morning digest', () => {
  it('arrives once at its minute by email and webhook, and not again after a restart; the next day again', async () => {
    const fx = night(true);
    const { service } = await open(fx);
    const file = join(fx.dir, 'digest.db');
    let store = Store.open(file);
    let digest = service(store);
    const mails = smtp.messages.length;
    const posts = hooks.received.length;
    t = AT - 1000;
    await digest.tick();
    expect(smtp.messages.length - mails).toBe(0);
    expect(hooks.received.length - posts).toBe(0);
    t = AT;
    await digest.tick();
    const [mail] = mailsTo(mails);
    expect(mailsTo(mails)).toHaveLength(1);
    expect(mail?.user).toBe('loopdeck');
    expect(mail?.to).toEqual(['ops@example.com']);
    expect(mail?.subject).toMatch(/^Loopdeck 2026-12-07: 1 of 1 loop need attention/);
    expect(mail?.text).toContain('\n## Waiting on you\n');
    expect(mail?.text).toContain('\n## Broken contract\n');
    expect(mail?.text).toContain('http://127.0.0.1:4999/#/review');
    const hook = hooks.received.slice(posts);
    expect(hook).toHaveLength(1);
    expect(hook[0]?.verified).toMatchObject({ ok: true, payload: { type: 'loopdeck.digest', data: { quiet: false, url: 'http://127.0.0.1:4999/#/review' } } });
    t = AT + 60_000;
    await digest.tick();
    // A restart: a new service over the same database file.
    store.close();
    store = Store.open(file);
    digest = service(store);
    t = AT + 10 * 60_000;
    await digest.tick();
    expect(smtp.messages.length - mails).toBe(1);
    expect(hooks.received.length - posts).toBe(1);
    expect(digest.state()).toMatchObject({ date: DAY, failed: {} });
    t = AT + 86_400_000;
    await digest.tick();
    expect(smtp.messages.length - mails).toBe(2);
    expect(hooks.received.length - posts).toBe(2);
    expect(mailsTo(mails)[1]?.subject).toMatch(/^Loopdeck 2026-12-08:/);
    store.close();
  }, 60_000);

  it('tries a sink that failed again after a minute, and does not send the one that worked twice', async () => {
    const fx = night(true);
    const { service } = await open(fx);
    const store = Store.open(join(fx.dir, 'digest.db'));
    const digest = service(store);
    const mails = smtp.messages.length;
    const posts = hooks.received.length;
    hooks.answer(500);
    t = AT;
    await digest.tick();
    expect(smtp.messages.length - mails).toBe(1);
    expect(hooks.received.slice(posts).map((h) => h.status)).toEqual([500]);
    expect(digest.state()?.failed.webhooks).toMatchObject({ attempts: 1, error: expect.stringContaining('answered 500') });
    t = AT + DIGEST_RETRY_MS / 2;
    await digest.tick();
    expect(hooks.received.length - posts).toBe(1);
    t = AT + DIGEST_RETRY_MS + 1000;
    await digest.tick();
    expect(hooks.received.slice(posts).map((h) => h.status)).toEqual([500, 200]);
    expect(smtp.messages.length - mails).toBe(1);
    expect(digest.state()?.failed).toEqual({});
    store.close();
  }, 60_000);

  it('says a quiet night in one line, and is not sent late past its grace', async () => {
    const fx = night(false, '[email]');
    const { service } = await open(fx);
    const store = Store.open(join(fx.dir, 'digest.db'));
    const mails = smtp.messages.length;
    // Opened at 21:00, 13½ hours after 07:30: this morning's is not sent now.
    t = AT + 13.5 * 3_600_000;
    await service(store).tick();
    expect(smtp.messages.length - mails).toBe(0);
    // Opened at 09:15 the next morning: that morning's is sent, late.
    t = AT + 86_400_000 + 105 * 60_000;
    await service(store).tick();
    const mail = mailsTo(mails)[0];
    expect(mail?.subject).toBe('Loopdeck 2026-12-08: nothing needs you');
    const body = (mail?.text ?? '').trim();
    expect(body.split('\n')).toHaveLength(1);
    expect(body).toMatch(/^Loopdeck 2026-12-08: nothing needs you — 0 of 1 loop need attention .* http:\/\/127\.0\.0\.1:4999\/#\/review$/);
    store.close();
  }, 60_000);

  it('comes through the core as serve runs it, on its notices\' tick', async () => {
    const fx = night(true, '[email]');
    const mails = smtp.messages.length;
    t = AT + 2 * 86_400_000;
    const { session } = await open(fx, true);
    await until(() => smtp.messages.length > mails, 20_000, 'the digest by email');
    expect(mailsTo(mails)[0]?.subject).toMatch(/^Loopdeck 2026-12-09:/);
    await session.close();
    // What was sent is in the data folder's database: a restart does not send it again.
    const again = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now });
    sessions.push(again);
    await again.start();
    await again.pollOnce();
    expectSentByEmail(fx, '2026-12-09');
    expect(smtp.messages.length - mails).toBe(1);
  }, 60_000);

  it('is kept as sent when the session closes while the relay has yet to answer: the close waits for the send', async () => {
    const fx = night(true, '[email]');
    const mails = smtp.messages.length;
    t = AT + 3 * 86_400_000;
    const release = smtp.hold();
    const { session } = await open(fx, true);
    await until(() => smtp.messages.length > mails, 20_000, 'the digest by email');
    // The relay has the mail but has not answered: the send is in flight when the close begins, and
    // the close waits for it (NoticeTick.stop, notice-tick.test.ts) before the store closes.
    const closing = session.close();
    release();
    await closing;
    expectSentByEmail(fx, '2026-12-10');
    expect(smtp.messages.length - mails).toBe(1);
  }, 60_000);
});

describe('when a digest is due', () => {
  it('follows the time zone across both DST changes, once a local day', () => {
    const at = (day: string, time: string) => digestOccurrences({ at: time, timezone: 'Europe/Berlin' }, Date.parse(day)).latest;
    // 07:30 is 06:30Z in winter and 05:30Z in summer.
    expect(new Date(at('2026-03-28T12:00:00Z', '07:30')).toISOString()).toBe('2026-03-28T06:30:00.000Z');
    expect(new Date(at('2026-03-29T12:00:00Z', '07:30')).toISOString()).toBe('2026-03-29T05:30:00.000Z');
    expect(new Date(at('2026-10-25T12:00:00Z', '07:30')).toISOString()).toBe('2026-10-25T06:30:00.000Z');
    // 02:30 does not exist on 29 March: the digest comes at the first minute after the gap (03:30 CEST).
    expect(new Date(at('2026-03-29T12:00:00Z', '02:30')).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    // 02:30 comes twice on 25 October: the same local date, so one digest.
    const first = at('2026-10-25T00:45:00Z', '02:30');
    const second = at('2026-10-25T01:45:00Z', '02:30');
    expect(localDate(first, 'Europe/Berlin')).toBe('2026-10-25');
    expect(localDate(second, 'Europe/Berlin')).toBe('2026-10-25');
    // Asked a second before its minute, the next one is that minute.
    expect(digestOccurrences({ at: '07:30', timezone: 'Europe/Berlin' }, AT - 1000).next).toBe(AT);
  });
});
