import { afterEach, describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../../../../testing/runner-fixture';
import { until } from '../../../../testing/until';
import { createSession, type Session } from '../../session/session';
import type { TrayState } from './tray-state';
import { watchTrayState } from './tray-watch';
import { TEST_CALLER } from '../../../../testing/callers';

/** An ISO stamp with a UTC offset, as the runner's wrapper writes them. */
const stamp = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
const HOUR = 3_600_000;

describe('watchTrayState over a real app core', () => {
  let core: Session | null = null;
  let stop: (() => void) | null = null;
  afterEach(async () => {
    stop?.();
    await core?.close();
    core = null;
  });

  it('follows a failing phase and its notice, and the count falls when the notice is acknowledged', async () => {
    const fixture = createRunnerFixture();
    const now = Date.now();
    const date = new Date(now).toISOString().slice(0, 10);
    fixture.write(date, 'audit.status', `audit ${stamp(new Date(now - 3 * HOUR))} STARTED\naudit ${stamp(new Date(now - 2 * HOUR))} OK\n`);
    fixture.write(date, 'remediate.status', `remediate ${stamp(new Date(now - 2 * HOUR))} STARTED\n`);
    core = createSession({ configPath: fixture.configPath, dataDir: fixture.dataDir, shell: 'electron', pollMs: 60_000 });
    const c = core;
    const states: TrayState[] = [];
    // Before the config loads: no engine, an ok tray, said once.
    stop = watchTrayState(c, (s) => states.push(s));
    expect(states).toEqual([{ level: 'ok', count: 0, reasons: [], tooltip: 'Loopdeck: ok' }]);
    await c.start();
    await c.pollOnce();
    await c.pollOnce();
    await until(() => c.liveState()?.loops[0]?.cycles[0]?.status === 'running', 10_000, 'the running cycle');
    expect(states.at(-1)?.level).toBe('ok');
    const quiet = states.length;

    // A poll that changes nothing does not touch the tray.
    await c.pollOnce();
    await new Promise((r) => setImmediate(r));
    expect(states).toHaveLength(quiet);

    fixture.append(date, 'remediate.status', `remediate ${stamp(new Date())} FAILED 1\n`);
    await c.pollOnce();
    await until(() => states.at(-1)?.count === 1, 10_000, 'the failed phase’s notice on the tray');
    expect(states.at(-1)).toMatchObject({ level: 'failing', count: 1, tooltip: `Loopdeck: failing · 1 notice to acknowledge · reliability ${date} failed` });

    const key = c.liveState()?.notices().find((n) => n.acknowledgedAt === null && n.priority >= 1)?.key;
    expect(key).toBe(`phase:reliability:${date}:remediate:failed`);
    await c.handlers['notices.ack']({ key: key ?? '' }, TEST_CALLER);
    await until(() => states.at(-1)?.count === 0, 10_000, 'the count to fall after the acknowledgement');
    // Acknowledged is not fixed: the newest cycle still failed.
    expect(states.at(-1)).toMatchObject({ level: 'failing', count: 0, tooltip: `Loopdeck: failing · reliability ${date} failed` });
  });
});
