import { first, GatewayStatus, parseLenient } from './admin-schemas';
import { blankCapacity, downResult, errorLabel, getJson, type Adapter, type Counters } from './poll-types';
import { isErrorStatus } from './usage-rows';
import { messageOf } from '../../../../shared/errors';

/** Fields of `/v1/ops/status`'s `capacity` object Loopdeck expects. */
export const GATEWAY_FIELDS = ['inflight_requests', 'inflight_high_water', 'total_shed', 'heap_size_limit_mb', 'heap_utilization_pct'] as const;

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
      return downResult(proxy, 'gateway', now, messageOf(e));
    }
    const parsed = parseLenient(GatewayStatus, body);
    const cap = parsed.ok ? parsed.value.capacity : null;
    if (!parsed.ok || !cap) return downResult(proxy, 'gateway', now, `${label}/v1/ops/status has no "capacity" object${parsed.ok ? '' : ` (${parsed.problem})`}`);
    const notes = parsed.problems.map((p) => `${label}/v1/ops/status: ${p}`);
    const missing: string[] = GATEWAY_FIELDS.filter((f) => cap[f] == null).map((f) => `capacity.${f}`);
    const inflight = cap.inflight_requests ?? null;
    const totalShed = cap.total_shed ?? null;
    const threshold = first(cap.shed_threshold, cap.max_inflight_requests, cap.max_inflight) ?? shedThreshold;
    if (threshold === null) missing.push('capacity.shed_threshold');
    // Optional counters some gateways add; without them the shed count is the only error counter.
    const byStatus = first(cap.responses_by_status, cap.status_counts);
    const requests = cap.requests_total ?? null;
    let counters: Counters | null = null;
    if (byStatus || requests !== null || totalShed !== null) {
      const errors: Record<string, number> = {};
      for (const [status, v] of Object.entries(byStatus ?? {})) {
        if (v != null && isErrorStatus(status)) errors[status] = v;
      }
      if (!byStatus && totalShed !== null) errors.shed = totalShed;
      const total = requests ?? Object.values(byStatus ?? {}).reduce<number>((a, n) => a + (n ?? 0), 0);
      counters = { requests: total, errors };
    }
    return {
      capacity: [
        {
          ...blankCapacity(proxy, 'gateway', proxy, now),
          up: true,
          inflight,
          shedThreshold: threshold,
          highWater: cap.inflight_high_water ?? null,
          totalShed,
          heapUtilizationPct: cap.heap_utilization_pct ?? null,
          heapSizeLimitMb: cap.heap_size_limit_mb ?? null,
          missing,
          error: notes.length ? notes.join('; ') : null,
        },
      ],
      samples: [{ proxy, host: proxy, t: now.getTime(), up: true, slotsTotal: null, slotsBusy: null, inflight, queued: null, counters }],
      usage: [],
    };
  };
}

/** The gateway adapter with no configured threshold. */
export const pollGateway: Adapter = gatewayAdapter();
