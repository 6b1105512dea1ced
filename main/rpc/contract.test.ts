import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, type LoopdeckBridge } from '../../shared/contract';
import { createAppCore, type AppCore } from '../core/app-core';
import { connectWsBridge } from '../serve/ws-bridge';
import { startServer, type Served } from '../serve/server';
import { createRunnerFixture, type RunnerFixture } from '../testing/runner-fixture';
import { createInMemoryIpcPair } from './ipc-transport';

const DATE = '2026-11-29';

interface Transport {
  readonly bridge: LoopdeckBridge;
  close(): Promise<void>;
}

/** The same contract, over both transports, against a real core following a real folder. */
const transports: ReadonlyArray<readonly [string, (core: AppCore) => Promise<Transport>]> = [
  [
    'Electron IPC (in-memory pair)',
    async (core) => {
      const pair = createInMemoryIpcPair(core.handlers);
      const off = core.subscribe((event, payload) => pair.publish(event, payload));
      return { bridge: pair.bridge, close: async () => (off(), pair.close()) };
    },
  ],
  [
    'WebSocket (serve mode)',
    async (core) => {
      const served: Served = await startServer({ core, rendererDir: '/nonexistent' });
      const bridge = await connectWsBridge(served.url);
      return { bridge, close: async () => (bridge.close(), await served.close()) };
    },
  ],
];

describe.each(transports)('contract over %s', (_name, connect) => {
  let fx: RunnerFixture;
  let core: AppCore;
  let t: Transport;

  beforeAll(async () => {
    fx = createRunnerFixture();
    fx.write(DATE, 'audit.status', 'audit 2026-11-29T00:00:04-05:00 STARTED\n');
    core = createAppCore({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: () => new Date('2026-11-29T10:00:00Z') });
    await core.start();
    await core.pollOnce();
    t = await connect(core);
  });

  afterAll(async () => {
    await t.close();
    await core.close();
  });

  it('answers app.info with the output schema', async () => {
    const r = await t.bridge.invoke('app.info', {});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const info = commands['app.info'].output.parse(r.output);
    expect(info.config).toEqual({ state: 'loaded', path: fx.configPath });
  });

  it('answers state.snapshot with the followed loop', async () => {
    const r = await t.bridge.invoke('state.snapshot', {});
    if (!r.ok) throw new Error(r.error.message);
    const snap = commands['state.snapshot'].output.parse(r.output);
    expect(snap.loops[0]?.cycles[0]).toMatchObject({ date: DATE, status: 'running' });
  });

  it('refuses invalid input before a handler sees it, saying where', async () => {
    const r = await t.bridge.invoke('state.snapshot', { everything: true });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    if (!r.ok) expect(r.error.issues?.[0]?.message).toMatch(/everything/);
  });

  it('hosts.untrust validates its input and names a host that has no key to forget', async () => {
    expect(await t.bridge.invoke('hosts.untrust', { host: '' })).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    const r = await t.bridge.invoke('hosts.untrust', { host: 'runner' });
    expect(r).toMatchObject({ ok: false, error: { code: 'handler-failed', message: expect.stringMatching(/Host runner is local/) } });
  });

  it('refuses an unknown command', async () => {
    expect(await t.bridge.invoke('shell.exec', { cmd: 'rm -rf /' })).toMatchObject({ ok: false, error: { code: 'unknown-command' } });
  });

  it('publishes loop.changed with the changed cycle when a followed file grows', async () => {
    const got = new Promise<unknown>((resolve) => {
      const off = t.bridge.on('loop.changed', (payload) => {
        off();
        resolve(payload);
      });
    });
    fx.append(DATE, 'audit.status', 'audit 2026-11-29T00:41:12-05:00 OK\n');
    await core.pollOnce();
    const payload = (await got) as { loop: string; upserted: { date: string; phases: { name: string; status: string }[] }[] };
    expect(payload.loop).toBe('reliability');
    expect(payload.upserted.map((c) => c.date)).toEqual([DATE]);
    expect(payload.upserted[0]?.phases[0]).toMatchObject({ name: 'audit', status: 'ok' });
  });
});
