import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../../shared/domain';
import { startLlamaMetricsServer, startPrometheus, startTextMetricsServer, type LlamaMetricsServer, type TestPrometheus, type TextMetricsServer } from '../../../../testing/prometheus';
import { until } from '../../../../testing/until';
import { startVllmMetricsServer, type VllmMetricsServer } from '../../../../testing/vllm-metrics-server';
import { Store } from '../../store/store';
import { CapacityService } from '../capacity-service';

const HOUR = 3_600_000;

/**
 * OpenMetrics for `promtool tsdb create-blocks-from openmetrics`: a vLLM server that was scraped
 * every minute from `from` to `to` (ms) and is gone now, 4 requests running and 60 % of its
 * KV-cache in use, generating 25 tokens a second.
 */
function pastVllm(instance: string, job: string, from: number, to: number): string {
  const labels = `{instance="${instance}",job="${job}",engine="0",model_name="Qwen/Qwen3-32B"}`;
  const times: number[] = [];
  for (let t = Math.ceil(from / 60_000) * 60_000; t <= to; t += 60_000) times.push(t);
  const family = (name: string, type: string, value: (t: number) => number, sample = name): string[] => [
    `# TYPE ${name} ${type}`,
    ...times.map((t) => `${sample}${labels} ${value(t)} ${t / 1000}`),
  ];
  return [
    ...family('up', 'gauge', () => 1).map((l) => l.replace(',engine="0",model_name="Qwen/Qwen3-32B"', '')),
    ...family('vllm:num_requests_running', 'gauge', () => 4),
    ...family('vllm:num_requests_waiting', 'gauge', () => 1),
    ...family('vllm:kv_cache_usage_perc', 'gauge', () => 0.6),
    ...family('vllm:generation_tokens', 'counter', (t) => ((t - from) / 1000) * 25, 'vllm:generation_tokens_total'),
    '# EOF',
    '',
  ].join('\n');
}

describe('a real Prometheus scraping vLLM servers beside a llama.cpp one', () => {
  let prom: TestPrometheus;
  let v1: VllmMetricsServer;
  let old: VllmMetricsServer;
  let llama: LlamaMetricsServer;
  let partial: TextMetricsServer;
  let svc: CapacityService;
  let store: Store;
  const now = Date.now();

  beforeAll(async () => {
    v1 = await startVllmMetricsServer({ running: 2, waiting: 3, kv: 0.5, tokensPerSecond: 80, model: 'Qwen/Qwen3-32B' });
    old = await startVllmMetricsServer({ running: 1, waiting: 0, kv: 0.25, tokensPerSecond: 5, model: 'llama-2-7b', kvName: 'gpu_cache_usage_perc' });
    llama = await startLlamaMetricsServer({ processing: 1, deferred: 0, tokensPerSecond: 10 });
    // A vLLM that exposes only its request gauges.
    partial = await startTextMetricsServer(() => 'vllm:num_requests_running{model_name="m"} 1\nvllm:num_requests_waiting{model_name="m"} 0\n');
    prom = await startPrometheus({ targets: [v1.target, old.target, llama.target, partial.target], job: 'mixed', backfill: pastVllm('vllm-past:8000', 'mixed', now - 6 * HOUR, now - 3 * HOUR) });
    await prom.targetsUp(4);
    store = Store.open(':memory:');
    // No selector: every job with llamacpp:* or vllm:* series counts.
    svc = new CapacityService({ proxies: { fleet: { kind: 'prometheus', url: prom.url, every: 1000 } }, getFor: () => null, store, onChange: () => undefined });
  }, 60_000);
  afterAll(async () => {
    await prom?.stop();
    for (const s of [v1, old, llama, partial]) await s?.close();
    store?.close();
  });

  const host = (caps: readonly Capacity[], target: string): Capacity | undefined => caps.find((c) => c.host === target);
  const pollUntil = async (ok: (caps: Capacity[]) => boolean, what: string): Promise<Capacity[]> => {
    let caps: Capacity[] = [];
    await until(
      async () => {
        await svc.pollOnce();
        caps = svc.current();
        return ok(caps);
      },
      30_000,
      what,
      200,
    );
    return caps;
  };

  it('reads each vLLM instance: running, waiting, KV-cache (both names), tokens a second and the model from model_name', async () => {
    const caps = await pollUntil((c) => [v1, old, llama].every((s) => (host(c, s.target)?.tokensPerSecond ?? 0) > 0) && host(c, partial.target)?.up === true, 'two scrapes of every token counter');
    expect(host(caps, v1.target)).toMatchObject({ kind: 'prometheus', up: true, inflight: 2, slotsBusy: 2, queued: 3, kvCachePct: 50, missing: [], error: null });
    expect(host(caps, v1.target)?.models).toEqual([{ id: 'Qwen/Qwen3-32B', nCtx: null, slots: null, inflight: 2, queued: 3 }]);
    expect(host(caps, v1.target)?.tokensPerSecond).toBeGreaterThan(40);
    expect(host(caps, old.target)).toMatchObject({ up: true, inflight: 1, queued: 0, kvCachePct: 25, missing: [] });
    expect(host(caps, old.target)?.models.map((m) => m.id)).toEqual(['llama-2-7b']);
    // llama.cpp beside them, as before: no KV-cache gauge in current builds, and none asked for.
    expect(host(caps, llama.target)).toMatchObject({ up: true, inflight: 1, queued: 0, missing: [] });
    expect(host(caps, llama.target)).not.toHaveProperty('kvCachePct');
    // A vLLM instance's missing figures are named by vLLM's names.
    expect(host(caps, partial.target)).toMatchObject({ up: true, inflight: 1, queued: 0, missing: ['vllm:generation_tokens_total', 'vllm:kv_cache_usage_perc'] });
  }, 60_000);

  it('charts the KV-cache of the hosts that expose it, live and backfilled, and none for the others', async () => {
    await until(async () => (await svc.history({ range: '1h', proxy: 'fleet' })).series.some((s) => s.host === v1.target && (s.kvCache ?? []).includes(50)), 30_000, 'a chart point of the live vLLM', 200);
    const live = await svc.history({ range: '1h', proxy: 'fleet' });
    const series = (h: typeof live, name: string) => h.series.find((s) => s.host === name);
    expect(live.warnings).toEqual([]);
    expect(series(live, old.target)?.kvCache).toContain(25);
    expect(series(live, v1.target)?.inflight).toContain(2);
    expect(series(live, llama.target)).not.toHaveProperty('kvCache');
    expect(series(live, llama.target)?.inflight).toContain(1);

    // The day's chart reaches the backfilled server, gone for three hours: its KV-cache, batch and tokens.
    const day = await svc.history({ range: '24h', proxy: 'fleet' });
    const past = series(day, 'vllm-past:8000');
    expect(past).toBeDefined();
    const known = (xs: readonly (number | null)[] | undefined) => (xs ?? []).filter((v): v is number => v !== null);
    expect(new Set(known(past?.kvCache))).toEqual(new Set([60]));
    expect(new Set(known(past?.inflight))).toEqual(new Set([4]));
    expect(new Set(known(past?.queued))).toEqual(new Set([1]));
    for (const rate of known(past?.tokenRate)) expect(rate).toBeCloseTo(25, 5);
    expect(known(past?.tokenRate).length).toBeGreaterThan(50);
    // Nothing of a prometheus proxy is stored here.
    expect(store.sql.prepare('SELECT count(*) AS n FROM capacity_samples').get()).toEqual({ n: 0 });
  }, 60_000);
});
