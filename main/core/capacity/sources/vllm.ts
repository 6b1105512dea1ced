import { parsePrometheus } from './prometheus';
import { blankCapacity, downResult, errorLabel, excerpt, getText, type Adapter } from './poll-types';
import { hasVllmSeries, readVllm } from './vllm-metrics';
import { messageOf } from '../../../../shared/errors';

/**
 * Poll one vLLM server directly: its `/metrics` alone (always on in vLLM's API server) gives
 * requests running (the busy slots' analogue: vLLM has no fixed slots) and waiting (the queue),
 * the KV-cache in use and the token counters, which the poller turns into tokens a second.
 * Garbage, an HTML page or another server's metrics on the URL is the proxy's error, down.
 */
export const pollVllm: Adapter = async (get, proxy, now, base) => {
  const label = errorLabel(proxy, base);
  let text: string;
  try {
    text = await getText(get, label, '/metrics');
  } catch (e) {
    return downResult(proxy, 'vllm', now, messageOf(e));
  }
  let points;
  try {
    points = parsePrometheus(text);
  } catch (e) {
    return downResult(proxy, 'vllm', now, `${label}/metrics answered ${messageOf(e)}: ${excerpt(text)}; is the URL a vLLM server's?`);
  }
  if (!hasVllmSeries(points)) {
    return downResult(proxy, 'vllm', now, `${label}/metrics answered Prometheus text without any vllm:* series (${points.length} other samples, e.g. ${points[0]?.name ?? '?'}); is the URL a vLLM server's? (a llama.cpp server is kind: llama-server)`);
  }
  const f = readVllm(points);
  const notes = f.problems.map((p) => `${label}/metrics: ${p}`);
  return {
    capacity: [
      {
        ...blankCapacity(proxy, 'vllm', proxy, now),
        up: true,
        slotsBusy: f.running,
        inflight: f.running,
        queued: f.waiting,
        kvCachePct: f.kvCachePct,
        models: f.models,
        missing: f.missing.map((m) => `metrics.${m}`),
        error: notes.length ? notes.join('; ') : null,
      },
    ],
    samples: [{ proxy, host: proxy, t: now.getTime(), up: true, slotsTotal: null, slotsBusy: f.running, inflight: f.running, queued: f.waiting, counters: null, kvCachePct: f.kvCachePct, generatedTokens: f.generationTokens }],
    usage: [],
  };
};
