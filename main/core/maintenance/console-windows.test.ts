import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/domain';
import type { Caller } from '../../../shared/roles';
import type { EventPayload } from '../../../shared/contract';
import { dispatch } from '../../rpc/dispatch';
import type { Session } from '../session/session';
import { startAlertmanager, type TestAlertmanager } from '../../../testing/alertmanager';
import { startPushoverTestServer, type PushoverTestServer } from '../../../testing/pushover-test-server';
import type { RunnerFixture } from '../../../testing/runner-fixture';
import { maintenanceNight, openServeSession, stamp } from '../../../testing/maintenance-night';
import { until } from '../../../testing/until';

// Maintenance windows planned in the console (issue "The operator's week", item 1, "and, for an
// operator or admin, from the console"), with real parts: the app core as serve runs it on a real
// SQLite file, its commands dispatched as the transports do (roles checked there), the Pushover
// test server, and a real Alertmanager. A window added in the console holds a failure in its
// scope like a config window, survives a restart, and silences Alertmanager; ending it delivers
// what still fails once and expires the silence. The testing loop, outside the scope, is the fence.

const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const DATE = '2026-11-29';
const AUDIT = `phase:reliability:${DATE}:audit:failed`;
const OPERATOR: Caller = { user: 'ops-ana', role: 'operator', via: 'oidc' };
const VIEWER: Caller = { user: 'vic', role: 'viewer', via: 'oidc' };

let pushover: PushoverTestServer;
let am: TestAlertmanager;
let core: Session | null = null;
let t = Date.parse('2026-11-29T00:30:00Z');
const now = (): Date => new Date(t);

beforeAll(async () => {
  [pushover, am] = await Promise.all([startPushoverTestServer({ token: TOKEN, user: USER }), startAlertmanager()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([pushover?.close(), am?.stop()]);
});
afterEach(async () => {
  await core?.close();
  core = null;
});

const titled = (title: string): number => pushover.messages.filter((m) => m.fields.title === title).length;

function fixture(alertmanager = false): ReturnType<typeof maintenanceNight> {
  return maintenanceNight(
    `notify:\n  pushover: { user: ${USER}, token: ${TOKEN}, baseUrl: ${JSON.stringify(pushover.url)} }\n${alertmanager ? `  alertmanager: { url: ${JSON.stringify(am.url)} }\n` : ''}` +
      'maintenance:\n  - { every: "0 12 * * *", for: 1h, timezone: UTC, reason: lunch backup, hosts: [runner] }\n',
  );
}

const open = (fx: RunnerFixture): Promise<Session> => openServeSession(fx, now);

const notice = (s: Session, key: string): Notice | undefined => s.snapshot().notices.find((n) => n.key === key);

async function silences(comment: string): Promise<{ id: string; status: { state: string }; endsAt: string }[]> {
  const res = await fetch(`${am.url}/api/v2/silences`);
  return ((await res.json()) as { id: string; comment: string; status: { state: string }; endsAt: string }[]).filter((s) => s.comment === comment);
}

describe('maintenance windows from the console', () => {
  it('refuses a viewer on the server, refuses a bad window naming its field, and names a config window as the config’s', async () => {
    t = Date.parse('2026-11-29T00:30:00Z');
    const { fx } = fixture();
    core = await open(fx);
    const window = { start: '2026-11-29T01:00:00Z', end: '2026-11-29T03:00:00Z', reason: 'kernel upgrade', loops: ['reliability'] };
    expect(await dispatch(core.handlers, 'maintenance.add', { window }, VIEWER)).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403, message: 'maintenance.add needs the operator role; vic is a viewer.' } });
    expect(await dispatch(core.handlers, 'maintenance.end', { id: 'c0123' }, VIEWER)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const refused = async (w: unknown): Promise<string> => {
      const r = await dispatch(core!.handlers, 'maintenance.add', { window: w }, OPERATOR);
      if (r.ok) throw new Error('added');
      return r.error.message;
    };
    expect(await refused({ ...window, end: '2026-11-29T00:59:00Z' })).toContain('window.end: expected a time after start');
    expect(await refused({ ...window, start: '2026-11-29 01:00' })).toContain('window.start: expected an ISO time with its offset');
    expect(await refused({ ...window, loops: ['reliabilty'] })).toContain('window.loops.0: loop "reliabilty" is not declared under loops (declared: reliability, testing, nightly)');
    expect(await refused({ every: '0 2 * *', for: '1h', reason: 'x' })).toContain('window.every: expected a five-field cron');
    expect(await refused({ start: '2026-11-28T01:00:00Z', end: '2026-11-28T03:00:00Z', reason: 'yesterday' })).toContain('window.end: it is over already');
    expect(await refused({ ...window, reason: ' ' })).toContain('window.reason');
    // None of them was kept; the config's window is listed, and cannot be ended here.
    const [configured] = core.snapshot().maintenance ?? [];
    expect(core.snapshot().maintenance).toHaveLength(1);
    expect(configured).toMatchObject({ source: 'config', reason: 'lunch backup', hosts: ['runner'], kind: 'every', current: null, next: { start: '2026-11-29T12:00:00.000Z', end: '2026-11-29T13:00:00.000Z' } });
    const end = await dispatch(core.handlers, 'maintenance.end', { id: configured?.id ?? '' }, OPERATOR);
    expect(end).toMatchObject({ ok: false, error: { message: expect.stringContaining("comes from the config's maintenance: section") } });
  }, 60_000);

  it('holds a failure in its scope like a config window, across a restart, and a missed fire it covers; ended, what still fails is delivered once, at once', async () => {
    t = Date.parse('2026-11-29T00:30:00Z');
    const { fx, testing } = fixture();
    fx.write(DATE, 'audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED'));
    testing('audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED'));
    core = await open(fx);
    const published: EventPayload<'maintenance.changed'>[] = [];
    core.subscribe((...[event, payload]) => {
      if (event === 'maintenance.changed') published.push(payload);
    });

    // An operator plans tonight's kernel upgrade, 01:00–05:00, for the reliability loop.
    t = Date.parse('2026-11-29T00:50:00Z');
    const added = await dispatch(core.handlers, 'maintenance.add', { window: { start: '2026-11-29T01:00:00Z', end: '2026-11-29T05:00:00Z', reason: 'console kernel upgrade', loops: ['reliability'] } }, OPERATOR);
    if (!added.ok) throw new Error(added.error.message);
    const { id } = added.output as { id: string };
    const listed = (s: Session) => s.snapshot().maintenance?.find((w) => w.id === id);
    expect(listed(core)).toMatchObject({ source: 'console', createdBy: 'ops-ana', createdAt: '2026-11-29T00:50:00.000Z', reason: 'console kernel upgrade', loops: ['reliability'], current: null, next: { start: '2026-11-29T01:00:00.000Z', end: '2026-11-29T05:00:00.000Z' } });
    expect(published.at(-1)?.maintenance.map((w) => w.id)).toContain(id);

    // Inside it: reliability's audit fails (held), and so does testing's (delivered: the fence).
    t = Date.parse('2026-11-29T01:10:00Z');
    fx.write(DATE, 'audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED') + stamp('audit', '2026-11-29T01:05:00+00:00', 'FAILED 2'));
    testing('audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED') + stamp('audit', '2026-11-29T01:05:00+00:00', 'FAILED 2'));
    await core.pollOnce();
    expect(notice(core, AUDIT)?.silenced).toEqual({ reason: 'console kernel upgrade', until: '2026-11-29T05:00:00.000Z', state: 'held' });
    await until(() => titled('testing audit failed') === 1, 15_000, "Pushover to get testing's failure");
    expect(titled('reliability audit failed')).toBe(0);
    // The notices' tick publishes the list again once the window began, and Alertmanager holds its silence.
    await until(() => published.some((p) => p.maintenance.some((w) => w.id === id && w.current !== null)), 30_000, "the list to say the window is in force (the notices' 5-s tick publishes it)");
    // The nightly loop's 01:30 fire is outside this window's scope: past its grace it is missed.
    t = Date.parse('2026-11-29T02:40:00Z');
    await core.pollOnce();
    expect(core.snapshot().loops.find((l) => l.name === 'nightly')?.deadman?.state).toBe('missed');

    // A restart keeps the window (the store) and the hold.
    await core.close();
    core = await open(fx);
    expect(listed(core)).toMatchObject({ source: 'console', current: { start: '2026-11-29T01:00:00.000Z', end: '2026-11-29T05:00:00.000Z' } });
    expect(notice(core, AUDIT)?.silenced?.state).toBe('held');

    // A second window for the nightly loop, added now, covers its 01:30 fire: no longer missed.
    const nightly = await dispatch(core.handlers, 'maintenance.add', { window: { start: '2026-11-29T01:00:00Z', end: '2026-11-29T04:00:00Z', reason: 'console nightly paused', loops: ['nightly'] } }, OPERATOR);
    expect(nightly.ok).toBe(true);
    await core.pollOnce();
    expect(core.snapshot().loops.find((l) => l.name === 'nightly')?.deadman).toMatchObject({ state: 'ok', maintenance: { reason: 'console nightly paused', until: '2026-11-29T04:00:00.000Z' } });

    // The upgrade is done early: the operator ends the window at 03:00. The audit still fails:
    // it is delivered once, now, not at 05:00.
    t = Date.parse('2026-11-29T03:00:00Z');
    const ended = await dispatch(core.handlers, 'maintenance.end', { id }, OPERATOR);
    expect(ended).toEqual({ ok: true, output: { endedAt: '2026-11-29T03:00:00.000Z' } });
    expect(listed(core)).toBeUndefined();
    t += 1_000;
    await core.pollOnce();
    expect(notice(core, AUDIT)?.silenced).toMatchObject({ reason: 'console kernel upgrade', state: 'delivered' });
    await until(() => titled('reliability audit failed') === 1, 15_000, "Pushover to get reliability's failure once the window was ended");
    // Ending it again is refused, naming why.
    const again = await dispatch(core.handlers, 'maintenance.end', { id }, OPERATOR);
    expect(again).toMatchObject({ ok: false, error: { message: expect.stringContaining(`No maintenance window ${id} that the console added is in force or planned`) } });

    // A restart: the ended window stays ended, nothing is delivered twice; the fence shows later ticks ran.
    await core.close();
    t = Date.parse('2026-11-29T03:10:00Z');
    core = await open(fx);
    expect(listed(core)).toBeUndefined();
    expect(core.snapshot().maintenance?.map((w) => w.reason)).toEqual(['lunch backup', 'console nightly paused']);
    testing('remediate.status', stamp('remediate', '2026-11-29T03:05:00+00:00', 'STARTED') + stamp('remediate', '2026-11-29T03:08:00+00:00', 'FAILED 1'));
    await core.pollOnce();
    await until(() => titled('testing remediate failed') === 1, 15_000, "Pushover to get testing's remediate failure");
    expect(titled('reliability audit failed')).toBe(1);
  }, 90_000);

  it('gives Alertmanager a silence for a window added, and expires it when the window is ended before its time', async () => {
    // Alertmanager refuses a silence that ends in the past: this one runs on the real clock.
    const { fx } = fixture(true);
    const s = await openServeSession(fx);
    core = s;
    const start = Date.now() - 60_000;
    const window = { start: new Date(start).toISOString(), end: new Date(start + 2 * 3_600_000).toISOString(), reason: 'console runner swap', hosts: ['runner'] };
    const added = await dispatch(s.handlers, 'maintenance.add', { window }, OPERATOR);
    if (!added.ok) throw new Error(added.error.message);
    await until(async () => (await silences('console runner swap')).some((x) => x.status.state === 'active'), 20_000, 'Alertmanager to hold the silence');
    const [silence] = await silences('console runner swap');
    expect(Date.parse(silence?.endsAt ?? '')).toBe(start + 2 * 3_600_000);
    expect((await dispatch(s.handlers, 'maintenance.end', { id: (added.output as { id: string }).id }, OPERATOR)).ok).toBe(true);
    await until(async () => (await silences('console runner swap')).every((x) => x.status.state === 'expired'), 20_000, "Alertmanager to expire the ended window's silence");
    expect(await silences('console runner swap')).toHaveLength(1);
  }, 60_000);
});
