// The PromQL a prometheus proxy runs, for both inference servers Prometheus may scrape: llama.cpp
// (`llamacpp:*`, `llama-server --metrics`) and vLLM (`vllm:*`, see vllm-metrics.ts for the names
// and where they come from). Each figure is one query, the llama.cpp series `or` the vLLM ones per
// instance (a server exposes one dialect), so a poll costs the same number of requests either way.
// vLLM names its model `model_name`; it becomes `model`, the label the llama.cpp side is read by.
import { VLLM_METRICS } from './vllm-metrics';

/** The llama.cpp series each figure is read from. */
export const LLAMA_SERIES = {
  inflight: 'llamacpp:requests_processing',
  queued: 'llamacpp:requests_deferred',
  tokens: 'llamacpp:tokens_predicted_total',
  kv: 'llamacpp:kv_cache_usage_ratio',
} as const;

/** The vLLM series each figure is read from (the KV-cache under its newer name, then its older). */
export const VLLM_SERIES = {
  inflight: VLLM_METRICS.running,
  queued: VLLM_METRICS.waiting,
  tokens: VLLM_METRICS.generation,
  kv: VLLM_METRICS.kv,
} as const;

/** `model_name` copied to `model` (when set), inside an aggregation by model. */
const modelOf = (expr: string): string => `label_replace(${expr}, "model", "$1", "model_name", "(.+)")`;

/** The instant queries of a live poll; `selector` is `{job="llama"}`-style matchers or undefined. */
export function prometheusQueries(selector: string | undefined): { up: string; inflight: string; queued: string; tokens: string; kv: string; vllm: string } {
  const s = selector ?? '';
  // Without a selector, a job counts as inference servers when it has llamacpp:* or vllm:* series;
  // its down targets (no fresh series) still show, through `up`.
  const up = selector ? `max by (instance) (up${s})` : `max by (instance) (up and on (job) (${LLAMA_SERIES.inflight} or ${VLLM_SERIES.inflight}))`;
  const both = (llama: string, vllm: string): string => `sum by (instance, model) (${llama}) or sum by (instance, model) (${modelOf(vllm)})`;
  return {
    up,
    inflight: both(`${LLAMA_SERIES.inflight}${s}`, `${VLLM_SERIES.inflight}${s}`),
    queued: both(`${LLAMA_SERIES.queued}${s}`, `${VLLM_SERIES.queued}${s}`),
    // irate: the rate between the last two scrapes. rate(…[1m]) is empty under Prometheus's
    // default 1 m scrape interval and reads far low on a series younger than its window.
    tokens: both(`irate(${LLAMA_SERIES.tokens}${s}[5m])`, `irate(${VLLM_SERIES.tokens}${s}[5m])`),
    // A share 0–1; the fullest engine of a data-parallel vLLM server.
    kv: `max by (instance) (${LLAMA_SERIES.kv}${s}) or max by (instance) (${VLLM_SERIES.kv}${s}) or max by (instance) (${VLLM_METRICS.kvOld}${s})`,
    // Which instances are vLLM servers: their missing figures are named by vLLM's names.
    vllm: `count by (instance) (${VLLM_SERIES.inflight}${s})`,
  };
}

/** The PromQL for the charts at a step (s): averages and rates over at least a minute, per instance. */
export function prometheusRangeQueries(selector: string | undefined, stepS: number): { inflight: string; queued: string; tokenRate: string; kvCache: string } {
  const s = selector ?? '';
  const w = `${Math.max(60, Math.ceil(stepS))}s`;
  const both = (f: (name: string) => string, llama: string, vllm: string): string => `sum by (instance) (${f(llama)}) or sum by (instance) (${f(vllm)})`;
  const avg = (name: string): string => `avg_over_time(${name}${s}[${w}])`;
  return {
    inflight: both(avg, LLAMA_SERIES.inflight, VLLM_SERIES.inflight),
    queued: both(avg, LLAMA_SERIES.queued, VLLM_SERIES.queued),
    tokenRate: both((name) => `rate(${name}${s}[${w}])`, LLAMA_SERIES.tokens, VLLM_SERIES.tokens),
    kvCache: `max by (instance) (${avg(LLAMA_SERIES.kv)}) or max by (instance) (${avg(VLLM_SERIES.kv)}) or max by (instance) (${avg(VLLM_METRICS.kvOld)})`,
  };
}
