import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../rpc/dispatch';
import { createSession, type Session } from '../../session/session';
import { createRunnerFixture } from '../../../../testing/runner-fixture';
import { startAlertmanager, startAlertmanagerFront, type AlertmanagerFront, type TestAlertmanager } from '../../../../testing/alertmanager';
import { until } from '../../../../testing/until';
import { TEST_CALLER } from '../../../../testing/callers';

// The whole path with real parts: a runner folder followed by the app core (as serve runs it), a
// real Alertmanager 0.25 on loopback, and a webhook it notifies, firing and resolved.

interface WebhookAlert {
  readonly status: 'firing' | 'resolved';
  readonly labels: Record<string, string>;
}

let am: TestAlertmanager;
let hook: Server;
const notified: WebhookAlert[] = [];
let core: Session | null = null;
let front: AlertmanagerFront | null = null;

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      notified.push(...((JSON.parse(body) as { alerts: WebhookAlert[] }).alerts ?? []));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  am = await startAlertmanager({ webhook: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/` });
}, 30_000);
afterAll(async () => {
  await am?.stop();
  await new Promise((r) => hook.close(r));
});
afterEach(async () => {
  await core?.close();
  core = null;
  await front?.close();
  front = null;
});

const stamp = (phase: string, status: string): string => `${phase} 2026-11-29T01:00:00+00:00 ${status}\n`;

describe('Alertmanager receives the notices of a running Loopdeck', () => {
  it('alerts nothing on a fresh first start, fires a phase failure raised afterwards, and shows it resolved after acknowledgement', async () => {
    front = await startAlertmanagerFront(am.url);
    const fx = createRunnerFixture(`notify:\n  alertmanager: { url: ${JSON.stringify(front.url)} }\n`);
    // History on the first start: a failed audit, listed in Loopdeck but never alerted.
    fx.write('2026-11-29', 'audit.status', stamp('audit', 'STARTED') + stamp('audit', 'FAILED 2'));
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    core.setConsoleUrl('http://127.0.0.1:7777/');
    await core.start();
    await core.pollOnce();
    expect(core.snapshot().notices.map((n) => n.key)).toContain('phase:reliability:2026-11-29:audit:failed');

    // News after the start: the remediate phase fails.
    fx.write('2026-11-29', 'remediate.status', stamp('remediate', 'STARTED') + stamp('remediate', 'FAILED 1'));
    await core.pollOnce();
    const key = 'phase:reliability:2026-11-29:remediate:failed';
    await until(async () => (await am.alerts()).some((a) => a.labels.key === key && a.status.state === 'active'), 15_000, 'Alertmanager to hold the alert');
    const alerts = (await am.alerts()).filter((a) => a.labels.loop === 'reliability');
    expect(alerts.map((a) => a.labels)).toEqual([{ alertname: 'phase-failed', loop: 'reliability', host: 'runner', priority: '1', key }]);
    expect(alerts[0]?.annotations).toMatchObject({ title: 'reliability remediate failed', url: 'http://127.0.0.1:7777/#/loops/reliability/2026-11-29/remediate/log' });
    expect(alerts[0]?.annotations.text).toMatch(/^reliability remediate failed in cycle 2026-11-29 on runner/);
    // The seeded audit failure was never posted at all.
    expect(front.posts.flatMap((p) => p.alerts).map((a) => a.labels.key)).not.toContain('phase:reliability:2026-11-29:audit:failed');
    await until(() => notified.some((a) => a.labels.key === key && a.status === 'firing'), 15_000, 'the webhook to be notified of the firing alert');

    expect(await dispatch(core.handlers, 'notices.ack', { key }, TEST_CALLER)).toMatchObject({ ok: true });
    await until(async () => !(await am.alerts()).some((a) => a.labels.key === key), 15_000, 'Alertmanager to show the alert resolved');
    await until(() => notified.some((a) => a.labels.key === key && a.status === 'resolved'), 15_000, 'the webhook to be notified of the resolve');
    const last = front.posts.flatMap((p) => p.alerts).filter((a) => a.labels.key === key).at(-1);
    expect(Date.parse(last?.endsAt ?? '')).toBeLessThanOrEqual(Date.now());
  }, 60_000);

  it('posts nothing for what a fresh first start listed, then or after a restart', async () => {
    front = await startAlertmanagerFront(am.url);
    const fx = createRunnerFixture(`notify:\n  alertmanager: { url: ${JSON.stringify(front.url)} }\n`);
    for (const date of ['2026-11-27', '2026-11-28', '2026-11-29']) fx.write(date, 'audit.status', stamp('audit', 'FAILED 2'));
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    await core.start();
    await core.pollOnce();
    await core.pollOnce();
    expect(core.snapshot().notices.length).toBeGreaterThanOrEqual(3);
    await core.close();
    // The next start judges the stored notices: the seeded ones are history, not alerts.
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    await core.start();
    await core.pollOnce();
    await core.close();
    core = null;
    expect(front.posts.flatMap((p) => p.alerts)).toEqual([]);
  }, 60_000);
});
