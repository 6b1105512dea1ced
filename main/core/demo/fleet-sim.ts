/** One time step of the simulated fleet, ms: every figure is a pure function of (seed, tick). */
export const TICK_MS = 5000;
const OUTAGE_WINDOW = 360;
const ROUTES = ['bm', 'night-audit', 'coder'] as const;
export const MODEL_NAMES = ['qwen3-32b', 'gemma-3-12b'] as const;
const SLOTS = [4, 2, 4, 8] as const;
const PER_SLOT_CTX = 16_384;

/** A simulated backend's fixed shape. */
export interface SimHost {
  readonly name: string;
  readonly index: number;
  readonly slots: number;
  readonly models: readonly { readonly id: string; readonly share: number }[];
  readonly perSlotCtx: number;
}

/** A simulated accounting row, as crossbar writes it. */
export interface SimRow {
  readonly time: number;
  readonly route: string;
  readonly host: string;
  readonly model: string;
  readonly status: number;
  readonly ttfb_ms: number;
  readonly tokens: number;
  readonly error: string;
}

/** A backend's state at one tick. */
export interface SimHostState {
  readonly down: boolean;
  readonly loading: boolean;
  readonly models: readonly { readonly id: string; readonly inflight: number; readonly queued: number; readonly demand: number }[];
}

/** Deterministic uniform [0, 1) from integers (a small integer hash, splitmix-like). */
export function rand(...xs: number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    h = Math.imul(h ^ Math.floor(x / 4294967296), 0x27d4eb2f);
    h ^= h >>> 15;
  }
  return (h >>> 0) / 4294967296;
}

/** The fleet's backends: `gpu-a`, `gpu-b`, … with 2–8 slots and one or two models each. */
export function simHosts(count: number): SimHost[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `gpu-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? Math.floor(i / 26) : ''}`,
    index: i,
    slots: SLOTS[i % SLOTS.length] ?? 4,
    models: i % 2 === 1 ? [{ id: MODEL_NAMES[0], share: 0.7 }, { id: MODEL_NAMES[1], share: 0.45 }] : [{ id: MODEL_NAMES[0], share: 1 }],
    perSlotCtx: PER_SLOT_CTX,
  }));
}

/**
 * The deterministic fleet: outages (a window of 30 minutes has a 15 % chance of a 1–5 minute
 * outage per host not named steady, then 20 s of loading), demand on a 1-hour wave with noise, a
 * queue once demand exceeds the slots, accounting rows per tick, and the gateway in front of it.
 */
export class FleetSim {
  readonly hosts: SimHost[];
  /** Hosts forced down by the operator of the simulation (setHostDown). */
  readonly forced = new Set<string>();
  /** The gateway's shed threshold (far above what the fleet can serve: the R40 finding). */
  readonly shedThreshold = 80;

  /** Hosts spared the random outages (forcing them down still works). */
  readonly steady: ReadonlySet<string>;

  constructor(
    readonly seed: number,
    hostCount: number,
    steady: Iterable<string> = [],
  ) {
    this.hosts = simHosts(hostCount);
    this.steady = new Set(steady);
  }

  /** Where the gateway's provider starts failing (504s): 60 % of the fleet's parallel slots, far below the threshold. */
  get knee(): number {
    return Math.round(0.6 * this.hosts.reduce((a, h) => a + h.slots, 0));
  }

  /** A backend's state at a tick (forced down applies to every tick asked about while set). */
  hostState(h: SimHost, tick: number): SimHostState {
    const w = Math.floor(tick / OUTAGE_WINDOW);
    const at = tick - w * OUTAGE_WINDOW;
    let down = this.forced.has(h.name);
    let loading = false;
    if (!this.steady.has(h.name) && rand(this.seed, h.index, w, 1) < 0.15) {
      const start = Math.floor(rand(this.seed, h.index, w, 2) * 300);
      const len = 12 + Math.floor(rand(this.seed, h.index, w, 3) * 48);
      if (at >= start && at < start + len) down = true;
      else if (at >= start + len && at < start + len + 4) loading = true;
    }
    let free = h.slots;
    const models = h.models.map((m, mi) => {
      const wave = 0.5 + 0.4 * Math.sin((2 * Math.PI * tick) / 720 + h.index * 1.7 + mi) + 0.3 * (rand(this.seed, h.index, mi, tick, 4) - 0.5);
      const demand = Math.max(0, Math.round(h.slots * 1.6 * wave * m.share));
      if (down || loading) return { id: m.id, inflight: 0, queued: 0, demand };
      const inflight = Math.min(demand, free);
      free -= inflight;
      return { id: m.id, inflight, queued: demand - inflight, demand };
    });
    return { down, loading: !down && loading, models };
  }

  /** The accounting rows crossbar wrote for a backend during one tick. */
  rowsAt(h: SimHost, tick: number): SimRow[] {
    const st = this.hostState(h, tick);
    const rows: SimRow[] = [];
    st.models.forEach((m, mi) => {
      const n = Math.floor((st.down ? m.demand * 0.2 : m.inflight * 0.25) + rand(this.seed, h.index, mi, tick, 5) * 1.5);
      for (let k = 0; k < n; k++) {
        const r = (j: number): number => rand(this.seed, h.index, mi, tick, k, j);
        let status = 200;
        let error = '';
        if (st.down || st.loading) [status, error] = [502, st.loading ? 'upstream loading model' : 'upstream unreachable'];
        else if (r(1) < 0.015) [status, error] = [499, 'client cancelled'];
        else if (m.queued > h.slots / 2 && r(1) < 0.12) [status, error] = [503, 'queue full'];
        else if (r(1) < 0.03) [status, error] = [400, 'prompt too large'];
        rows.push({
          time: tick * TICK_MS + Math.floor(r(2) * TICK_MS),
          route: ROUTES[Math.floor(r(3) * ROUTES.length)] ?? 'bm',
          host: h.name,
          model: m.id,
          status,
          ttfb_ms: status === 200 ? Math.round(80 + r(4) * 900 + m.queued * 350) : Math.round(r(4) * 50),
          tokens: status === 200 ? 200 + Math.floor(r(5) * 3000) : 0,
          error,
        });
      }
    });
    return rows.sort((a, b) => a.time - b.time);
  }

  /** What the gateway sees at a tick: everything the clients want in flight, and its 504s. */
  gatewayAt(tick: number): { inflight: number; errors504: number; shed: number; requests: number } {
    let inflight = 0;
    let requests = 0;
    for (const h of this.hosts) {
      inflight += this.hostState(h, tick).models.reduce((a, m) => a + m.demand, 0);
      requests += this.rowsAt(h, tick).length;
    }
    const shed = Math.max(0, inflight - this.shedThreshold);
    const errors504 = Math.max(0, Math.min(inflight, this.shedThreshold) - this.knee);
    return { inflight, errors504, shed, requests: requests + errors504 + shed };
  }
}
