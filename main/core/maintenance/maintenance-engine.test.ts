import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Notice } from '../../../shared/domain';
import type { Session } from '../session/session';
import { startPushoverTestServer, type PushoverTestServer } from '../../../testing/pushover-test-server';
import type { RunnerFixture } from '../../../testing/runner-fixture';
import { maintenanceNight, openServeSession, stamp } from '../../../testing/maintenance-night';
import { until } from '../../../testing/until';

// The whole path with real parts: runner folders followed by the app core as serve runs it, a real
// SQLite file in its data folder, and the Pushover test server. A phase that fails inside a
// maintenance window in its loop's scope is recorded and shown as silenced, handed to no sink;
// when the window ends it is delivered once if it still failed, not at all if it cleared, and a
// restart delivers neither again. A loop outside the window's scope is the fence: its notices go
// out at once, so waiting for them shows what the held ones did not do.

const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const DATE = '2026-11-29';
const AUDIT = `phase:reliability:${DATE}:audit:failed`;
const REMEDIATE = `phase:reliability:${DATE}:remediate:failed`;

let pushover: PushoverTestServer;
let core: Session | null = null;
let t = Date.parse('2026-11-29T00:30:00Z');
const now = (): Date => new Date(t);

beforeAll(async () => {
  pushover = await startPushoverTestServer({ token: TOKEN, user: USER });
}, 30_000);
afterAll(async () => {
  await pushover?.close();
});
afterEach(async () => {
  await core?.close();
  core = null;
});

const titled = (title: string): number => pushover.messages.filter((m) => m.fields.title === title).length;

/** The reliability loop (in the window's scope) and a testing loop beside it (not), with Pushover and one window. */
function fixture(): ReturnType<typeof maintenanceNight> {
  // The nightly loop fires at 01:30, inside the window: last night's cycle ran, tonight's never comes.
  return maintenanceNight(
    `notify:\n  pushover: { user: ${USER}, token: ${TOKEN}, baseUrl: ${JSON.stringify(pushover.url)} }\n` +
      'maintenance:\n  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T03:00:00Z", reason: kernel upgrade, loops: [reliability, nightly] }\n',
  );
}

const open = (fx: RunnerFixture): Promise<Session> => openServeSession(fx, now);

const notice = (s: Session, key: string): Notice | undefined => s.snapshot().notices.find((n) => n.key === key);

describe('a maintenance window holds the notices in its scope', () => {
  it('records a failure inside the window as silenced, keeps it held across a restart, delivers it once after the window if it still fails, never one that cleared, and not again after a restart', async () => {
    t = Date.parse('2026-11-29T00:30:00Z');
    const { fx, testing } = fixture();
    // Tonight's cycles have begun (the dead-man is content); the first start lists them as history.
    fx.write(DATE, 'audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED'));
    testing('audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED'));
    core = await open(fx);
    expect(core.snapshot().notices).toEqual([]);

    // Inside the window: reliability's audit and remediate fail, and so does testing's audit.
    t = Date.parse('2026-11-29T01:10:00Z');
    fx.write(DATE, 'audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED') + stamp('audit', '2026-11-29T01:05:00+00:00', 'FAILED 2'));
    fx.write(DATE, 'remediate.status', stamp('remediate', '2026-11-29T01:06:00+00:00', 'STARTED') + stamp('remediate', '2026-11-29T01:09:00+00:00', 'FAILED 1'));
    testing('audit.status', stamp('audit', '2026-11-29T00:30:00+00:00', 'STARTED') + stamp('audit', '2026-11-29T01:05:00+00:00', 'FAILED 2'));
    await core.pollOnce();
    const held = { reason: 'kernel upgrade', until: '2026-11-29T03:00:00.000Z', state: 'held' };
    expect(notice(core, AUDIT)?.silenced).toEqual(held);
    expect(notice(core, REMEDIATE)?.silenced).toEqual(held);
    expect(notice(core, `phase:testing:${DATE}:audit:failed`)?.silenced ?? null).toBeNull();
    // Testing's failure went out; reliability's did not.
    await until(() => titled('testing audit failed') === 1, 15_000, "Pushover to get testing's failure");
    expect(titled('reliability audit failed') + titled('reliability remediate failed')).toBe(0);

    // A restart inside the window keeps them held.
    await core.close();
    t = Date.parse('2026-11-29T01:30:00Z');
    core = await open(fx);
    expect(notice(core, AUDIT)?.silenced).toEqual(held);

    // Still inside: remediate is run again and passes. Audit still fails.
    t = Date.parse('2026-11-29T02:00:00Z');
    fx.write(
      DATE,
      'remediate.status',
      stamp('remediate', '2026-11-29T01:06:00+00:00', 'STARTED') + stamp('remediate', '2026-11-29T01:09:00+00:00', 'FAILED 1') + stamp('remediate', '2026-11-29T01:30:00+00:00', 'STARTED') + stamp('remediate', '2026-11-29T01:50:00+00:00', 'OK'),
    );
    await core.pollOnce();
    expect(notice(core, REMEDIATE)?.silenced?.state).toBe('held');

    // The window has ended: the audit failure, still failing, is delivered once; the cleared remediate is not.
    t = Date.parse('2026-11-29T03:00:01Z');
    await core.pollOnce();
    expect(notice(core, AUDIT)?.silenced).toEqual({ ...held, state: 'delivered' });
    expect(notice(core, REMEDIATE)?.silenced).toEqual({ ...held, state: 'cleared' });
    await until(() => titled('reliability audit failed') === 1, 15_000, "Pushover to get reliability's audit failure after the window");
    t += 10_000;
    await core.pollOnce();
    await core.close();

    // A restart on the same SQLite file: nothing held is delivered again.
    t = Date.parse('2026-11-29T03:05:00Z');
    core = await open(fx);
    expect(notice(core, AUDIT)?.silenced?.state).toBe('delivered');
    expect(notice(core, REMEDIATE)?.silenced?.state).toBe('cleared');
    // The nightly loop's 01:30 fire fell inside the window: past its grace it is in maintenance, not missed.
    const nightly = core.snapshot().loops.find((l) => l.name === 'nightly')?.deadman;
    expect(nightly).toMatchObject({ state: 'ok', lastFireAt: '2026-11-29T01:30:00.000Z', maintenance: { reason: 'kernel upgrade', until: '2026-11-29T03:00:00.000Z' } });
    expect(nightly?.reason).toMatch(/^in maintenance \(kernel upgrade\): no cycle for 2026-11-29/);
    expect(core.snapshot().notices.filter((n) => n.key.startsWith('deadman:'))).toEqual([]);
    // The fence: testing's remediate fails now, outside any window, and is delivered.
    testing('remediate.status', stamp('remediate', '2026-11-29T03:01:00+00:00', 'STARTED') + stamp('remediate', '2026-11-29T03:04:00+00:00', 'FAILED 1'));
    t += 5_000;
    await core.pollOnce();
    await until(() => titled('testing remediate failed') === 1, 15_000, "Pushover to get testing's remediate failure");
    expect(titled('reliability audit failed')).toBe(1);
    expect(titled('reliability remediate failed')).toBe(0);
    expect(titled('testing audit failed')).toBe(1);
  }, 60_000);
});
