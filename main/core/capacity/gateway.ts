import { blankCapacity, downResult, errorLabel, getJson, int, num, obj, pick, type Adapter, type Counters } from './poll-types';
import { isErrorStatus } from './usage-rows';

/** Fields of `/v1/ops/status`'s `capacity` object Loopdeck expects. */
export const GATEWAY_FIELDS = ['inflight_requests', 'inflight_high_water', 'total_shed', 'heap_size_limit_mb', 'heap_utilization_pct'] as const;

/** Where a gateway may state its shed threshold (it often does not: it is an env var). */
const THRESHOLD_KEYS = ['shed_threshold', 'max_inflight_requests', 'max_inflight'];

/**
 * Make a gateway adapter. `shedThreshold` is the configured threshold from Loopdeck's config,
 * used when the status does not say (e.g. `BR_MAX_INFLIGHT_REQUESTS` lives only in the env).
 */
export function gatewayAdapter(shedThreshold: number | null = null): Adapter {
  return async (get, proxy, now, base) => {
    const label = errorLabel(proxy, base);
    let body: unknown;
    try {
      body = await getJson(get, label, '/v1/ops/status');
    } catch (e) {
      return downResult(proxy, 'gateway', now, (e as Error).message);
    }
    const cap = obj(obj(body)?.capacity);
    if (!cap) return downResult(proxy, 'gateway', now, `${label}/v1/ops/status has no "capacity" object`);
    const missing: string[] = GATEWAY_FIELDS.filter((f) => cap[f] === undefined || cap[f] === null).map((f) => `capacity.${f}`);
    const inflight = int(cap.inflight_requests);
    const totalShed = int(cap.total_shed);
    const threshold = num(pick(cap, THRESHOLD_KEYS)?.value) ?? shedThreshold;
    if (threshold === null) missing.push('capacity.shed_threshold');
    // Optional counters some gateways add; without them the shed count is the only error counter.
    const byStatus = obj(pick(cap, ['responses_by_status', 'status_counts'])?.value);
    const requests = num(cap.requests_total);
    let counters: Counters | null = null;
    if (byStatus || requests !== null || totalShed !== null) {
      const errors: Record<string, number> = {};
      for (const [status, n] of Object.entries(byStatus ?? {})) {
        const v = num(n);
        if (v !== null && isErrorStatus(status)) errors[status] = v;
      }
      if (!byStatus && totalShed !== null) errors.shed = totalShed;
      const total = requests ?? Object.values(byStatus ?? {}).reduce<number>((a, n) => a + (num(n) ?? 0), 0);
      counters = { requests: total, errors };
    }
    return {
      capacity: [
        {
          ...blankCapacity(proxy, 'gateway', proxy, now),
          up: true,
          inflight,
          shedThreshold: threshold,
          highWater: num(cap.inflight_high_water),
          totalShed,
          missing,
        },
      ],
      samples: [{ proxy, host: proxy, t: now.getTime(), up: true, slotsTotal: null, slotsBusy: null, inflight, queued: null, counters }],
      usage: [],
    };
  };
}

/** The gateway adapter with no configured threshold. */
export const pollGateway: Adapter = gatewayAdapter();
