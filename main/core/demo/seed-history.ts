import type { Store } from '../store/store';
import type { FleetSim } from './fleet-sim';
import { kvShare } from './vllm-text';
import { CapacityHistory, type StoredSample } from '../capacity/history/history-store';

/**
 * Fill a store with `days` of the simulated fleet `sim`'s history behind the crossbar proxy `proxy`:
 * one sample a minute for the last week and one every ten minutes before it (what the rollups
 * would hold), so the demo's charts have a month to show from the first second. `outages` force
 * hosts down over stretches of it (the demo's fleet-caused incomplete night).
 */
export function seedFleetHistory(store: Store, proxy: string, sim: FleetSim, days: number, now: Date, outages: readonly { host: string; from: number; to: number }[] = []): number {
  const history = new CapacityHistory(store.sql);
  const end = now.getTime();
  const week = 7 * 86_400_000;
  const samples: StoredSample[] = [];
  for (let t = end - days * 86_400_000; t < end - 60_000; t += t < end - week ? 600_000 : 60_000) {
    const tick = Math.floor(t / 5000);
    const span = t < end - week ? 600_000 : 60_000;
    for (const h of sim.hosts) {
      const out = outages.some((o) => o.host === h.name && t >= o.from && t < o.to);
      const st = out ? { ...sim.hostState(h, tick), down: true } : sim.hostState(h, tick);
      const inflight = st.models.reduce((a, m) => a + m.inflight, 0);
      const queued = st.models.reduce((a, m) => a + m.queued, 0);
      const rows = sim.rowsAt(h, tick);
      const errors: Record<string, number> = {};
      for (const r of rows) if (r.status >= 400) errors[String(r.status)] = (errors[String(r.status)] ?? 0) + (span / 5000);
      samples.push({
        proxy,
        host: h.name,
        t,
        up: !st.down,
        slotsTotal: h.slots,
        slotsBusy: st.down ? null : inflight,
        inflight: st.down ? null : inflight,
        queued: st.down ? null : queued,
        spanMs: span,
        requests: rows.length * (span / 5000),
        errors,
      });
    }
  }
  history.record(samples);
  return samples.length;
}

/**
 * Fill a store with `days` of one simulated backend's history as a server polled directly (a
 * llama-server or vLLM proxy named `proxy` for backend `backend`), with its KV-cache and
 * generated tokens, at the same resolutions as seedFleetHistory.
 */
export function seedServerHistory(store: Store, proxy: string, backend: string, sim: FleetSim, days: number, now: Date): number {
  const h = sim.hosts.find((x) => x.name === backend);
  if (!h) return 0;
  const end = now.getTime();
  const week = 7 * 86_400_000;
  const samples: StoredSample[] = [];
  for (let t = end - days * 86_400_000; t < end - 60_000; t += t < end - week ? 600_000 : 60_000) {
    const tick = Math.floor(t / 5000);
    const span = t < end - week ? 600_000 : 60_000;
    const st = sim.hostState(h, tick);
    const up = !st.down && !st.loading;
    const busy = st.models.reduce((a, m) => a + m.inflight, 0);
    const tokens = sim.rowsAt(h, tick).reduce((a, r) => a + r.tokens, 0) * (span / 5000);
    samples.push({
      proxy,
      host: proxy,
      t,
      up,
      slotsTotal: h.slots,
      slotsBusy: up ? busy : null,
      inflight: up ? busy : null,
      queued: up ? st.models.reduce((a, m) => a + m.queued, 0) : null,
      spanMs: 0,
      requests: null,
      errors: null,
      kvCachePct: up ? Math.round(kvShare(h, tick, busy) * 1000) / 10 : null,
      tokens: up ? tokens : null,
      tokenSpanMs: up ? span : 0,
    });
  }
  new CapacityHistory(store.sql).record(samples);
  return samples.length;
}

/**
 * Fill a store with `days` of the API gateway `proxy`'s history in front of the simulated fleet:
 * up, with the fleet's requests in flight, at the rollups' resolutions. The demo's Loopdeck has
 * watched every proxy its loop uses all month, so its nights are put down to what it saw.
 */
export function seedGatewayHistory(store: Store, proxy: string, sim: FleetSim, days: number, now: Date): number {
  const end = now.getTime();
  const week = 7 * 86_400_000;
  const samples: StoredSample[] = [];
  for (let t = end - days * 86_400_000; t < end - 60_000; t += t < end - week ? 600_000 : 60_000) {
    const tick = Math.floor(t / 5000);
    const inflight = sim.hosts.reduce((a, h) => a + sim.hostState(h, tick).models.reduce((b, m) => b + m.inflight, 0), 0);
    samples.push({ proxy, host: proxy, t, up: true, slotsTotal: null, slotsBusy: null, inflight, queued: null, spanMs: 0, requests: null, errors: null });
  }
  new CapacityHistory(store.sql).record(samples);
  return samples.length;
}
