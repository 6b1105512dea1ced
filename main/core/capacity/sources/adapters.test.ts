import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet } from '../../ssh/http-over-ssh';
import { pollCrossbar } from './crossbar';
import { gatewayAdapter, pollGateway } from './gateway';
import { pollLlamaServer } from './llama-server';
import type { Adapter, GetReply, Getter } from './poll-types';

const NOW = new Date('2026-09-25T03:00:00Z');
type Routes = Record<string, GetReply | Error>;
const fake = (routes: Routes): Getter => async (path) => {
  const r = routes[path] ?? { status: 404, body: '404 page not found\n' };
  if (r instanceof Error) throw r;
  return r;
};
const ok = (body: unknown): GetReply => ({ status: 200, body: typeof body === 'string' ? body : JSON.stringify(body) });

// Modelled on crossbar v2.1+'s HostView (models never null) and its accounting rows.
const HOSTS = [
  {
    name: 'gpu-a', url: 'http://10.0.0.10:8080', up: true, n_ctx: 65536, slots: 4, per_slot_ctx: 16384,
    models: { 'qwen3-32b': { n_ctx: 65536, slots: 4, per_slot_ctx: 16384, inflight: 4, queued: 2 } }, inflight: 4, queued: 2,
  },
  { name: 'gpu-b', url: 'http://10.0.0.11:8080', up: false, error: 'dial tcp 10.0.0.11:8080: connect: connection refused', n_ctx: 0, slots: 0, per_slot_ctx: 0, models: {} },
];
const USAGE = [
  { time: '2026-09-25T02:59:58.120Z', route: 'bm', host: 'gpu-a', model: 'qwen3-32b', status: 200, ttfb_ms: 412, tokens: 1830, error: '' },
  { time: '2026-09-25T02:59:59.004Z', route: 'bm', host: 'gpu-a', model: 'qwen3-32b', status: 499, ttfb_ms: 0, tokens: 0, error: 'client cancelled' },
];
const METRICS = `# HELP crossbar_requests_total Requests proxied.
# TYPE crossbar_requests_total counter
crossbar_requests_total{route="bm",host="gpu-a",model="qwen3-32b",status="200"} 25
crossbar_requests_total{route="bm",host="gpu-a",model="qwen3-32b",status="499"} 1
crossbar_requests_total{route="coder",host="gpu-a",model="qwen3-32b",status="503"} 3
`;

describe('crossbar adapter', () => {
  it('reads hosts, per-model in-flight and queue, usage rows and request counters', async () => {
    const r = await pollCrossbar(fake({ '/_crossbar/hosts': ok(HOSTS), '/_crossbar/usage': ok(USAGE), '/_crossbar/metrics': ok(METRICS) }), 'xb', NOW, 'http://127.0.0.1:8090');
    expect(r.capacity.map((c) => [c.host, c.up, c.slotsTotal, c.slotsBusy, c.inflight, c.queued, c.nCtx])).toEqual([
      ['gpu-a', true, 4, 4, 4, 2, 65536],
      ['gpu-b', false, 0, null, null, null, 0],
    ]);
    expect(r.capacity[0]?.models).toEqual([{ id: 'qwen3-32b', nCtx: 65536, slots: 4, inflight: 4, queued: 2 }]);
    expect(r.capacity[0]?.missing).toEqual([]);
    expect(r.capacity[1]?.error).toMatch(/proxy "xb": host "gpu-b": dial tcp/);
    expect(r.samples[0]?.counters).toEqual({ requests: 29, errors: { '499': 1, '503': 3 } });
    expect(r.usage.map((u) => [u.t, u.status, u.error])).toEqual([
      [Date.parse('2026-09-25T02:59:58.120Z'), '200', null],
      [Date.parse('2026-09-25T02:59:59.004Z'), '499', 'client cancelled'],
    ]);
  });

  it('tolerates a crossbar without usage or metrics, unknown fields and old null usage', async () => {
    const old = [{ name: 'gpu-a', healthy: 'ok', slots: 2, models: {}, extra: { anything: 1 } }];
    const r = await pollCrossbar(fake({ '/_crossbar/hosts': ok(old), '/_crossbar/usage': ok('null') }), 'xb', NOW);
    expect(r.capacity[0]?.up).toBe(true);
    expect(r.capacity[0]?.missing).toEqual(expect.arrayContaining(['metrics', 'n_ctx', 'per_slot_ctx', 'inflight', 'queued']));
    expect(r.capacity[0]?.missing).not.toContain('usage');
    expect(r.capacity[0]?.error).toBeNull();
    expect(r.samples[0]?.counters).toBeNull();
  });

  it('gives identical usage keys for overlapping answers and keeps identical rows apart', async () => {
    const twin = [USAGE[0], USAGE[0], USAGE[1]];
    const a = await pollCrossbar(fake({ '/_crossbar/hosts': ok(HOSTS), '/_crossbar/usage': ok(twin) }), 'xb', NOW);
    const b = await pollCrossbar(fake({ '/_crossbar/hosts': ok(HOSTS), '/_crossbar/usage': ok([...twin, USAGE[1]]) }), 'xb', NOW);
    expect(new Set(a.usage.map((u) => u.key)).size).toBe(3);
    expect(b.usage.slice(0, 3).map((u) => u.key)).toEqual(a.usage.map((u) => u.key));
  });
});

describe('llama-server adapter', () => {
  const props = { default_generation_settings: { n_ctx: 16384, params: {} }, total_slots: 4, model_path: '/models/qwen3-32b-Q4_K_M.gguf', build_info: 'b6530-8f1e8a3c' };
  const slots = [0, 1, 2, 3].map((id) => ({ id, n_ctx: 16384, is_processing: id < 3, id_task: id }));
  const metrics = '# HELP llamacpp:requests_processing Number of requests processing.\n# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 3\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 5\n';

  it('reads props, slots and the llamacpp: gauges', async () => {
    const r = await pollLlamaServer(fake({ '/health': ok({ status: 'ok' }), '/props': ok(props), '/slots': ok(slots), '/metrics': ok(metrics) }), 'gpu-a', NOW);
    const c = r.capacity[0];
    expect([c?.up, c?.slotsTotal, c?.slotsBusy, c?.inflight, c?.queued, c?.nCtx, c?.error]).toEqual([true, 4, 3, 3, 5, 16384, null]);
    expect(c?.models).toEqual([{ id: 'qwen3-32b-Q4_K_M.gguf', nCtx: 16384, slots: 4, inflight: 3, queued: 5 }]);
    expect(c?.missing).toEqual([]);
  });

  it('without --metrics it says metrics are missing and counts busy slots as in flight', async () => {
    const r = await pollLlamaServer(fake({ '/health': ok({ status: 'ok' }), '/props': ok({ total_slots: 2 }), '/slots': { status: 501, body: '{"error":{"code":501,"message":"This server does not support slots endpoint."}}' } }), 'gpu-a', NOW);
    const c = r.capacity[0];
    expect(c?.missing).toEqual(['props.default_generation_settings.n_ctx', 'props.build_info', 'slots', 'metrics']);
    expect([c?.up, c?.slotsTotal, c?.inflight, c?.queued, c?.error]).toEqual([true, 2, null, null, null]);
  });

  it('a 503 while loading is up but loading, and says so', async () => {
    const loading = { status: 503, body: '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}' };
    const r = await pollLlamaServer(fake({ '/health': loading, '/props': loading, '/slots': loading, '/metrics': loading }), 'gpu-a', NOW, 'http://127.0.0.1:8080');
    expect(r.capacity[0]?.up).toBe(true);
    expect(r.capacity[0]?.error).toBe('proxy "gpu-a": GET http://127.0.0.1:8080/health answered 503 (Loading model): the server is up but still loading its model');
  });
});

describe('gateway adapter', () => {
  const status = { status: 'ok', capacity: { inflight_requests: 12, inflight_high_water: 31, total_shed: 0, heap_size_limit_mb: 4144, heap_utilization_pct: 41.5, future_field: true } };
  it('reads the capacity object and takes the threshold from the config when the status has none', async () => {
    const r = await gatewayAdapter(80)(fake({ '/v1/ops/status': ok(status) }), 'gw', NOW);
    const c = r.capacity[0];
    expect([c?.up, c?.inflight, c?.highWater, c?.totalShed, c?.shedThreshold, c?.missing]).toEqual([true, 12, 31, 0, 80, []]);
    expect(r.samples[0]?.counters).toEqual({ requests: 0, errors: { shed: 0 } });
  });
  it('lists what the status did not expose', async () => {
    const r = await pollGateway(fake({ '/v1/ops/status': ok({ capacity: { inflight_requests: 3 } }) }), 'gw', NOW);
    expect(r.capacity[0]?.missing).toEqual(['capacity.inflight_high_water', 'capacity.total_shed', 'capacity.heap_size_limit_mb', 'capacity.heap_utilization_pct', 'capacity.shed_threshold']);
  });
});

describe('fields of the wrong type are dropped and named with the proxy, the URL and the field', () => {
  const base = 'http://127.0.0.1:8080';
  it('llama-server: an odd props field reads as missing, numeric strings are numbers, the rest is used', async () => {
    const props = { total_slots: 'four', default_generation_settings: { n_ctx: '16384' }, build_info: 'b1', model_alias: 'qwen' };
    const slots = [{ is_processing: true, n_ctx: 16384 }, { is_processing: 'yes', state: 0 }, 'not a slot'];
    const r = await pollLlamaServer(fake({ '/health': ok({ status: 'ok' }), '/props': ok(props), '/slots': ok(slots) }), 'gpu-a', NOW, base);
    const c = r.capacity[0];
    expect([c?.up, c?.slotsTotal, c?.slotsBusy, c?.nCtx, c?.models[0]?.id]).toEqual([true, 2, 1, 16384, 'qwen']);
    expect(c?.missing).toContain('props.total_slots');
    expect(c?.error).toContain(`proxy "gpu-a": GET ${base}/props: total_slots: expected a number, got "four"`);
    expect(c?.error).toContain(`proxy "gpu-a": GET ${base}/slots: [1].is_processing: expected boolean, got "yes"`);
  });

  it('llama-server: props that are not an object are named, and the slots still count', async () => {
    const r = await pollLlamaServer(fake({ '/health': ok({ status: 'ok' }), '/props': ok([1, 2]), '/slots': ok([{ is_processing: false }]) }), 'gpu-a', NOW, base);
    expect(r.capacity[0]?.missing).toContain('props');
    expect(r.capacity[0]?.error).toContain(`proxy "gpu-a": GET ${base}/props: (the answer itself): expected object, got an array`);
    expect([r.capacity[0]?.slotsTotal, r.capacity[0]?.slotsBusy]).toEqual([1, 0]);
  });

  it('gateway: a negative count and a non-numeric status count are named; the others are read', async () => {
    const status = { capacity: { inflight_requests: -3, inflight_high_water: 31, total_shed: '12', responses_by_status: { '200': 40, '503': 'many', '429': 2 } } };
    const r = await pollGateway(fake({ '/v1/ops/status': ok(status) }), 'gw', NOW, base);
    const c = r.capacity[0];
    expect([c?.up, c?.inflight, c?.highWater, c?.totalShed]).toEqual([true, null, 31, 12]);
    expect(c?.missing).toContain('capacity.inflight_requests');
    expect(c?.error).toContain(`proxy "gw": GET ${base}/v1/ops/status: capacity.inflight_requests: expected a count (0 or more), got -3`);
    expect(c?.error).toContain('capacity.responses_by_status.503: expected a number, got "many"');
    expect(r.samples[0]?.counters).toEqual({ requests: 42, errors: { '429': 2 } });
  });

  it('crossbar: an odd host field is named with its host; other hosts and fields are unaffected', async () => {
    const hosts = [{ name: 'gpu-a', up: true, slots: { four: 4 }, n_ctx: 8192, per_slot_ctx: 2048, models: { m: { n_ctx: 'big', slots: 2 } }, inflight: 1, queued: 0 }, HOSTS[0]];
    const r = await pollCrossbar(fake({ '/_crossbar/hosts': ok(hosts) }), 'xb', NOW, base);
    const [a, b] = r.capacity;
    expect([a?.host, a?.up, a?.slotsTotal, a?.nCtx, a?.models[0]?.slots, a?.models[0]?.nCtx]).toEqual(['gpu-a', true, null, 8192, 2, null]);
    expect(a?.missing).toContain('slots');
    expect(a?.error).toContain(`proxy "xb": GET ${base}/_crossbar/hosts: host "gpu-a": slots: expected a number, got an object`);
    expect(a?.error).toContain('host "gpu-a": models.m.n_ctx: expected a number, got "big"');
    expect([b?.host, b?.slotsTotal, b?.error]).toEqual(['gpu-a', 4, null]);
  });

  it('crossbar usage: a row whose time is not a time is skipped and named; an odd token count reads as unknown', async () => {
    const usage = [{ ...USAGE[0], tokens: 'lots' }, { ...USAGE[1], time: 'yesterday-ish' }];
    const r = await pollCrossbar(fake({ '/_crossbar/hosts': ok(HOSTS), '/_crossbar/usage': ok(usage) }), 'xb', NOW, base);
    expect(r.usage.map((u) => [u.status, u.tokens])).toEqual([['200', null]]);
    expect(r.capacity[0]?.error).toContain(`proxy "xb": GET ${base}/_crossbar/usage: row [0]: tokens: expected a number, got "lots"`);
    expect(r.capacity[0]?.error).toContain('1 usage rows without a time were skipped');
  });

  it('names at most a few fields of one answer and counts the rest', async () => {
    const props = Object.fromEntries(['total_slots', 'model_alias', 'model_path', 'build_info'].map((k) => [k, { odd: true }]));
    const r = await pollLlamaServer(fake({ '/health': ok({ status: 'ok' }), '/props': ok({ ...props, default_generation_settings: 5 }) }), 'gpu-a', NOW, base);
    expect(r.capacity[0]?.error?.match(/\/props: /g)).toHaveLength(4);
    expect(r.capacity[0]?.error).toContain('/props: and 2 more field(s) of the wrong type');
  });
});

const adapters: Array<[string, Adapter, string]> = [
  ['crossbar', pollCrossbar, '/_crossbar/hosts'],
  ['llama-server', pollLlamaServer, '/health'],
  ['gateway', pollGateway, '/v1/ops/status'],
];

describe('failures become down with an error naming the proxy and URL', () => {
  const bad: Array<[string, GetReply | Error, RegExp]> = [
    ['an HTML error page', { status: 200, body: '<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>' }, /(HTML page|not JSON).*502 Bad Gateway/],
    ['a 500', { status: 500, body: 'internal error' }, /answered HTTP 500: internal error/],
    ['garbage', { status: 200, body: '\u0000\u0001garbage{{' }, /not JSON|not an object|neither|no "capacity"|HTTP/],
    ['a refused connection', new Error('connect ECONNREFUSED 127.0.0.1:9'), /ECONNREFUSED/],
  ];
  for (const [kind, adapter, path] of adapters) {
    for (const [what, reply, msg] of bad) {
      it(`${kind}: ${what}`, async () => {
        const r = await adapter(fake({ [path]: reply }), 'p1', NOW, 'http://127.0.0.1:1');
        expect(r.capacity).toHaveLength(1);
        expect(r.capacity[0]?.up).toBe(false);
        expect(r.capacity[0]?.error).toContain(`proxy "p1": GET http://127.0.0.1:1${path}`);
        expect(r.capacity[0]?.error).toMatch(msg);
      });
    }
  }

  it('arbitrary bodies and statuses never throw out of any adapter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.integer({ min: 100, max: 599 }), fc.json(), async (text, status, json) => {
        for (const [, adapter] of adapters) {
          for (const body of [text, json]) {
            const r = await adapter(async () => ({ status, body }), 'p', NOW);
            expect(r.capacity.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  describe('against a real server that never answers', () => {
    let server: Server;
    let base = '';
    beforeAll(async () => {
      server = createServer(() => undefined); // accepts, never responds
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });
    for (const [kind, adapter, path] of adapters) {
      it(`${kind} times out into down`, async () => {
        const get: Getter = (p) => httpGet(null, `${base}${p}`, 200);
        const r = await adapter(get, 'slow', NOW, base);
        expect(r.capacity[0]?.up).toBe(false);
        expect(r.capacity[0]?.error).toBe(`proxy "slow": GET ${base}${path}: ${base}${path}: no answer within 200 ms`);
      });
    }
  });
});
