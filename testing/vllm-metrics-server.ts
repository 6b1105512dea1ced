import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a vLLM-shaped server exposes now; change it between polls or scrapes. */
export interface VllmState {
  /** Requests in the running batch and waiting, per engine. */
  running: number;
  waiting: number;
  /** KV-cache blocks in use, 0–1, per engine. */
  kv: number;
  /** Generated and prompt tokens a second the counters grow by (over all engines), with the wall clock. */
  tokensPerSecond: number;
  promptTokensPerSecond: number;
  /** The counters themselves (over all engines): set them for figures a pinned clock can check. */
  generationTokens: number;
  promptTokens: number;
  /** `model_name` on every series. */
  model: string;
  /** Data-parallel engines (the `engine` label, 0…n-1). */
  engines: number;
  /** `kv_cache_usage_perc` (V1) or `gpu_cache_usage_perc` (older vLLM). */
  kvName: 'kv_cache_usage_perc' | 'gpu_cache_usage_perc';
  /** Answer this instead of the metrics (garbage, an HTML page, another server's metrics). */
  body: string | null;
}

/** A running vLLM-shaped `/metrics` server. */
export interface VllmMetricsServer {
  /** `http://127.0.0.1:PORT`, the base URL a `kind: vllm` proxy polls. */
  readonly url: string;
  /** `127.0.0.1:PORT`, as a Prometheus scrape target. */
  readonly target: string;
  readonly state: VllmState;
  /** How many times `/metrics` was asked. */
  scrapes(): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 answering `/metrics` as vLLM's OpenAI-compatible server does
 * (prometheus_client's text format: `# HELP`/`# TYPE`, `_total` counters beside their `_created`
 * gauges, a histogram, labels `model_name` and `engine`), and `/health` with an empty 200.
 * The token counters grow with the wall clock at the set rates.
 */
export async function startVllmMetricsServer(init: Partial<VllmState> = {}): Promise<VllmMetricsServer> {
  const state: VllmState = { running: 0, waiting: 0, kv: 0, tokensPerSecond: 0, promptTokensPerSecond: 0, generationTokens: 5000, promptTokens: 20000, model: 'Qwen/Qwen3-32B', engines: 1, kvName: 'kv_cache_usage_perc', body: null, ...init };
  const created = Date.now() / 1000;
  let last = Date.now();
  let n = 0;
  const metrics = (): string => {
    const now = Date.now();
    state.generationTokens += (state.tokensPerSecond * (now - last)) / 1000;
    state.promptTokens += (state.promptTokensPerSecond * (now - last)) / 1000;
    last = now;
    const engines = Array.from({ length: Math.max(1, state.engines) }, (_, e) => `{engine="${e}",model_name=${JSON.stringify(state.model)}}`);
    const per = (total: number): number => Math.floor(total / engines.length);
    const family = (name: string, type: string, help: string, value: (labels: string) => number | string): string[] => [
      `# HELP vllm:${name} ${help}`,
      `# TYPE vllm:${name} ${type}`,
      ...engines.map((l) => `vllm:${name}${l} ${value(l)}`),
    ];
    const counter = (name: string, help: string, total: number): string[] => [
      ...family(`${name}_total`, 'counter', help, () => `${per(total)}.0`),
      ...family(`${name}_created`, 'gauge', help, () => created),
    ];
    return [
      ...family('num_requests_running', 'gauge', 'Number of requests in model execution batches.', () => `${state.running}.0`),
      ...family('num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', () => `${state.waiting}.0`),
      ...family(state.kvName, 'gauge', 'KV-cache usage. 1 means 100 percent usage.', () => state.kv),
      ...counter('prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', state.promptTokens),
      ...counter('prompt_tokens', 'Number of prefill tokens processed.', state.promptTokens),
      ...counter('generation_tokens', 'Number of generation tokens processed.', state.generationTokens),
      '# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.',
      '# TYPE vllm:time_to_first_token_seconds histogram',
      ...engines.flatMap((l) => {
        const inner = l.slice(1, -1);
        return [`vllm:time_to_first_token_seconds_bucket{${inner},le="0.1"} 3.0`, `vllm:time_to_first_token_seconds_bucket{${inner},le="+Inf"} 4.0`, `vllm:time_to_first_token_seconds_count${l} 4.0`, `vllm:time_to_first_token_seconds_sum${l} 0.82`];
      }),
      '',
    ].join('\n');
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/health') return void res.writeHead(200).end();
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
    n++;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(state.body ?? metrics());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    target: `127.0.0.1:${port}`,
    state,
    scrapes: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
