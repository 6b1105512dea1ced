import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { createSession, type Session } from '../session/session';
import { startAlertmanager, type TestAlertmanager } from '../../../testing/alertmanager';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { until } from '../../../testing/until';
import { AlertmanagerSilences } from './alertmanager-silences';
import { MaintenanceSchedule } from './maintenance-schedule';

// A real Alertmanager (0.25, on loopback) gets a silence for each maintenance window's occurrence:
// the scope's matchers, the occurrence's start and end, the reason as its comment, created by
// loopdeck; once per occurrence, across ticks and restarts (a real SQLite file keeps what was posted).

interface ListedSilence {
  readonly id: string;
  readonly matchers: readonly { name: string; value: string; isRegex: boolean; isEqual?: boolean }[];
  readonly startsAt: string;
  readonly endsAt: string;
  readonly createdBy: string;
  readonly comment: string;
  readonly status: { readonly state: 'active' | 'pending' | 'expired' };
}

let am: TestAlertmanager;
let core: Session | null = null;

beforeAll(async () => {
  am = await startAlertmanager();
}, 30_000);
afterAll(async () => {
  await am?.stop();
});
afterEach(async () => {
  await core?.close();
  core = null;
});

async function silences(comment: string): Promise<ListedSilence[]> {
  const res = await fetch(`${am.url}/api/v2/silences`);
  if (!res.ok) throw new Error(`Alertmanager GET /api/v2/silences: HTTP ${res.status}`);
  return ((await res.json()) as ListedSilence[]).filter((s) => s.comment === comment).sort((a, b) => (a.matchers[0]?.name ?? '').localeCompare(b.matchers[0]?.name ?? ''));
}

const iso = (ms: number): string => new Date(ms).toISOString();
const HOUR = 3_600_000;

describe('maintenance silences in Alertmanager', () => {
  it('posts one silence per kind of name in the scope and one for an unscoped window, once per occurrence, across ticks and a restart', async () => {
    const nowMs = Date.now();
    const start = nowMs - 10 * 60_000;
    const end = nowMs + HOUR;
    const hourStart = Math.floor(nowMs / HOUR) * HOUR;
    const cfg = parseConfig(
      '/c.yaml',
      `hosts: { runner: { local: true }, gpu: { local: true } }
loops: { reliability: { host: runner, runs: /tmp/r } }
proxies: { crossbar: { host: gpu, kind: crossbar, url: "http://127.0.0.1:8080" }, "gw.1": { host: runner, kind: gateway, url: "http://127.0.0.1:8081" } }
maintenance:
  - { start: "${iso(start)}", end: "${iso(end)}", reason: unit kernel upgrade, loops: [reliability], hosts: [gpu], proxies: [gw.1] }
  - { every: "0 * * * *", for: 2h, reason: unit all hands }
`,
    );
    const file = join(mkdtempSync(join(tmpdir(), 'ld-silences-')), 'loopdeck.db');
    let store = Store.open(file);
    const schedule = new MaintenanceSchedule(cfg.maintenance, cfg);
    // One moment for every tick (an hour turning between two would begin the next occurrence).
    const make = () => new AlertmanagerSilences({ url: am.url, store, schedule, now: () => new Date(nowMs) });
    await make().tick();

    const scoped = await silences('unit kernel upgrade');
    expect(scoped.map((s) => [s.matchers, s.createdBy, s.status.state])).toEqual([
      [[{ name: 'host', value: 'gpu', isRegex: false, isEqual: true }], 'loopdeck', 'active'],
      [[{ name: 'loop', value: 'reliability', isRegex: false, isEqual: true }], 'loopdeck', 'active'],
      // The proxy named, and the one reached through the host named (a regex of both, its dot escaped).
      [[{ name: 'proxy', value: 'gw\\.1|crossbar', isRegex: true, isEqual: true }], 'loopdeck', 'active'],
    ]);
    for (const s of scoped) expect(Date.parse(s.endsAt)).toBe(end);
    const all = await silences('unit all hands');
    expect(all.map((s) => s.matchers)).toEqual([[{ name: 'key', value: '.+', isRegex: true, isEqual: true }]]);
    expect(Date.parse(all[0]?.endsAt ?? '')).toBe(hourStart + 2 * HOUR);

    // Again, and after a restart on the same SQLite file: nothing is posted twice.
    await make().tick();
    store.close();
    store = Store.open(file);
    await make().tick();
    store.close();
    expect((await silences('unit kernel upgrade')).length).toBe(3);
    expect((await silences('unit all hands')).length).toBe(1);
  }, 30_000);

  it('is posted by a running Loopdeck when a window in its config is in force', async () => {
    const start = Date.now() - 60_000;
    const fx = createRunnerFixture(
      `notify:\n  alertmanager: { url: ${JSON.stringify(am.url)} }\n` +
        `maintenance:\n  - { start: "${iso(start)}", end: "${iso(start + 2 * HOUR)}", reason: session runner swap, hosts: [runner] }\n`,
    );
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    await core.start();
    await core.pollOnce();
    await until(async () => (await silences('session runner swap')).length > 0, 20_000, 'Alertmanager to hold the silence');
    const [s] = await silences('session runner swap');
    expect(s).toMatchObject({ createdBy: 'loopdeck', matchers: [{ name: 'host', value: 'runner', isRegex: false }] });
    expect(Date.parse(s?.endsAt ?? '')).toBe(start + 2 * HOUR);
  }, 40_000);
});
