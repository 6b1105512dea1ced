import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Capacity } from '../../../shared/domain';
import { httpGet, MAX_JSON_BODY, MAX_METRICS_BODY } from '../ssh/http-over-ssh';
import { Store } from '../store/store';
import { CapacityService, type ProxyConfig } from './capacity-service';
import { CapacityHistory } from './history/history-store';
import { jsonDepthExceeds, MAX_ERROR_STATUSES, MAX_HOSTS_PER_PROXY, MAX_MODELS_PER_HOST, MAX_SLOTS_PER_HOST, MAX_USAGE_ROWS_PER_POLL } from './limits';
import { excerpt } from './sources/poll-types';

const NOW = Date.parse('2026-09-25T03:00:00Z');

/** One route of the hostile server: a body, sent with a Content-Length or chunked. */
interface Route {
  readonly body: Buffer;
  readonly type?: string;
  readonly chunked?: boolean;
}

const json = (v: unknown): Route => ({ body: Buffer.from(JSON.stringify(v)) });
const nestedOpen = Buffer.alloc(14 * 1024 * 1024, '[');
/** Valid JSON 400,000 levels deep, under the 1 MiB cap: only the depth scan stands in the way. */
const nestedValid = Buffer.from(`${'['.repeat(400_000)}${']'.repeat(400_000)}`);
/** Host views as small as they come (named `host-<i>` by position), so 60,000 fit under 1 MiB. */
const compactHosts = (n: number): Route => json(Array.from({ length: n }, () => ({ up: 1 })));
const fullHosts = (n: number): Route =>
  json(Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, url: `http://10.0.${i >> 8}.${i & 255}:8080`, up: true, n_ctx: 65536, slots: 4, per_slot_ctx: 16384, models: { 'qwen3-32b': { n_ctx: 65536, slots: 4, per_slot_ctx: 16384, inflight: 1, queued: 0 } }, inflight: 1, queued: 0 })));

/** A real HTTP server answering whatever `routes` says, under `/<proxy>/<path>`. */
async function hostileServer(routes: Record<string, Route>): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const r = routes[req.url ?? ''];
    if (!r) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found\n');
      return;
    }
    const headers: Record<string, string | number> = { 'content-type': r.type ?? 'application/json' };
    if (!r.chunked) headers['content-length'] = r.body.length;
    res.writeHead(200, headers);
    // Chunked: 64 KiB pieces, so the client sees the size grow rather than a header.
    for (let i = 0; i < r.body.length; i += 65_536) if (!res.write(r.body.subarray(i, i + 65_536)) && res.destroyed) return;
    res.end();
  });
  server.on('clientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('fleet answers are bounded', () => {
  let srv: Awaited<ReturnType<typeof hostileServer>>;
  const usageRows = Array.from({ length: MAX_USAGE_ROWS_PER_POLL + 1000 }, (_, i) => ({ id: `r${i}`, time: NOW - 600_000 + i, host: 'host-0', status: 200 }));
  const statuses = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`e${i}`, i + 1]));
  beforeAll(async () => {
    srv = await hostileServer({
      '/nested/_crossbar/hosts': { body: nestedOpen },
      '/nested-chunked/_crossbar/hosts': { body: nestedOpen, chunked: true },
      '/deep/_crossbar/hosts': { body: nestedValid },
      '/many/_crossbar/hosts': compactHosts(60_000),
      '/many-keyed/_crossbar/hosts': json(Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, {}]))),
      '/many-full/_crossbar/hosts': fullHosts(60_000),
      '/models/_crossbar/hosts': json([{ name: 'big', up: true, slots: 1, models: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`m${i}`, { slots: 1 }])) }]),
      '/usage/_crossbar/hosts': compactHosts(1),
      '/usage/_crossbar/usage': json(usageRows),
      '/llama/health': json({ status: 'ok' }),
      '/llama/slots': json(Array.from({ length: 20_000 }, () => ({ is_processing: true }))),
      '/gw/v1/ops/status': json({ capacity: { inflight_requests: 1, responses_by_status: statuses } }),
      '/metrics-ok/metrics': { body: Buffer.from(`${'# padding line of a large but honest exposition\n'.repeat(60_000)}x 1\n`), type: 'text/plain' },
      '/metrics-big/metrics': { body: Buffer.alloc(MAX_METRICS_BODY + 1, 'a'), type: 'text/plain', chunked: true },
    });
  });
  afterAll(() => srv.close());

  /** Poll one proxy once with a real store; what it shows, how long it took, what it stored. */
  async function pollOnce(name: string, cfg: Partial<ProxyConfig> = {}, polls = 1): Promise<{ caps: Capacity[]; ms: number; rows: number; usage: number; heapMb: number; hist: CapacityHistory }> {
    const store = Store.open(':memory:');
    let t = NOW;
    const svc = new CapacityService({
      proxies: { [name]: { host: 'fleet', kind: 'crossbar', url: `${srv.url}/${name}`, every: 10_000, timeoutMs: 20_000, ...cfg } },
      getFor: () => (url, timeoutMs) => httpGet(null, url, timeoutMs),
      store,
      now: () => new Date(t),
      onChange: () => undefined,
    });
    const heap0 = process.memoryUsage().heapUsed;
    const start = Date.now();
    for (let i = 0; i < polls; i++, t += 10_000) await svc.pollOnce();
    const ms = Date.now() - start;
    const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
    const hist = new CapacityHistory(store.sql);
    return { caps: svc.current(), ms, rows: hist.count(0), usage: hist.usageCount(), heapMb, hist };
  }

  it.each(['nested', 'nested-chunked'])('a 14 MB body of nested `[` (%s) is refused at 1 MiB, quickly, as the proxy down', async (name) => {
    const r = await pollOnce(name);
    expect(r.caps).toHaveLength(1);
    expect([r.caps[0]?.up, r.caps[0]?.host]).toEqual([false, name]);
    expect(r.caps[0]?.error).toMatch(new RegExp(`^proxy "${name}": GET ${srv.url}/${name}/_crossbar/hosts: .*larger than 1 MiB`));
    expect(r.ms).toBeLessThan(5000);
    expect(r.heapMb).toBeLessThan(64);
    expect(r.rows).toBe(1);
  });

  it('valid JSON nested 400,000 deep under the cap is refused before JSON.parse', async () => {
    const r = await pollOnce('deep');
    expect(r.caps[0]?.up).toBe(false);
    expect(r.caps[0]?.error).toMatch(/\/deep\/_crossbar\/hosts answered JSON nested deeper than 32 levels; refused unparsed/);
  });

  it.each(['many', 'many-keyed'])('a crossbar listing 60,000 hosts (%s) shows the first 256, says so, and stores at most 256 rows a poll', async (name) => {
    const r = await pollOnce(name, {}, 3);
    expect(r.caps).toHaveLength(MAX_HOSTS_PER_PROXY);
    expect(r.caps[0]?.error).toContain(`proxy "${name}" (config proxies.${name}): crossbar listed 60000 hosts; showing the first 256`);
    expect(r.rows).toBe(3 * MAX_HOSTS_PER_PROXY);
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a full 60,000-host listing (18 MB) is refused by size, one row stored', async () => {
    const r = await pollOnce('many-full');
    expect(r.caps.map((c) => [c.host, c.up])).toEqual([['many-full', false]]);
    expect(r.caps[0]?.error).toMatch(/response of \d+ bytes \(Content-Length\) is larger than 1 MiB/);
    expect(r.rows).toBe(1);
  });

  it('a host listing 1,000 models shows the first 64 and says so', async () => {
    const r = await pollOnce('models');
    expect(r.caps[0]?.models).toHaveLength(MAX_MODELS_PER_HOST);
    expect(r.caps[0]?.error).toBe('proxy "models" (config proxies.models): host "big" listed 1000 models; showing the first 64');
  });

  it('usage past the per-poll cap keeps the newest rows and says how many were cut', async () => {
    const r = await pollOnce('usage');
    expect(r.usage).toBe(MAX_USAGE_ROWS_PER_POLL);
    expect(r.caps[0]?.error).toContain(`proxy "usage" (config proxies.usage): usage listed ${MAX_USAGE_ROWS_PER_POLL + 1000} rows; kept the newest ${MAX_USAGE_ROWS_PER_POLL} this poll`);
  });

  it('a llama-server with 20,000 slots counts the first 1024 and says so', async () => {
    const r = await pollOnce('llama', { kind: 'llama-server' });
    expect([r.caps[0]?.up, r.caps[0]?.slotsBusy]).toEqual([true, MAX_SLOTS_PER_HOST]);
    expect(r.caps[0]?.error).toContain('proxy "llama" (config proxies.llama): /slots listed 20000 slots; counting the first 1024');
  });

  it('a gateway with 5,000 error statuses stores at most 32 per sample and per bucket', async () => {
    const r = await pollOnce('gw', { kind: 'gateway' }, 2);
    const rows = [0, 60_000, 600_000].flatMap((res) => r.hist.rows(res, 0, Number.MAX_SAFE_INTEGER));
    const stored = rows.filter((row) => row.errors !== null);
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(Object.keys(JSON.parse(row.errors ?? '{}') as object).length).toBeLessThanOrEqual(MAX_ERROR_STATUSES);
  });

  it('/metrics may be up to 4 MiB; JSON stops at 1 MiB', async () => {
    const ok = await httpGet(null, `${srv.url}/metrics-ok/metrics`, 10_000);
    expect(ok.body.length).toBeGreaterThan(MAX_JSON_BODY);
    await expect(httpGet(null, `${srv.url}/metrics-big/metrics`, 10_000)).rejects.toThrow(/response is larger than 4 MiB/);
  });
});

describe('cheap guards', () => {
  it('the depth scan ignores brackets inside strings and escaped quotes', () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[{{{{', b: ['\\"[[[['] }), 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[', 3)).toBe(true);
    expect(jsonDepthExceeds(`[${'"\\\\"'},[[[]]]]`, 3)).toBe(true);
  });

  it('an excerpt of a megabyte of unclosed `<` is quick', () => {
    const start = Date.now();
    excerpt('<'.repeat(1024 * 1024));
    expect(Date.now() - start).toBeLessThan(500);
  });
});
