import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pollLlamaServer } from './llama-server';
import type { GetReply, Getter } from './poll-types';
import { parsePrometheus } from './prometheus';
import { pollVllm } from './vllm';
import { readVllm } from './vllm-metrics';

const NOW = new Date('2026-12-02T03:00:00Z');
const BASE = 'http://127.0.0.1:8000';
const fake = (routes: Record<string, GetReply | Error>): Getter => async (path) => {
  const r = routes[path] ?? { status: 404, body: '{"detail":"Not Found"}' };
  if (r instanceof Error) throw r;
  return r;
};
const ok = (body: string): GetReply => ({ status: 200, body });

// Shaped like `curl :8000/metrics` of vLLM's V1 engine (prometheus_client text: `_total` counters
// beside `_created` gauges, labels engine and model_name), cut to what Loopdeck reads and a histogram.
const V1 = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-32B"} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-32B"} 2.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-32B"} 0.4213
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-32B"} 182044.0
# HELP vllm:prompt_tokens_created Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_created gauge
vllm:prompt_tokens_created{engine="0",model_name="Qwen/Qwen3-32B"} 1.764644e+09
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-32B"} 40311.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="Qwen/Qwen3-32B"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-32B"} 4.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="Qwen/Qwen3-32B"} 4.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="Qwen/Qwen3-32B"} 0.82
`;

/** Older vLLM: the KV-cache as gpu_cache_usage_perc, no engine label. */
const OLD = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="llama-2-7b"} 1.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="llama-2-7b"} 0.0
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="llama-2-7b"} 0.05
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="llama-2-7b"} 12.0
`;

const figures = (text: string) => readVllm(parsePrometheus(text));

describe('reading vLLM /metrics', () => {
  it.each([
    ['V1 engine', V1, { running: 3, waiting: 2, kvCachePct: 42.1, promptTokens: 182044, generationTokens: 40311, missing: [], problems: [] }],
    ['older vLLM (gpu_cache_usage_perc)', OLD, { running: 1, waiting: 0, kvCachePct: 5, promptTokens: null, generationTokens: 12, missing: ['vllm:prompt_tokens_total'], problems: [] }],
    ['only the gauges', 'vllm:num_requests_running 0\n', { running: 0, waiting: null, kvCachePct: null, missing: ['vllm:num_requests_waiting', 'vllm:prompt_tokens_total', 'vllm:generation_tokens_total', 'vllm:kv_cache_usage_perc (or vllm:gpu_cache_usage_perc)'] }],
  ])('%s', (_, text, want) => {
    expect(figures(text)).toMatchObject(want);
  });

  it('sums a data-parallel server over its engines, per model, and takes the fullest engine\'s KV-cache', () => {
    const two = V1 + V1.replace(/engine="0"/g, 'engine="1"').replace(/ 0\.4213$/m, ' 0.9');
    const f = figures(two);
    expect(f).toMatchObject({ running: 6, waiting: 4, kvCachePct: 90, generationTokens: 80622 });
    expect(f.models).toEqual([{ id: 'Qwen/Qwen3-32B', nCtx: null, slots: null, inflight: 6, queued: 4 }]);
  });

  it('a value that cannot be the figure is missing and said; a model_name with a control character is not shown', () => {
    const f = figures('vllm:num_requests_running{model_name="ok"} 1e308\nvllm:num_requests_waiting{model_name="bad\\u202e"} -1\nvllm:kv_cache_usage_perc 1.7\nvllm:num_requests_waiting{model_name="evil\u001b[31m"} 0\n');
    expect(f).toMatchObject({ running: null, waiting: null, kvCachePct: null });
    expect(f.problems.join('; ')).toContain('vllm:num_requests_running = 1e+308 is past 100000: not a count of requests (treated as missing)');
    expect(f.problems.join('; ')).toContain('vllm:kv_cache_usage_perc = 1.7 is past 1: not a share of the KV-cache from 0 to 1 (treated as missing)');
    expect(f.models.map((m) => m.id)).not.toContain('evil\u001b[31m');
  });
});

describe('vllm adapter', () => {
  it('is up with running as busy, waiting as queued, the KV-cache and the models', async () => {
    const r = await pollVllm(fake({ '/metrics': ok(V1) }), 'vl', NOW, BASE);
    expect(r.capacity).toEqual([
      expect.objectContaining({ proxy: 'vl', kind: 'vllm', host: 'vl', up: true, slotsBusy: 3, slotsTotal: null, inflight: 3, queued: 2, kvCachePct: 42.1, missing: [], error: null }),
    ]);
    expect(r.capacity[0]?.models).toEqual([{ id: 'Qwen/Qwen3-32B', nCtx: null, slots: null, inflight: 3, queued: 2 }]);
    expect(r.samples).toEqual([expect.objectContaining({ up: true, inflight: 3, queued: 2, kvCachePct: 42.1, generatedTokens: 40311 })]);
  });

  it.each([
    ['garbage', ok('\u0000\u0001 not metrics {{{'), /^proxy "vl": GET http:\/\/127\.0\.0\.1:8000\/metrics answered not Prometheus text \(no sample lines\): .*; is the URL a vLLM server's\?$/],
    ['an HTML page', ok('<!doctype html><title>Sign in</title>'), /^proxy "vl": GET http:\/\/127\.0\.0\.1:8000\/metrics answered an HTML page, not the API: Sign in$/],
    ['a llama-server', ok('llamacpp:requests_processing 1\n'), /^proxy "vl": GET http:\/\/127\.0\.0\.1:8000\/metrics answered Prometheus text without any vllm:\* series \(1 other samples, e\.g\. llamacpp:requests_processing\); is the URL a vLLM server's\? \(a llama\.cpp server is kind: llama-server\)$/],
    ['HTTP 500', { status: 500, body: 'Internal Server Error' }, /^proxy "vl": GET http:\/\/127\.0\.0\.1:8000\/metrics answered HTTP 500: Internal Server Error$/],
    ['no answer', new Error('connect ECONNREFUSED 127.0.0.1:8000'), /^proxy "vl": GET http:\/\/127\.0\.0\.1:8000\/metrics: connect ECONNREFUSED/],
  ])('%s on the URL is down, the error naming the proxy and URL', async (_, reply, message) => {
    const r = await pollVllm(fake({ '/metrics': reply }), 'vl', NOW, BASE);
    expect(r.capacity).toHaveLength(1);
    expect(r.capacity[0]).toMatchObject({ kind: 'vllm', up: false });
    expect(r.capacity[0]?.error).toMatch(message);
  });

  it('arbitrary bytes never throw, and every answer is one host', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 400 }), fc.integer({ min: 100, max: 599 }), async (body, status) => {
        const r = await pollVllm(fake({ '/metrics': { status, body } }), 'vl', NOW, BASE);
        expect(r.capacity).toHaveLength(1);
        if (!r.capacity[0]?.up) expect(r.capacity[0]?.error).toContain('proxy "vl": GET http://127.0.0.1:8000/metrics');
      }),
      { numRuns: 300 },
    );
  });
});

describe('llama-server adapter and the KV-cache', () => {
  const routes = (metrics: string) =>
    fake({ '/health': ok('{"status":"ok"}'), '/props': ok('{"total_slots":4,"default_generation_settings":{"n_ctx":8192},"build_info":"b4000"}'), '/slots': ok('[]'), '/metrics': ok(metrics) });
  it('reads llamacpp:kv_cache_usage_ratio where the build exposes it', async () => {
    const r = await pollLlamaServer(routes('llamacpp:requests_processing 1\nllamacpp:requests_deferred 0\nllamacpp:kv_cache_usage_ratio 0.625\nllamacpp:tokens_predicted_total 900\n'), 'ls', NOW, BASE);
    expect(r.capacity[0]).toMatchObject({ up: true, kvCachePct: 62.5, missing: [] });
    expect(r.samples[0]).toMatchObject({ kvCachePct: 62.5, generatedTokens: 900 });
  });
  it('without it (current builds), shows none and does not call it missing', async () => {
    const r = await pollLlamaServer(routes('llamacpp:requests_processing 1\nllamacpp:requests_deferred 0\n'), 'ls', NOW, BASE);
    expect(r.capacity[0]?.kvCachePct).toBeUndefined();
    expect(r.capacity[0]?.missing).toEqual([]);
    expect(r.samples[0]).toMatchObject({ kvCachePct: null, generatedTokens: null });
  });
  it('a ratio past 1 is refused and said', async () => {
    const r = await pollLlamaServer(routes('llamacpp:requests_processing 1\nllamacpp:requests_deferred 0\nllamacpp:kv_cache_usage_ratio 3\n'), 'ls', NOW, BASE);
    expect(r.capacity[0]?.kvCachePct).toBeUndefined();
    expect(r.capacity[0]?.error).toContain('llamacpp:kv_cache_usage_ratio = 3: not a share of the KV-cache from 0 to 1');
  });
});
