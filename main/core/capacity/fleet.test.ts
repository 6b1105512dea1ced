import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../shared/domain';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import type { SshHost } from '../ssh/ssh-host';
import { httpGet } from '../ssh/http-over-ssh';
import { Store } from '../store/store';
import { CapacityService, type HostFetch, type ProxyConfig } from './capacity-service';
import { startFleetServer, type FleetServer } from '../demo/fleet-server';
import { parsePrometheus } from './sources/prometheus';

const T0 = Date.parse('2026-09-25T01:00:00Z');

interface HostJson {
  name: string;
  up: boolean;
  slots: number;
  inflight: number;
  queued: number;
  n_ctx: number;
}

function proxies(url: string, host: string): Record<string, ProxyConfig> {
  return {
    xb: { host, kind: 'crossbar', url, every: 10_000 },
    gw: { host, kind: 'gateway', url, every: 10_000 },
    'llama-a': { host, kind: 'llama-server', url: `${url}/llama/gpu-a`, every: 10_000 },
    'llama-b': { host, kind: 'llama-server', url: `${url}/llama/gpu-b`, every: 10_000 },
  };
}

const find = (caps: Capacity[], proxy: string, host: string): Capacity | undefined => caps.find((c) => c.proxy === proxy && c.host === host);

/** Poll through `fetch` and check every figure against what the fleet exposes at the same instant. */
async function pollAndCompare(fleet: FleetServer, fetch: HostFetch, clock: { t: number }): Promise<CapacityService> {
  const changes: Capacity[][] = [];
  const svc = new CapacityService({ proxies: proxies(fleet.url, 'fleet'), getFor: () => fetch, store: Store.open(':memory:'), now: () => new Date(clock.t), onChange: (c) => changes.push(c) });
  await svc.pollOnce();
  const hosts = JSON.parse((await fetch(`${fleet.url}/_crossbar/hosts`, 5000)).body) as HostJson[];
  const status = JSON.parse((await fetch(`${fleet.url}/v1/ops/status`, 5000)).body) as { capacity: Record<string, number> };
  const slotsA = JSON.parse((await fetch(`${fleet.url}/llama/gpu-a/slots`, 5000)).body) as Array<{ is_processing: boolean }>;
  const caps = svc.current();
  expect(changes.at(-1)).toEqual(caps);
  for (const h of hosts) {
    const c = find(caps, 'xb', h.name);
    expect([c?.up, c?.slotsTotal, c?.inflight, c?.queued, c?.nCtx]).toEqual([h.up, h.slots, h.inflight, h.queued, h.n_ctx]);
  }
  const gw = find(caps, 'gw', 'gw');
  expect([gw?.inflight, gw?.highWater, gw?.totalShed, gw?.shedThreshold]).toEqual([
    status.capacity.inflight_requests, status.capacity.inflight_high_water, status.capacity.total_shed, status.capacity.max_inflight_requests,
  ]);
  const la = find(caps, 'llama-a', 'llama-a');
  expect(la?.slotsBusy).toBe(slotsA.filter((s) => s.is_processing).length);
  expect(la?.missing).toEqual([]);
  return svc;
}

describe('the fleet server polled directly', () => {
  let fleet: FleetServer;
  const clock = { t: T0 };
  beforeAll(async () => {
    fleet = await startFleetServer({ seed: 7, hosts: 3, now: () => new Date(clock.t) });
  });
  afterAll(() => fleet.close());
  const direct: HostFetch = (url, timeoutMs) => httpGet(null, url, timeoutMs);

  it('is deterministic for a seed and clock', async () => {
    const other = await startFleetServer({ seed: 7, hosts: 3, now: () => new Date(clock.t) });
    try {
      for (const path of ['/_crossbar/hosts', '/_crossbar/usage', '/_crossbar/metrics', '/v1/ops/status', '/llama/gpu-a/slots']) {
        expect((await direct(`${other.url}${path}`, 5000)).body).toBe((await direct(`${fleet.url}${path}`, 5000)).body);
      }
    } finally {
      await other.close();
    }
  });

  it('snapshot figures equal what the server exposes; rates come from counter deltas', async () => {
    clock.t = T0;
    const svc = await pollAndCompare(fleet, direct, clock);
    const before = parsePrometheus((await direct(`${fleet.url}/_crossbar/metrics`, 5000)).body);
    clock.t += 10_000;
    await svc.pollOnce();
    const after = parsePrometheus((await direct(`${fleet.url}/_crossbar/metrics`, 5000)).body);
    const total = (pts: typeof before, host: string) => pts.filter((p) => p.name === 'crossbar_requests_total' && p.labels.host === host).reduce((a, p) => a + p.value, 0);
    const series = (await svc.history({ range: '1h', proxy: 'xb', host: 'gpu-a' })).series[0];
    expect(series?.t).toEqual([T0, T0 + 10_000]);
    expect(series?.requestRate).toEqual([null, (total(after, 'gpu-a') - total(before, 'gpu-a')) / 10]);
  });

  it('a host going down shows down with the error and since, and comes back', async () => {
    clock.t = T0 + 100_000;
    const svc = new CapacityService({ proxies: proxies(fleet.url, 'fleet'), getFor: () => direct, store: Store.open(':memory:'), now: () => new Date(clock.t), onChange: () => undefined });
    await svc.pollOnce();
    expect(find(svc.current(), 'llama-b', 'llama-b')?.up).toBe(true);
    fleet.setHostDown('gpu-b', true);
    clock.t += 10_000;
    await svc.pollOnce();
    const xb = find(svc.current(), 'xb', 'gpu-b');
    const lb = find(svc.current(), 'llama-b', 'llama-b');
    expect([xb?.up, xb?.since, xb?.error]).toEqual([false, new Date(clock.t).toISOString(), 'proxy "xb": host "gpu-b": dial tcp: connection refused']);
    expect(lb?.up).toBe(false);
    expect(lb?.error).toMatch(new RegExp(`^proxy "llama-b": GET ${fleet.url}/llama/gpu-b/health: (socket hang up|read ECONNRESET)`));
    fleet.setHostDown('gpu-b', false);
    clock.t += 10_000;
    await svc.pollOnce();
    expect(find(svc.current(), 'xb', 'gpu-b')?.since).toBe(new Date(clock.t).toISOString());
    expect(find(svc.current(), 'xb', 'gpu-b')?.up).toBe(true);
  });

  it('an hour of polls charts every series and flags the gateway threshold far above where errors began', async () => {
    const start = T0 + 3_600_000;
    clock.t = start;
    const svc = new CapacityService({ proxies: proxies(fleet.url, 'fleet'), getFor: () => direct, store: Store.open(':memory:'), now: () => new Date(clock.t), onChange: () => undefined });
    for (let i = 0; i < 120; i++, clock.t += 30_000) await svc.pollOnce();
    const out = await svc.history({ range: '1h', maxPoints: 50 });
    expect(out.series.map((s) => `${s.proxy}/${s.host}`).sort()).toEqual(['gw/gw', 'llama-a/llama-a', 'llama-b/llama-b', 'xb/gpu-a', 'xb/gpu-b', 'xb/gpu-c']);
    for (const s of out.series) expect(s.t.length).toBeLessThanOrEqual(50);
    expect(out.warnings.join('\n')).toMatch(/^Gateway "gw": errors began at about \d+ requests in flight .* shed threshold is 80/);
  }, 60_000);

  it('a host that is not reachable marks its proxies down without polling', async () => {
    const svc = new CapacityService({ proxies: proxies(fleet.url, 'fleet'), getFor: () => null, store: Store.open(':memory:'), now: () => new Date(clock.t), onChange: () => undefined });
    await svc.pollOnce();
    expect(svc.current().map((c) => [c.proxy, c.up])).toEqual([['gw', false], ['llama-a', false], ['llama-b', false], ['xb', false]]);
    expect(svc.current()[0]?.error).toBe('proxy "gw": host "fleet" is not reachable (its connection is down); capacity is unknown until it reconnects.');
  });
});

describe('the fleet server polled over a real sshd', () => {
  let sshd: TestSshd;
  let fleet: FleetServer;
  let host: SshHost;
  let store: Store;
  const clock = { t: T0 + 7_200_000 };
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 10 });
    fleet = await startFleetServer({ seed: 11, hosts: 3, now: () => new Date(clock.t) });
    store = Store.open(':memory:');
    host = await connectTestHost(sshd, store);
  }, 30_000);
  afterAll(async () => {
    host?.connection.close();
    await fleet?.close();
    await sshd?.stop();
  });

  it('reads the same figures through the SSH connection as directly', async () => {
    const viaSsh: HostFetch = (url, timeoutMs) => httpGet(host.connection, url, timeoutMs);
    const svc = await pollAndCompare(fleet, viaSsh, clock);
    const direct = await pollAndCompare(fleet, (url, ms) => httpGet(null, url, ms), clock);
    const strip = (cs: Capacity[]) => cs.map((c) => ({ ...c, since: null, polledAt: null }));
    expect(strip(svc.current())).toEqual(strip(direct.current()));
    expect(svc.current().filter((c) => c.proxy === 'xb')).toHaveLength(3);
  }, 30_000);
});
