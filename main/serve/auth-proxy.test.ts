import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request, type OutgoingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeConfigSchema } from '../core/config/serve-config';
import { fakeHandlers } from '../../testing/fake-handlers';
import { startReverseProxy, type TestReverseProxy } from '../../testing/reverse-proxy';
import { connectWsBridge, type WsBridge } from '../../testing/ws-bridge';
import { startServer, type Served } from './server';

// Serve behind a real nginx that signs people in with basic auth and names them in
// X-Forwarded-User (their groups in X-Forwarded-Groups), connecting from 127.0.0.2: the only
// address serve takes the header from. A client on 127.0.0.1 sending the header itself is refused.

const core = { handlers: fakeHandlers(), subscribe: () => () => undefined };
const PASSWORDS = { alice: 'a-pw', bob: 'b-pw', carol: 'c-pw', dave: 'd-pw', mallory: 'm-pw' };

function basic(user: keyof typeof PASSWORDS): string {
  return `Basic ${Buffer.from(`${user}:${PASSWORDS[user]}`).toString('base64')}`;
}

/** GET `url`; a header given as an array goes on the wire once per value; `localAddress` is where it connects from. */
function get(url: string, headers: OutgoingHttpHeaders = {}, localAddress?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status an upgrade to `url` is answered with (101 when it opens). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => (ws.close(), resolve(101)));
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

describe('serve behind a reverse proxy that names the user (serve.auth.proxyHeader)', () => {
  let served: Served;
  let proxy: TestReverseProxy;
  const bridges: WsBridge[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-proxy-auth-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    // The proxy's port is known only once it runs, and it needs serve's: serve first, with its
    // public URL (the proxy's) written in once the proxy is up.
    const serve = { publicUrl: 'http://127.0.0.1:1', auth: { proxyHeader: 'X-Forwarded-User', groupsHeader: 'X-Forwarded-Groups', trustedProxies: ['127.0.0.2'], roles: { admin: ['alice', 'group:admins'], operator: ['group:ops'], viewer: ['carol'] } } };
    served = await startServer({ session: core, rendererDir: dir, serve: ServeConfigSchema.parse(serve) });
    proxy = await startReverseProxy({
      upstream: `http://127.0.0.1:${served.port}`,
      basicAuthUsers: PASSWORDS,
      identityHeader: 'X-Forwarded-User',
      groupsHeader: 'X-Forwarded-Groups',
      groups: { bob: 'ops,night' },
      // A provider behind the proxy that lets people choose their name.
      names: { mallory: 'group:admins' },
      bindFrom: '127.0.0.2',
    });
    await served.close();
    served = await startServer({ session: core, rendererDir: dir, port: served.port, serve: ServeConfigSchema.parse({ ...serve, publicUrl: proxy.url }) });
  });
  afterAll(async () => {
    for (const b of bridges) b.close();
    await proxy?.close();
    await served?.close();
  });

  const bridge = async (user: keyof typeof PASSWORDS, extra: Record<string, string> = {}): Promise<WsBridge> => {
    const b = await connectWsBridge(`${proxy.url}/`, { authorization: basic(user), origin: proxy.url, ...extra });
    bridges.push(b);
    return b;
  };

  it('prints the proxy\'s URL, without a token', () => {
    expect(served.access).toBe('proxy');
    expect(served.url).toBe(`${proxy.url}/`);
  });

  it('serves the page to whoever the proxy signed in, and knows them and their role on the socket', async () => {
    expect((await get(`${proxy.url}/`, { authorization: basic('alice') })).status).toBe(200);
    expect((await get(`${proxy.url}/`)).status).toBe(401); // nginx's own: no basic auth
    const info = await (await bridge('alice')).invoke('app.info', {});
    expect(info).toMatchObject({ ok: true, output: { caller: { user: 'alice', role: 'admin', via: 'proxy' } } });
    const bob = await (await bridge('bob')).invoke('app.info', {});
    expect(bob).toMatchObject({ ok: true, output: { caller: { user: 'bob', role: 'operator', via: 'proxy' } } });
  });

  it('refuses each command the role does not allow with 403, naming the role needed', async () => {
    const carol = await bridge('carol');
    expect(await carol.invoke('state.summary', {})).toMatchObject({ ok: true });
    expect(await carol.invoke('notices.ack', { key: 'k' })).toEqual({
      ok: false,
      error: { code: 'forbidden', status: 403, message: 'notices.ack needs the operator role; carol is a viewer.' },
    });
    const bob = await bridge('bob');
    expect(await bob.invoke('notices.ack', { key: 'k' })).toMatchObject({ ok: true });
    expect(await bob.invoke('drills.run', { name: 'd', confirm: 'd' })).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403, message: 'drills.run needs the admin role; bob is an operator.' } });
    expect(await bob.invoke('hosts.trust', { host: 'h', fingerprint: 'SHA256:AAAA' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await (await bridge('alice')).invoke('drills.run', { name: 'd', confirm: 'd' })).toMatchObject({ ok: true });
  });

  it('refuses someone the proxy signed in who is in no role', async () => {
    const r = await get(`${proxy.url}/`, { authorization: basic('dave') });
    expect(r).toEqual({ status: 403, body: "dave (no groups) is in none of serve.auth.roles' admin, operator or viewer lists; ask an admin of this Loopdeck to add them.\n" });
  });

  it('never reads a user named group:admins as a member of group admins', async () => {
    const r = await get(`${proxy.url}/`, { authorization: basic('mallory') });
    expect(r).toEqual({ status: 403, body: 'group:admins (no groups) is in none of serve.auth.roles\' admin, operator or viewer lists; a user name starting with "group:" cannot be listed by name, so give them a role through one of their groups.\n' });
  });

  it('refuses two user headers, or two groups headers, from the trusted proxy (400 naming the header)', async () => {
    const direct = `http://127.0.0.1:${served.port}/`;
    const host = new URL(proxy.url).host;
    expect(await get(direct, { host, 'x-forwarded-user': ['bob', 'alice'] }, '127.0.0.2')).toEqual({ status: 400, body: 'The request has more than one X-Forwarded-User header.\n' });
    expect(await get(direct, { host, 'x-forwarded-user': 'dave', 'x-forwarded-groups': ['night', 'ops'] }, '127.0.0.2')).toEqual({ status: 400, body: 'The request has more than one X-Forwarded-Groups header.\n' });
    expect((await get(direct, { host, 'x-forwarded-user': 'bob', 'x-forwarded-groups': 'ops' }, '127.0.0.2')).status).toBe(200);
  });

  it('refuses the header from any address but the trusted proxy', async () => {
    const direct = await get(`http://127.0.0.1:${served.port}/`, { 'x-forwarded-user': 'alice', host: new URL(proxy.url).host });
    expect(direct.status).toBe(403);
    expect(direct.body).toContain('Loopdeck takes X-Forwarded-User only from serve.auth.trustedProxies (127.0.0.2); this request came from 127.0.0.1.');
    expect(await upgradeStatus(`ws://127.0.0.1:${served.port}/ws`, { 'x-forwarded-user': 'alice', origin: proxy.url, host: new URL(proxy.url).host })).toBe(403);
  });

  it('takes the proxy\'s name, never one the client sent through it', async () => {
    const b = await bridge('carol', { 'x-forwarded-user': 'alice', 'x-forwarded-groups': 'ops' });
    expect(await b.invoke('app.info', {})).toMatchObject({ ok: true, output: { caller: { user: 'carol', role: 'viewer' } } });
  });

  it('refuses a WebSocket from another origin, or without one (cross-site request forgery)', async () => {
    const ws = `${proxy.url.replace(/^http/, 'ws')}/ws`;
    expect(await upgradeStatus(ws, { authorization: basic('alice'), origin: proxy.url })).toBe(101);
    expect(await upgradeStatus(ws, { authorization: basic('alice'), origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(ws, { authorization: basic('alice') })).toBe(403);
  });
});
