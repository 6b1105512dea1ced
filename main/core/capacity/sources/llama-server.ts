import type { z } from 'zod';
import type { ModelCapacity } from '../../../../shared/domain';
import { clip, MAX_SLOTS_PER_HOST, parseJsonBounded, proxyKey } from '../limits';
import { gauge, parsePrometheus } from './prometheus';
import { LlamaHealth, LlamaProps, LlamaSlot, LlamaSlots, parseLenient } from './admin-schemas';
import { blankCapacity, downResult, errorLabel, excerpt, FetchError, getJson, getText, type Adapter, type GetReply } from './poll-types';
import { messageOf } from '../../../../shared/errors';

type Props = z.infer<typeof LlamaProps>;
type Slot = z.infer<typeof LlamaSlot>;

/** The model's name from `/props`: its alias, else the file name of `model_path`. */
function modelId(props: Props | null): string {
  const alias = props?.model_alias;
  if (alias) return alias;
  const path = props?.model_path;
  if (path) return path.split(/[\\/]/).pop() ?? path;
  return 'default';
}

/**
 * Poll one llama.cpp server directly: `/health` (200 ready, 503 while loading the model: up but
 * loading, said in `error`), `/props`, `/slots` (off with `--no-slots`), `/metrics` (only with
 * `--metrics`; `llamacpp:requests_processing` / `llamacpp:requests_deferred`, the generated-token
 * counter `llamacpp:tokens_predicted_total`, and `llamacpp:kv_cache_usage_ratio` (0–1) where the
 * build exposes it: older builds did, current ones dropped it, so it is read when there and never
 * listed as missing).
 */
export const pollLlamaServer: Adapter = async (get, proxy, now, base) => {
  const label = errorLabel(proxy, base);
  let health: GetReply;
  try {
    health = await get('/health');
  } catch (e) {
    return downResult(proxy, 'llama-server', now, `${label}/health: ${messageOf(e) || String(e)}`);
  }
  let healthJson: z.infer<typeof LlamaHealth> | null;
  try {
    const parsed = LlamaHealth.safeParse(parseJsonBounded(health.body));
    healthJson = parsed.success ? parsed.data : null;
  } catch {
    healthJson = null;
  }
  const loading = health.status === 503 && healthJson !== null;
  if (!loading && (health.status !== 200 || healthJson === null)) {
    const what = health.status !== 200 ? `answered HTTP ${health.status}` : 'answered something that is not JSON';
    return downResult(proxy, 'llama-server', now, `${label}/health ${what}: ${excerpt(health.body)}`);
  }
  const missing: string[] = [];
  const notes: string[] = [];
  if (loading) {
    const message = healthJson?.error?.message;
    notes.push(`${label}/health answered 503 (${message ?? 'unavailable'}): the server is up but still loading its model`);
  }
  const optional = async <T>(what: string, fetch: () => Promise<T>): Promise<T | null> => {
    try {
      return await fetch();
    } catch (e) {
      missing.push(what);
      // 404/501: the endpoint is off (no --metrics, --no-slots); not worth an error. Loading: expected.
      if (!(e instanceof FetchError && (e.status === 404 || e.status === 501 || (loading && e.status === 503)))) notes.push(messageOf(e));
      return null;
    }
  };
  const propsBody = await optional('props', () => getJson(get, label, '/props'));
  let props: Props | null = null;
  if (propsBody !== null) {
    const parsed = parseLenient(LlamaProps, propsBody);
    if (parsed.ok) {
      props = parsed.value;
      notes.push(...parsed.problems.map((p) => `${label}/props: ${p}`));
    } else {
      missing.push('props');
      notes.push(`${label}/props: ${parsed.problem}`);
    }
  }
  const slotsTotal = props?.total_slots ?? null;
  const nCtxProps = props?.default_generation_settings?.n_ctx ?? null;
  if (props) {
    if (slotsTotal === null) missing.push('props.total_slots');
    if (nCtxProps === null) missing.push('props.default_generation_settings.n_ctx');
    if (props.build_info == null) missing.push('props.build_info');
  }
  const slotsBody = await optional('slots', () => getJson(get, label, '/slots'));
  const slotList = slotsBody === null ? null : LlamaSlots.safeParse(slotsBody).data ?? null;
  if (slotList && slotList.length > MAX_SLOTS_PER_HOST) {
    notes.push(`${proxyKey(proxy)}: /slots listed ${slotList.length} slots; counting the first ${MAX_SLOTS_PER_HOST} (Loopdeck's limit per server)`);
  }
  // Entries that are not objects are not slots; a slot's odd field reads as absent and is named once.
  const slotProblems: string[] = [];
  const slots = slotList
    ? slotList.slice(0, MAX_SLOTS_PER_HOST).flatMap((raw, i): Slot[] => {
        const parsed = parseLenient(LlamaSlot, raw);
        if (!parsed.ok) return [];
        if (slotProblems.length === 0 && parsed.problems.length > 0) slotProblems.push(`${label}/slots: [${i}].${parsed.problems[0]}`);
        return [parsed.value];
      })
    : null;
  notes.push(...slotProblems);
  if (slotsBody !== null && !slots) notes.push(`${label}/slots is not a JSON array`);
  const busyOf = (s: Slot): boolean => s.is_processing ?? (s.state != null && s.state !== 0);
  const slotsBusy = slots ? slots.filter(busyOf).length : null;
  const slotCtx = slots?.map((s) => s.n_ctx ?? null).find((n) => n !== null) ?? null;
  let inflight: number | null = null;
  let queued: number | null = null;
  let kvCachePct: number | null = null;
  let generatedTokens: number | null = null;
  const metricsText = await optional('metrics', () => getText(get, label, '/metrics'));
  if (metricsText !== null) {
    try {
      const points = parsePrometheus(metricsText);
      inflight = gauge(points, 'llamacpp:requests_processing');
      queued = gauge(points, 'llamacpp:requests_deferred');
      if (inflight === null) missing.push('metrics.llamacpp:requests_processing');
      if (queued === null) missing.push('metrics.llamacpp:requests_deferred');
      const kv = gauge(points, 'llamacpp:kv_cache_usage_ratio');
      if (kv !== null && Number.isFinite(kv) && kv >= 0 && kv <= 1) kvCachePct = Math.round(kv * 1000) / 10;
      else if (kv !== null) notes.push(`${label}/metrics: llamacpp:kv_cache_usage_ratio = ${kv}: not a share of the KV-cache from 0 to 1 (treated as missing)`);
      const predicted = gauge(points, 'llamacpp:tokens_predicted_total');
      if (predicted !== null && Number.isFinite(predicted) && predicted >= 0) generatedTokens = predicted;
    } catch (e) {
      missing.push('metrics');
      notes.push(`${label}/metrics: ${messageOf(e)}`);
    }
  }
  inflight ??= slotsBusy;
  const total = slotsTotal ?? (slots ? slots.length : null);
  // n_ctx as the server reports it (props' default slot settings, else a slot's own).
  const nCtx = nCtxProps ?? slotCtx;
  const model: ModelCapacity = { id: clip(modelId(props)), nCtx, slots: total, inflight, queued };
  return {
    capacity: [
      {
        ...blankCapacity(proxy, 'llama-server', proxy, now),
        up: true,
        slotsTotal: total,
        slotsBusy,
        inflight,
        queued,
        nCtx,
        ...(kvCachePct !== null ? { kvCachePct } : {}),
        models: props || slots ? [model] : [],
        missing,
        error: notes.length ? notes.join('; ') : null,
      },
    ],
    samples: [{ proxy, host: proxy, t: now.getTime(), up: true, slotsTotal: total, slotsBusy, inflight, queued, counters: null, kvCachePct, generatedTokens }],
    usage: [],
  };
};
