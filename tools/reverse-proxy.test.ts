// testing/reverse-proxy.ts: a real nginx in front of an upstream written here that records what
// it receives, over HTTP and WebSocket.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { startReverseProxy, type ReverseProxyOptions, type TestReverseProxy } from '../testing/reverse-proxy';
import { until } from '../testing/until';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** An upstream that answers 200 and keeps each request's headers, and echoes WebSocket messages. */
async function upstream(): Promise<{ url: string; seen: IncomingHttpHeaders[]; upgrades: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const upgrades: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream');
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws, req) => {
    upgrades.push(req.headers);
    ws.on('message', (data) => ws.send(`echo:${String(data)}`));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => (wss.close(), server.closeAllConnections(), server.close(() => r()))));
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`, seen, upgrades };
}

async function proxy(o: ReverseProxyOptions): Promise<TestReverseProxy> {
  const p = await startReverseProxy(o);
  closers.push(() => p.close());
  return p;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('testing/reverse-proxy.ts: nginx in front of the console', () => {
  it('asks for basic auth, then passes the user in the identity header; Host and Origin are the proxy’s', async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, basicAuthUsers: { alice: 'wonder land', bob: 'b' }, identityHeader: 'X-Forwarded-User' });
    const anon = await fetch(`${p.url}/`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Basic realm="Loopdeck test proxy"');
    expect((await fetch(`${p.url}/`, { headers: { authorization: basic('alice', 'wrong') } })).status).toBe(401);
    expect(up.seen).toHaveLength(0);
    const ok = await fetch(`${p.url}/x?y=1`, { headers: { authorization: basic('alice', 'wonder land'), origin: p.url } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('upstream');
    expect(up.seen[0]).toMatchObject({
      host: `127.0.0.1:${p.port}`,
      origin: p.url,
      'x-forwarded-user': 'alice',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': `127.0.0.1:${p.port}`,
      'x-forwarded-for': '127.0.0.1',
      authorization: basic('alice', 'wonder land'),
      connection: 'close',
    });
  });

  it('overrides a forged identity header with the authenticated user', async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, basicAuthUsers: { bob: 'b' }, identityHeader: 'X-Forwarded-User' });
    await fetch(`${p.url}/`, { headers: { authorization: basic('bob', 'b'), 'X-Forwarded-User': 'admin' } });
    expect(up.seen.map((h) => h['x-forwarded-user'])).toEqual(['bob']);
  });

  it('without basic auth, drops a client-sent identity header instead of passing it', async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, identityHeader: 'X-Forwarded-User' });
    await fetch(`${p.url}/`, { headers: { 'x-forwarded-user': 'admin' } });
    expect(up.seen).toHaveLength(1);
    expect(up.seen[0]).not.toHaveProperty('x-forwarded-user');
  });

  it("host: 'upstream' sends nginx's default Host, the upstream's own host:port", async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, host: 'upstream' });
    await fetch(`${p.url}/`);
    expect(up.seen[0]?.host).toBe(new URL(up.url).host);
    expect(up.seen[0]?.['x-forwarded-host']).toBe(`127.0.0.1:${p.port}`);
  });

  it('proxies a WebSocket with the identity header, the proxy’s Host and the browser’s Origin', async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, basicAuthUsers: { alice: 'pw' }, identityHeader: 'X-Forwarded-User' });
    const ws = new WebSocket(`${p.url.replace(/^http/, 'ws')}/ws`, { headers: { authorization: basic('alice', 'pw'), origin: p.url, 'x-forwarded-user': 'root' } });
    closers.push(async () => ws.close());
    const got: string[] = [];
    ws.on('message', (d) => got.push(String(d)));
    await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    ws.send('hello');
    await until(() => got.length > 0, 10_000, 'the echo through nginx');
    expect(got).toEqual(['echo:hello']);
    expect(up.upgrades[0]).toMatchObject({ host: `127.0.0.1:${p.port}`, origin: p.url, upgrade: 'websocket', connection: 'upgrade', 'x-forwarded-user': 'alice' });
  });

  it('refuses a WebSocket without credentials (401 at the upgrade)', async () => {
    const up = await upstream();
    const p = await proxy({ upstream: up.url, basicAuthUsers: { alice: 'pw' }, identityHeader: 'X-Forwarded-User' });
    const ws = new WebSocket(`${p.url.replace(/^http/, 'ws')}/ws`);
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    expect(up.upgrades).toHaveLength(0);
  });

  it('close() ends nginx by its PID', async () => {
    const up = await upstream();
    const p = await startReverseProxy({ upstream: up.url });
    expect(p.logs().error).not.toMatch(/\[emerg\]/);
    await p.close();
    expect(() => process.kill(p.pid, 0)).toThrow();
    await expect(fetch(`${p.url}/`)).rejects.toThrow();
  });
});
