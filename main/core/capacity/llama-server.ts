import type { ModelCapacity } from '../../../shared/domain';
import { clip, MAX_SLOTS_PER_HOST, parseJsonBounded, proxyKey } from './limits';
import { gauge, parsePrometheus } from './prometheus';
import { blankCapacity, downResult, errorLabel, excerpt, FetchError, getJson, getText, int, obj, type Adapter, type GetReply } from './poll-types';

/** The model's name from `/props`: its alias, else the file name of `model_path`. */
function modelId(props: Record<string, unknown> | null): string {
  const alias = props?.model_alias;
  if (typeof alias === 'string' && alias) return alias;
  const path = props?.model_path;
  if (typeof path === 'string' && path) return path.split(/[\\/]/).pop() ?? path;
  return 'default';
}

/**
 * Poll one llama.cpp server directly: `/health` (200 ready, 503 while loading the model: up but
 * loading, said in `error`), `/props`, `/slots` (off with `--no-slots`), `/metrics` (only with
 * `--metrics`; `llamacpp:requests_processing` / `llamacpp:requests_deferred`).
 */
export const pollLlamaServer: Adapter = async (get, proxy, now, base) => {
  const label = errorLabel(proxy, base);
  let health: GetReply;
  try {
    health = await get('/health');
  } catch (e) {
    return downResult(proxy, 'llama-server', now, `${label}/health: ${(e as Error).message || String(e)}`);
  }
  let healthJson: Record<string, unknown> | null;
  try {
    healthJson = obj(parseJsonBounded(health.body));
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
    const message = obj(healthJson?.error)?.message;
    notes.push(`${label}/health answered 503 (${typeof message === 'string' ? message : 'unavailable'}): the server is up but still loading its model`);
  }
  const optional = async <T>(what: string, fetch: () => Promise<T>): Promise<T | null> => {
    try {
      return await fetch();
    } catch (e) {
      missing.push(what);
      // 404/501: the endpoint is off (no --metrics, --no-slots); not worth an error. Loading: expected.
      if (!(e instanceof FetchError && (e.status === 404 || e.status === 501 || (loading && e.status === 503)))) notes.push((e as Error).message);
      return null;
    }
  };
  const props = obj(await optional('props', () => getJson(get, label, '/props')));
  const gen = obj(props?.default_generation_settings);
  const slotsTotal = int(props?.total_slots);
  const nCtxProps = int(gen?.n_ctx);
  if (props) {
    if (slotsTotal === null) missing.push('props.total_slots');
    if (nCtxProps === null) missing.push('props.default_generation_settings.n_ctx');
    if (typeof props.build_info !== 'string') missing.push('props.build_info');
  }
  const slotsBody = await optional('slots', () => getJson(get, label, '/slots'));
  const slotList = Array.isArray(slotsBody) ? (slotsBody as unknown[]) : null;
  if (slotList && slotList.length > MAX_SLOTS_PER_HOST) {
    notes.push(`${proxyKey(proxy)}: /slots listed ${slotList.length} slots; counting the first ${MAX_SLOTS_PER_HOST} (Loopdeck's limit per server)`);
  }
  const slots = slotList ? slotList.slice(0, MAX_SLOTS_PER_HOST).map(obj).filter((s): s is Record<string, unknown> => s !== null) : null;
  if (slotsBody !== null && !slots) notes.push(`${label}/slots is not a JSON array`);
  // Older servers say `state` (0 idle, 1 processing) instead of `is_processing`.
  const busyOf = (s: Record<string, unknown>): boolean => (typeof s.is_processing === 'boolean' ? s.is_processing : int(s.state) !== null && int(s.state) !== 0);
  const slotsBusy = slots ? slots.filter(busyOf).length : null;
  const slotCtx = slots?.map((s) => int(s.n_ctx)).find((n) => n !== null) ?? null;
  let inflight: number | null = null;
  let queued: number | null = null;
  const metricsText = await optional('metrics', () => getText(get, label, '/metrics'));
  if (metricsText !== null) {
    try {
      const points = parsePrometheus(metricsText);
      inflight = gauge(points, 'llamacpp:requests_processing');
      queued = gauge(points, 'llamacpp:requests_deferred');
      if (inflight === null) missing.push('metrics.llamacpp:requests_processing');
      if (queued === null) missing.push('metrics.llamacpp:requests_deferred');
    } catch (e) {
      missing.push('metrics');
      notes.push(`${label}/metrics: ${(e as Error).message}`);
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
        models: props || slots ? [model] : [],
        missing,
        error: notes.length ? notes.join('; ') : null,
      },
    ],
    samples: [{ proxy, host: proxy, t: now.getTime(), up: true, slotsTotal: total, slotsBusy, inflight, queued, counters: null }],
    usage: [],
  };
};
