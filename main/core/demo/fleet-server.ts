import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FleetSim, TICK_MS, type SimHost, type SimRow } from './fleet-sim';
import { kvShare, vllmMetricsText } from './vllm-text';

/** Options for the simulated fleet. */
export interface FleetServerOptions {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number;
  readonly seed?: number;
  /** Backends behind the crossbar (default 3). */
  readonly hosts?: number;
  /** Backends spared the random outages (see FleetSim). */
  readonly steady?: readonly string[];
  readonly now?: () => Date;
}

/** A running simulated fleet. */
export interface FleetServer {
  readonly url: string;
  readonly port: number;
  readonly sim: FleetSim;
  /** Force a backend down (or let it follow the simulation again). */
  setHostDown(name: string, down: boolean): void;
  close(): Promise<void>;
}

/** How far back `/_crossbar/usage` answers rows (2 minutes): polls overlap, so rows repeat. */
const USAGE_WINDOW_TICKS = 24;

interface Cumulative {
  tick: number;
  /** `host|route|model|status` → requests, over complete ticks before `tick`. */
  readonly requests: Map<string, number>;
  gatewayRequests: number;
  readonly gatewayStatus: Map<string, number>;
  shed: number;
  highWater: number;
  tokens: Map<string, number>;
}

/**
 * A real HTTP server speaking every fleet API, driven by the clock:
 * crossbar under `/_crossbar/{hosts,usage,metrics}`, one llama-server per backend under
 * `/llama/<host>/{health,props,slots,metrics}` (a build that still exposes its KV-cache gauge),
 * the same backend as a vLLM server under `/vllm/<host>/{health,metrics}`, and a gateway at
 * `/v1/ops/status`.
 * Deterministic for a seed and clock; binds 127.0.0.1 only.
 */
export async function startFleetServer(opts: FleetServerOptions = {}): Promise<FleetServer> {
  const now = opts.now ?? (() => new Date());
  const sim = new FleetSim(opts.seed ?? 1, opts.hosts ?? 3, opts.steady);
  const startTick = Math.floor(now().getTime() / TICK_MS) - 720; // counters as if up for an hour
  const fresh = (): Cumulative => ({ tick: startTick, requests: new Map(), gatewayRequests: 0, gatewayStatus: new Map(), shed: 0, highWater: 0, tokens: new Map() });
  let cum = fresh();
  const bump = (m: Map<string, number>, k: string, by: number): void => void m.set(k, (m.get(k) ?? 0) + by);
  const addTick = (c: Cumulative, tick: number, rowsUpTo = Infinity): void => {
    for (const h of sim.hosts) {
      for (const r of sim.rowsAt(h, tick)) {
        if (r.time > rowsUpTo) continue;
        bump(c.requests, `${r.host}|${r.route}|${r.model}|${r.status}`, 1);
        bump(c.tokens, r.host, r.tokens);
      }
    }
    const g = sim.gatewayAt(tick);
    c.gatewayRequests += g.requests;
    bump(c.gatewayStatus, '200', g.requests - g.errors504 - g.shed);
    if (g.errors504) bump(c.gatewayStatus, '504', g.errors504);
    if (g.shed) bump(c.gatewayStatus, '503', g.shed);
    c.shed += g.shed;
    c.highWater = Math.max(c.highWater, g.inflight);
  };
  /** Totals up to `t`: complete ticks from the memo, plus the current tick's rows so far. */
  const totals = (t: number): Cumulative => {
    const tick = Math.floor(t / TICK_MS);
    if (tick < cum.tick) cum = fresh();
    while (cum.tick < tick) addTick(cum, cum.tick++);
    const c: Cumulative = { ...cum, requests: new Map(cum.requests), gatewayStatus: new Map(cum.gatewayStatus), tokens: new Map(cum.tokens) };
    addTick(c, tick, t);
    return c;
  };

  const hostView = (h: SimHost, tick: number) => {
    const st = sim.hostState(h, tick);
    const up = !st.down && !st.loading;
    const inflight = st.models.reduce((a, m) => a + m.inflight, 0);
    const queued = st.models.reduce((a, m) => a + m.queued, 0);
    return {
      name: h.name,
      url: `http://10.0.0.${10 + h.index}:8080`,
      up,
      error: st.down ? 'dial tcp: connection refused' : st.loading ? 'loading model' : '',
      n_ctx: up ? h.slots * h.perSlotCtx : 0,
      slots: up ? h.slots : 0,
      per_slot_ctx: up ? h.perSlotCtx : 0,
      models: up ? Object.fromEntries(st.models.map((m) => [m.id, { n_ctx: h.slots * h.perSlotCtx, slots: h.slots, per_slot_ctx: h.perSlotCtx, inflight: m.inflight, queued: m.queued }])) : {},
      inflight,
      queued,
    };
  };

  const usage = (t: number): SimRow[] => {
    const tick = Math.floor(t / TICK_MS);
    const rows: SimRow[] = [];
    for (let k = tick - USAGE_WINDOW_TICKS; k <= tick; k++) for (const h of sim.hosts) rows.push(...sim.rowsAt(h, k).filter((r) => r.time <= t));
    return rows.sort((a, b) => a.time - b.time || a.host.localeCompare(b.host));
  };

  const crossbarMetrics = (t: number): string => {
    const c = totals(t);
    const tick = Math.floor(t / TICK_MS);
    const lines = ['# HELP crossbar_requests_total Requests proxied, by route, host, model and status.', '# TYPE crossbar_requests_total counter'];
    for (const [k, v] of [...c.requests].sort()) {
      const [host, route, model, status] = k.split('|');
      lines.push(`crossbar_requests_total{route="${route}",host="${host}",model="${model}",status="${status}"} ${v}`);
    }
    lines.push('# HELP crossbar_inflight Requests holding a slot.', '# TYPE crossbar_inflight gauge');
    const q: string[] = ['# HELP crossbar_queued Requests waiting for a slot.', '# TYPE crossbar_queued gauge'];
    const up: string[] = ['# HELP crossbar_host_up Whether the backend answered its last health poll.', '# TYPE crossbar_host_up gauge'];
    for (const h of sim.hosts) {
      const st = sim.hostState(h, tick);
      for (const m of st.models) {
        lines.push(`crossbar_inflight{host="${h.name}",model="${m.id}"} ${m.inflight}`);
        q.push(`crossbar_queued{host="${h.name}",model="${m.id}"} ${m.queued}`);
      }
      up.push(`crossbar_host_up{host="${h.name}"} ${st.down || st.loading ? 0 : 1}`);
    }
    return [...lines, ...q, ...up, ''].join('\n');
  };

  const llama = (h: SimHost, what: string, t: number, res: ServerResponse): void => {
    const tick = Math.floor(t / TICK_MS);
    const st = sim.hostState(h, tick);
    if (st.down) {
      res.socket?.destroy(); // as unreachable as a dead server gets on a shared port
      return;
    }
    if (st.loading) return json(res, 503, { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } });
    const m0 = h.models[0]?.id ?? 'model';
    const busy = st.models.reduce((a, m) => a + m.inflight, 0);
    const queued = st.models.reduce((a, m) => a + m.queued, 0);
    if (what === 'health') return json(res, 200, { status: 'ok' });
    if (what === 'props') {
      return json(res, 200, {
        default_generation_settings: { id: 0, id_task: -1, n_ctx: h.perSlotCtx, speculative: false, is_processing: false, params: { temperature: 0.8, top_k: 40, top_p: 0.95, n_predict: -1 } },
        total_slots: h.slots,
        model_path: `/models/${m0}-Q4_K_M.gguf`,
        chat_template: '{% for message in messages %}...{% endfor %}',
        modalities: { vision: false, audio: false },
        build_info: 'b6530-8f1e8a3c',
      });
    }
    if (what === 'slots') {
      return json(res, 200, Array.from({ length: h.slots }, (_, id) => ({ id, id_task: id < busy ? tick * 100 + id : -1, n_ctx: h.perSlotCtx, speculative: false, is_processing: id < busy, params: { n_predict: -1 }, next_token: { has_next_token: id < busy, n_remain: -1, n_decoded: 0 } })));
    }
    if (what === 'metrics') {
      const c = totals(t);
      const done = [...c.requests].filter(([k]) => k.startsWith(`${h.name}|`)).reduce((a, [, v]) => a + v, 0);
      const text = [
        ['prompt_tokens_total', 'counter', 'Number of prompt tokens processed.', (c.tokens.get(h.name) ?? 0) * 3],
        ['tokens_predicted_total', 'counter', 'Number of generation tokens processed.', c.tokens.get(h.name) ?? 0],
        ['n_decode_total', 'counter', 'Total number of llama_decode() calls', done * 40],
        ['requests_processing', 'gauge', 'Number of requests processing.', busy],
        ['requests_deferred', 'gauge', 'Number of requests deferred.', queued],
        ['kv_cache_usage_ratio', 'gauge', 'KV-cache usage. 1 = 100 percent usage.', kvShare(h, tick, busy)],
      ].flatMap(([n, type, help, v]) => [`# HELP llamacpp:${n} ${help}`, `# TYPE llamacpp:${n} ${type}`, `llamacpp:${n} ${v}`]);
      return text_(res, `${text.join('\n')}\n`);
    }
    json(res, 404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
  };

  const vllm = (h: SimHost, what: string, t: number, res: ServerResponse): void => {
    const tick = Math.floor(t / TICK_MS);
    const st = sim.hostState(h, tick);
    // vLLM serves nothing until its engine is up: down and loading alike refuse the connection.
    if (st.down || st.loading) return void res.socket?.destroy();
    if (what === 'health') return void res.writeHead(200).end();
    const generated = totals(t).tokens.get(h.name) ?? 0;
    text_(res, vllmMetricsText(h, tick, st.models, generated));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const t = now().getTime();
    const path = new URL(req.url ?? '/', 'http://fleet').pathname;
    const tick = Math.floor(t / TICK_MS);
    if (path === '/_crossbar/hosts') return json(res, 200, sim.hosts.map((h) => hostView(h, tick)));
    if (path === '/_crossbar/usage') return json(res, 200, usage(t).map((r) => ({ ...r, time: new Date(r.time).toISOString() })));
    if (path === '/_crossbar/metrics') return text_(res, crossbarMetrics(t));
    if (path === '/v1/ops/status') {
      const c = totals(t);
      const g = sim.gatewayAt(tick);
      return json(res, 200, {
        status: 'ok',
        capacity: {
          inflight_requests: g.inflight,
          inflight_high_water: c.highWater,
          total_shed: c.shed,
          heap_size_limit_mb: 4144,
          heap_utilization_pct: Math.round((30 + 25 * (0.5 + 0.5 * Math.sin(tick / 97))) * 10) / 10,
          max_inflight_requests: sim.shedThreshold,
          requests_total: c.gatewayRequests,
          responses_by_status: Object.fromEntries(c.gatewayStatus),
        },
      });
    }
    const m = /^\/llama\/([^/]+)\/(health|props|slots|metrics)$/.exec(path);
    const host = m ? sim.hosts.find((h) => h.name === m[1]) : undefined;
    if (m && host) return llama(host, m[2] ?? '', t, res);
    const v = /^\/vllm\/([^/]+)\/(health|metrics)$/.exec(path);
    const vhost = v ? sim.hosts.find((h) => h.name === v[1]) : undefined;
    if (v && vhost) return vllm(vhost, v[2] ?? '', t, res);
    if (path === '/') return json(res, 200, { crossbar: '/_crossbar/{hosts,usage,metrics}', llama: sim.hosts.map((h) => `/llama/${h.name}/{health,props,slots,metrics}`), gateway: '/v1/ops/status' });
    json(res, 404, { error: `no route ${path}` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    sim,
    setHostDown: (name, down) => void (down ? sim.forced.add(name) : sim.forced.delete(name)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function text_(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  res.end(body);
}
