import { afterEach, describe, expect, it } from 'vitest';
import type { Capacity, Notice } from '../../../shared/domain';
import { fleetIncidents } from '../../../shared/fleet-incidents';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { startFleetStatusServer, type FleetStatusServer } from '../../../testing/fleet-status-server';
import { until } from '../../../testing/until';
import { createSession, type Session } from '../session/session';

// The fleet incidents with real parts: a real HTTP server speaking crossbar's admin API and the
// gateway's `/v1/ops/status`, polled by the session's own engine (its capacity service, the
// stored samples and the error window over them), derived into the snapshot and raised as notices.

let core: Session | null = null;
let fleet: FleetStatusServer | null = null;
afterEach(async () => {
  await core?.close();
  core = null;
  await fleet?.close();
  fleet = null;
});

const incidents = (caps: readonly Capacity[]): string[] => fleetIncidents(caps).map((i) => `${i.proxy}/${i.host} ${i.kind}`).sort();

describe('fleet incidents through the engine', () => {
  it('a 5xx burst, a heap near its limit and a shed threshold far above the fleet are in the snapshot and raised as notices, once per episode', async () => {
    fleet = await startFleetStatusServer(
      [
        { name: 'gpu-a', slots: 4, requests: { '200': 1000 } },
        { name: 'gpu-b', slots: 4, requests: { '200': 800 } },
      ],
      {
        inflight_requests: 3,
        inflight_high_water: 15,
        total_shed: 0,
        heap_size_limit_mb: 4144,
        heap_utilization_pct: 40,
        max_inflight_requests: 10,
        requests_total: 5000,
        responses_by_status: { '200': 5000 },
      },
    );
    const fx = createRunnerFixture(
      [
        'proxies:',
        `  xb: { host: runner, kind: crossbar, url: "${fleet.url}", every: 250ms }`,
        `  gw: { host: runner, kind: gateway, url: "${fleet.url}", every: 250ms, incidents: { fleet: xb } }`,
        '',
      ].join('\n'),
    );
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    core.setConsoleUrl('http://127.0.0.1:7777/');
    const raised: Notice[] = [];
    core.subscribe((...[event, payload]) => {
      if (event === 'notice.raised') raised.push(payload.notice);
    });
    await core.start();
    const session = core;
    const caps = (): Capacity[] => [...session.snapshot().capacity];
    const cap = (proxy: string, host: string): Capacity | undefined => caps().find((c) => c.proxy === proxy && c.host === host);
    // Two polls of each: the counters have a delta, a healthy one.
    await until(() => cap('xb', 'gpu-a')?.errorShare != null && cap('gw', 'gw')?.errorShare != null, 10_000, 'counted polls of both proxies');
    await session.pollOnce(); // the first derivation on a fresh database lists what it finds without alerting
    expect(incidents(caps())).toEqual([]);
    expect(cap('gw', 'gw')).toMatchObject({ heapUtilizationPct: 40, heapSizeLimitMb: 4144, limits: { fleet: 'xb', shedFactor: 2, errorPct: 5, errorMinRequests: 20, heapPct: 85 } });

    // The burst: gpu-a answers 40 of 150 new requests with 502 (and 10 with 400, the client's doing);
    // the gateway 504s 30 of 130, its heap climbs to 92 % and its threshold is raised to 80.
    const [gpuA] = fleet.backends;
    if (gpuA) gpuA.requests = { '200': 1100, '502': 40, '400': 10 };
    Object.assign(fleet.gateway, { heap_utilization_pct: 92, max_inflight_requests: 80, requests_total: 5130, responses_by_status: { '200': 5100, '504': 30 } });
    await until(() => incidents(caps()).length === 4, 10_000, 'four incidents in the snapshot');
    expect(incidents(caps())).toEqual(['gw/gw error-burst', 'gw/gw heap', 'gw/gw shed-threshold', 'xb/gpu-a error-burst']);
    expect(cap('xb', 'gpu-a')?.errorShare).toEqual({ errors: 40, requests: 150, windowMs: 900_000 });
    expect(cap('xb', 'gpu-b')?.errorShare).toEqual({ errors: 0, requests: 0, windowMs: 900_000 });
    const shed = fleetIncidents(caps()).find((i) => i.kind === 'shed-threshold');
    expect(shed?.detail).toBe('shed threshold 80 is over 2× the 8 slots of fleet xb: load shedding cannot engage before the backend fails; nothing has been shed. Lower it to about 8.');

    const keys = (): string[] => raised.map((n) => n.key);
    const has = (prefix: string): boolean => keys().some((k) => k.startsWith(prefix));
    await until(async () => (await session.pollOnce(), ['fleet:xb:gpu-a:error-burst:', 'fleet:gw:gw:error-burst:', 'fleet:gw:gw:heap:', 'fleet:gw:gw:shed-threshold:'].every(has)), 10_000, 'the four notices');
    const burst = raised.find((n) => n.key.startsWith('fleet:xb:gpu-a:error-burst:'));
    expect(burst).toMatchObject({
      priority: 1,
      source: 'proxy:xb',
      title: 'xb/gpu-a: error burst',
      url: 'http://127.0.0.1:7777/#/capacity',
      message: expect.stringMatching(/^xb\/gpu-a: 40 of 150 requests \(26\.7 %\) failed with a server error in the last 15 min; the threshold is 5 %\. Since 20\d\d-/) as unknown,
    });
    expect(raised.find((n) => n.key.startsWith('fleet:gw:gw:heap:'))).toMatchObject({ priority: 1, title: 'gw: heap near its limit' });
    expect(raised.find((n) => n.key.startsWith('fleet:gw:gw:shed-threshold:'))).toMatchObject({ priority: 0, title: 'gw: shed threshold above capacity' });
    // Derived again while it lasts, never raised again.
    await session.pollOnce();
    await session.pollOnce();
    expect(keys().filter((k) => k.startsWith('fleet:')).length).toBe(4);

    // The heap clears: the incident leaves the snapshot; when it comes back it is a new episode, a new notice.
    const heapKey = keys().find((k) => k.startsWith('fleet:gw:gw:heap:'));
    fleet.gateway.heap_utilization_pct = 50;
    await until(async () => (await session.pollOnce(), !incidents(caps()).includes('gw/gw heap')), 10_000, 'the heap incident to clear');
    fleet.gateway.heap_utilization_pct = 96;
    await until(async () => (await session.pollOnce(), keys().filter((k) => k.startsWith('fleet:gw:gw:heap:')).length === 2), 10_000, 'a second heap episode');
    expect(keys().filter((k) => k.startsWith('fleet:gw:gw:heap:'))[1]).not.toBe(heapKey);
  }, 60_000);
});
