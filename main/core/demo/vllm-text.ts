import type { SimHost, SimHostState } from './fleet-sim';
import { rand } from './fleet-sim';

/** A simulated backend's KV-cache share at a tick, 0–1: a floor of cached prefixes, plus its busy slots' contexts. */
export function kvShare(h: SimHost, tick: number, busy: number): number {
  return Math.round(Math.min(1, 0.08 + (0.82 * busy) / h.slots + 0.06 * rand(h.index, tick, 7)) * 1000) / 1000;
}

/**
 * A simulated backend's `/metrics` as vLLM's V1 engine writes it (prometheus_client text, labels
 * `engine` and `model_name`): running and waiting requests of its models, the KV-cache in use and
 * the token counters (`generated` so far; prompts about three times that).
 */
export function vllmMetricsText(h: SimHost, tick: number, models: SimHostState['models'], generated: number): string {
  const busy = models.reduce((a, m) => a + m.inflight, 0);
  const lines: string[] = [];
  const family = (name: string, type: string, help: string, rows: readonly [string, number][]): void => {
    lines.push(`# HELP vllm:${name} ${help}`, `# TYPE vllm:${name} ${type}`, ...rows.map(([model, v]) => `vllm:${name}{engine="0",model_name="${model}"} ${v}`));
  };
  const each = (f: (m: SimHostState['models'][number]) => number): [string, number][] => models.map((m) => [m.id, f(m)]);
  const first = models[0]?.id ?? 'model';
  family('num_requests_running', 'gauge', 'Number of requests in model execution batches.', each((m) => m.inflight));
  family('num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', each((m) => m.queued));
  family('kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [[first, kvShare(h, tick, busy)]]);
  family('prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [[first, generated * 3]]);
  family('generation_tokens_total', 'counter', 'Number of generation tokens processed.', [[first, generated]]);
  return `${lines.join('\n')}\n`;
}
