import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../../shared/domain';
import { connectTestHost } from '../../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../../testing/sshd';
import { startVllmMetricsServer, type VllmMetricsServer } from '../../../../testing/vllm-metrics-server';
import { startFleetServer, type FleetServer } from '../../demo/fleet-server';
import type { SshHost } from '../../ssh/ssh-host';
import { httpGet } from '../../ssh/http-over-ssh';
import { Store } from '../../store/store';
import { CapacityService, type HostFetch, type ProxyConfig } from '../capacity-service';
import { parsePrometheus } from './prometheus';

const T0 = Date.parse('2026-12-02T01:00:00Z');
const direct: HostFetch = (url, timeoutMs, maxBytes) => httpGet(null, url, timeoutMs, maxBytes);
const find = (caps: readonly Capacity[], proxy: string): Capacity | undefined => caps.find((c) => c.proxy === proxy);

describe('vLLM and llama-server through the capacity service', () => {
  let vl: VllmMetricsServer;
  let bare: VllmMetricsServer;
  let fleet: FleetServer;
  const clock = { t: T0 };
  beforeAll(async () => {
    // Counters move only when the test moves them: the rates are checked against a pinned clock.
    vl = await startVllmMetricsServer({ running: 3, waiting: 1, kv: 0.42, engines: 2, generationTokens: 10_000 });
    // A vLLM-shaped server without a KV-cache gauge or token counters.
    bare = await startVllmMetricsServer({ body: 'vllm:num_requests_running{model_name="m"} 1.0\nvllm:num_requests_waiting{model_name="m"} 0.0\n' });
    fleet = await startFleetServer({ seed: 5, hosts: 3, now: () => new Date(clock.t) });
  });
  afterAll(async () => {
    await vl?.close();
    await bare?.close();
    await fleet?.close();
  });
  const proxies = (): Record<string, ProxyConfig> => ({
    vl: { host: 'h', kind: 'vllm', url: vl.url, every: 10_000 },
    bare: { host: 'h', kind: 'vllm', url: bare.url, every: 10_000 },
    'llama-a': { host: 'h', kind: 'llama-server', url: `${fleet.url}/llama/gpu-a`, every: 10_000 },
    'vllm-c': { host: 'h', kind: 'vllm', url: `${fleet.url}/vllm/gpu-c`, every: 10_000 },
  });
  const service = (fetch: HostFetch = direct) => new CapacityService({ proxies: proxies(), getFor: () => fetch, store: Store.open(':memory:'), now: () => new Date(clock.t), onChange: () => undefined });

  it('shows running, waiting, the KV-cache and tokens a second from the counters, and charts them', async () => {
    clock.t = T0;
    vl.state.generationTokens = 10_000;
    const svc = service();
    await svc.pollOnce();
    expect(find(svc.current(), 'vl')).toMatchObject({ kind: 'vllm', up: true, slotsBusy: 6, inflight: 6, queued: 2, slotsTotal: null, kvCachePct: 42, tokensPerSecond: null, missing: [], error: null });
    expect(find(svc.current(), 'vl')?.models).toEqual([{ id: 'Qwen/Qwen3-32B', nCtx: null, slots: null, inflight: 6, queued: 2 }]);
    clock.t += 10_000;
    vl.state.generationTokens += 420;
    vl.state.kv = 0.9;
    await svc.pollOnce();
    expect(find(svc.current(), 'vl')).toMatchObject({ kvCachePct: 90, tokensPerSecond: 42 });

    // The llama-server's KV-cache gauge, as its /metrics said at the same instant.
    const llamaKv = parsePrometheus((await direct(`${fleet.url}/llama/gpu-a/metrics`, 5000)).body).find((p) => p.name === 'llamacpp:kv_cache_usage_ratio')?.value;
    expect(find(svc.current(), 'llama-a')?.kvCachePct).toBe(Math.round((llamaKv ?? NaN) * 1000) / 10);
    expect(find(svc.current(), 'llama-a')?.tokensPerSecond).toEqual(expect.any(Number));
    // Nothing of what a server does not expose: no KV-cache, no token rate; both named missing.
    const b = find(svc.current(), 'bare');
    expect(b).toMatchObject({ up: true, inflight: 1, queued: 0 });
    expect(b?.kvCachePct ?? null).toBeNull();
    expect(b?.tokensPerSecond ?? null).toBeNull();
    expect(b?.missing).toEqual(['metrics.vllm:prompt_tokens_total', 'metrics.vllm:generation_tokens_total', 'metrics.vllm:kv_cache_usage_perc (or vllm:gpu_cache_usage_perc)']);
    // The demo's vLLM stand-in reads the same way.
    expect(find(svc.current(), 'vllm-c')).toMatchObject({ kind: 'vllm', up: true, missing: [] });

    const hist = await svc.history({ range: '1h' });
    const series = (proxy: string) => hist.series.find((s) => s.proxy === proxy);
    expect(series('vl')).toMatchObject({ t: [T0, T0 + 10_000], inflight: [6, 6], queued: [2, 2], kvCache: [42, 90], tokenRate: [null, 42] });
    expect(series('llama-a')?.kvCache).toHaveLength(2);
    expect(series('bare')).not.toHaveProperty('kvCache');
    expect(series('bare')).not.toHaveProperty('tokenRate');
  });

  it('a restarted server (its counter went down) counts from zero, not a negative rate', async () => {
    clock.t = T0 + 60_000;
    const svc = service();
    vl.state.generationTokens = 50_000;
    await svc.pollOnce();
    clock.t += 10_000;
    vl.state.generationTokens = 100;
    await svc.pollOnce();
    expect(find(svc.current(), 'vl')?.tokensPerSecond).toBe(10);
  });

  it('garbage, an HTML page or another server on the URL is down, naming the proxy and URL, and it comes back', async () => {
    clock.t = T0 + 120_000;
    const svc = service();
    await svc.pollOnce();
    for (const [body, said] of [
      ['\u0000\u0001\u0002garbage{{{', `proxy "vl": GET ${vl.url}/metrics answered not Prometheus text (no sample lines)`],
      ['<html><body>502 Bad Gateway</body></html>', `proxy "vl": GET ${vl.url}/metrics answered an HTML page, not the API: 502 Bad Gateway`],
      ['llamacpp:requests_processing 2\n', `proxy "vl": GET ${vl.url}/metrics answered Prometheus text without any vllm:* series`],
    ] as const) {
      vl.state.body = body;
      clock.t += 10_000;
      await svc.pollOnce();
      const c = find(svc.current(), 'vl');
      expect(c).toMatchObject({ up: false, since: new Date(T0 + 130_000).toISOString() });
      expect(c?.error).toContain(said);
    }
    vl.state.body = null;
    clock.t += 10_000;
    await svc.pollOnce();
    expect(find(svc.current(), 'vl')).toMatchObject({ up: true, error: null, since: new Date(clock.t).toISOString() });
  });

  it('a /metrics past 4 MiB is refused as it arrives, naming the URL', async () => {
    clock.t = T0 + 300_000;
    const svc = service();
    vl.state.body = `vllm:num_requests_running 1\n${'# padding\n'.repeat(500_000)}`;
    try {
      await svc.pollOnce();
      expect(find(svc.current(), 'vl')).toMatchObject({ up: false });
      expect(find(svc.current(), 'vl')?.error).toMatch(new RegExp(`^proxy "vl": GET ${vl.url}/metrics: ${vl.url}/metrics: response .*larger than 4 MiB`));
    } finally {
      vl.state.body = null;
    }
  });

  describe('over a real sshd', () => {
    let sshd: TestSshd;
    let host: SshHost;
    let store: Store;
    beforeAll(async () => {
      sshd = await startSshd({ maxSessions: 10 });
      store = Store.open(':memory:');
      host = await connectTestHost(sshd, store);
    }, 30_000);
    afterAll(async () => {
      host?.connection.close();
      await sshd?.stop();
    });

    it('reads the same figures through the host\'s SSH link as directly', async () => {
      clock.t = T0 + 600_000;
      const viaSsh = service((url, ms, max) => httpGet(host.connection, url, ms, max));
      const plain = service();
      await viaSsh.pollOnce();
      await plain.pollOnce();
      const strip = (cs: Capacity[]) => cs.map((c) => ({ ...c, since: null, polledAt: null }));
      expect(strip(viaSsh.current())).toEqual(strip(plain.current()));
      expect(find(viaSsh.current(), 'vl')).toMatchObject({ up: true, kvCachePct: expect.any(Number) });
    }, 30_000);
  });
});
