// vLLM's `/metrics` (Prometheus text, served by its OpenAI-compatible API server). The names, as
// vLLM's docs list them (docs.vllm.ai "Production Metrics"; vllm-project/vllm
// docs/source/design/v1/metrics.md, whose v0 list the V1 engine keeps, and vllm/v1/metrics/loggers.py):
//   vllm:num_requests_running   gauge    requests in the model's running batch
//   vllm:num_requests_waiting   gauge    requests waiting for a place in it
//   vllm:kv_cache_usage_perc    gauge    KV-cache blocks in use, 0–1 (V1 engine)
//   vllm:gpu_cache_usage_perc   gauge    the same, as older vLLM names it (1 means 100 %)
//   vllm:prompt_tokens_total    counter  prompt (prefill) tokens processed
//   vllm:generation_tokens_total counter generated tokens
// Every series carries `model_name` (the served model) and, on V1, `engine` (the engine index of
// a data-parallel server): figures are summed over engines, the KV-cache taken at its fullest.
import type { ModelCapacity } from '../../../../shared/domain';
import { clip, MAX_MODELS_PER_HOST } from '../limits';
import { checkFigure, MAX_PROM_REQUESTS, quoteLabel, unsafeLabel } from './prom-checks';
import type { PromPoint } from './prometheus';

/** The gauges and counters read from a vLLM server, by name. */
export const VLLM_METRICS = {
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  kv: 'vllm:kv_cache_usage_perc',
  kvOld: 'vllm:gpu_cache_usage_perc',
  prompt: 'vllm:prompt_tokens_total',
  generation: 'vllm:generation_tokens_total',
} as const;

/** A token counter this large is not a count (2^53, where a double stops counting by ones). */
const MAX_TOKEN_COUNT = Number.MAX_SAFE_INTEGER;

/** What one vLLM `/metrics` answer says. */
export interface VllmFigures {
  readonly running: number | null;
  readonly waiting: number | null;
  /** KV-cache in use, 0–100 %, the fullest engine's. */
  readonly kvCachePct: number | null;
  /** Cumulative token counters, summed over models and engines. */
  readonly promptTokens: number | null;
  readonly generationTokens: number | null;
  readonly models: ModelCapacity[];
  /** Expected metric names the server did not expose. */
  readonly missing: string[];
  /** What was refused (a value that is not a figure, a label that cannot be shown), for the error. */
  readonly problems: string[];
}

/** Whether an answer holds any vLLM series at all (a llama-server or a Prometheus on the URL holds none). */
export function hasVllmSeries(points: readonly PromPoint[]): boolean {
  return points.some((p) => p.name.startsWith('vllm:'));
}

const fmt = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));

/**
 * Read vLLM's figures from parsed `/metrics` points. Never throws: a value that cannot be the
 * figure (negative, ±Inf, a KV-cache share past 1, 1e308 requests) makes that figure missing for
 * the server and is said in `problems`, and so is a `model_name` holding a control or bidi character.
 */
export function readVllm(points: readonly PromPoint[]): VllmFigures {
  const problems: string[] = [];
  const missing: string[] = [];
  const refusedModels = new Set<string>();
  const byModel = new Map<string, { running: number | null; waiting: number | null }>();
  const sum = (name: string, max: number, what: string, perModel?: 'running' | 'waiting'): number | null => {
    const mine = points.filter((p) => p.name === name);
    if (mine.length === 0) {
      missing.push(name);
      return null;
    }
    let total = 0;
    for (const p of mine) {
      const checked = checkFigure(fmt(p.value), max);
      if (!checked.ok) {
        problems.push(`${name} = ${checked.why}: not ${what} (treated as missing)`);
        return null;
      }
      total += checked.value;
      const model = p.labels.model_name;
      if (perModel && model !== undefined) {
        if (unsafeLabel(model)) {
          refusedModels.add(quoteLabel(model));
          continue;
        }
        const m = byModel.get(clip(model)) ?? { running: null, waiting: null };
        m[perModel] = (m[perModel] ?? 0) + checked.value;
        byModel.set(clip(model), m);
      }
    }
    return total;
  };
  const running = sum(VLLM_METRICS.running, MAX_PROM_REQUESTS, 'a count of requests', 'running');
  const waiting = sum(VLLM_METRICS.waiting, MAX_PROM_REQUESTS, 'a count of requests', 'waiting');
  const promptTokens = sum(VLLM_METRICS.prompt, MAX_TOKEN_COUNT, 'a count of tokens');
  const generationTokens = sum(VLLM_METRICS.generation, MAX_TOKEN_COUNT, 'a count of tokens');
  // The newer name first; a server exposing either is not missing the figure.
  const kvName = points.some((p) => p.name === VLLM_METRICS.kv) ? VLLM_METRICS.kv : VLLM_METRICS.kvOld;
  let kvCachePct: number | null = null;
  const kvPoints = points.filter((p) => p.name === kvName);
  if (kvPoints.length === 0) missing.push(`${VLLM_METRICS.kv} (or ${VLLM_METRICS.kvOld})`);
  for (const p of kvPoints) {
    const checked = checkFigure(fmt(p.value), 1);
    if (!checked.ok) {
      problems.push(`${kvName} = ${checked.why}: not a share of the KV-cache from 0 to 1 (treated as missing)`);
      kvCachePct = null;
      break;
    }
    kvCachePct = Math.max(kvCachePct ?? 0, Math.round(checked.value * 1000) / 10);
  }
  if (refusedModels.size) problems.push(`left out model_name ${[...refusedModels].slice(0, 5).join(', ')}: a control or bidi character (refused as a name)`);
  if (byModel.size > MAX_MODELS_PER_HOST) problems.push(`${byModel.size} models listed; showing the first ${MAX_MODELS_PER_HOST}`);
  const models = [...byModel.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, MAX_MODELS_PER_HOST)
    .map(([id, m]): ModelCapacity => ({ id, nCtx: null, slots: null, inflight: m.running === null ? null : Math.round(m.running), queued: m.waiting === null ? null : Math.round(m.waiting) }));
  const round = (v: number | null): number | null => (v === null ? null : Math.round(v));
  return { running: round(running), waiting: round(waiting), kvCachePct, promptTokens, generationTokens, models, missing, problems };
}
