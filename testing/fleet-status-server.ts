import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One crossbar backend as `/_crossbar/hosts` lists it, with its cumulative request counters by status. */
export interface ScriptedBackend {
  name: string;
  slots: number;
  /** `crossbar_requests_total{host,status}`: cumulative requests per status. */
  requests: Record<string, number>;
}

/** The gateway's `/v1/ops/status` capacity object, as the gateway of the R40 ship log sends it. */
export interface ScriptedGateway {
  inflight_requests: number;
  inflight_high_water: number;
  total_shed: number;
  heap_size_limit_mb: number;
  heap_utilization_pct: number;
  max_inflight_requests: number;
  requests_total: number;
  responses_by_status: Record<string, number>;
}

/** A running scripted fleet: change `backends` and `gateway` between polls. */
export interface FleetStatusServer {
  readonly url: string;
  readonly backends: ScriptedBackend[];
  readonly gateway: ScriptedGateway;
  /** `/_crossbar/usage`'s accounting rows (time, route, host, model, status, ttfb, tokens, error): push rows between polls. */
  readonly usage: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 speaking crossbar's `/_crossbar/hosts`, `/_crossbar/usage` and
 * `/_crossbar/metrics`, and a gateway's `/v1/ops/status`, answering whatever the test last set:
 * a fleet whose counters a test moves on by hand (a 5xx burst, a heap filling), where the demo's
 * fleet server follows its own simulation.
 */
export async function startFleetStatusServer(backends: ScriptedBackend[], gateway: ScriptedGateway): Promise<FleetStatusServer> {
  const usage: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    const json = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (path === '/_crossbar/hosts') return json(backends.map((b) => ({ name: b.name, up: true, slots: b.slots, inflight: 0, queued: 0, n_ctx: 32768, models: {} })));
    if (path === '/_crossbar/usage') return json(usage);
    if (path === '/_crossbar/metrics') {
      const lines = ['# TYPE crossbar_requests_total counter'];
      for (const b of backends) for (const [status, n] of Object.entries(b.requests)) lines.push(`crossbar_requests_total{host="${b.name}",status="${status}"} ${n}`);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return void res.end(`${lines.join('\n')}\n`);
    }
    if (path === '/v1/ops/status') return json({ status: 'ok', capacity: gateway });
    res.writeHead(404);
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    gateway,
    usage,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
