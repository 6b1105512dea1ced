import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import { fakeHandlers } from '../../testing/fake-handlers';
import { startServer, type Served } from './server';
import { connectWsBridge } from '../../testing/ws-bridge';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const handlers = fakeHandlers({ 'app.info': (_input, caller) => ({ version: 't', shell: 'serve', config: { state: 'missing', path: '/x' }, dataDir: '/d', demo: false, caller }) });
const core = { handlers, subscribe: () => () => undefined };

describe('serve mode', () => {
  let served: Served;
  let port: number;
  let token: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-serve-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'manifest.webmanifest'), '{"name":"Loopdeck"}');
    writeFileSync(join(dir, '..', 'secret.txt'), 'secret');
    served = await startServer({ session: core, rendererDir: dir });
    ({ port, token } = served);
  });
  afterAll(() => served.close());

  it('binds to loopback and prints a URL with the token', () => {
    expect(served.url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses a request without the token, or with a wrong one', async () => {
    expect((await get(port, '/')).status).toBe(401);
    expect((await get(port, '/?token=nope')).status).toBe(401);
    expect((await get(port, '/assets/app.js')).body).toMatch(/needs its access token/);
  });

  it('serves the web app manifest without the token (a browser installing it sends none), and nothing else', async () => {
    const m = await get(port, '/manifest.webmanifest');
    expect(m.status).toBe(200);
    expect(m.headers['content-type']).toBe('application/manifest+json');
    expect(m.headers['content-security-policy']).toBeTruthy();
    expect(m.body).toBe('{"name":"Loopdeck"}');
    expect((await get(port, '/manifest.webmanifest/../index.html')).status).toBe(401);
    expect((await get(port, '/icon-192.png')).status).toBe(404);
  });

  it('serves the page with the token, sets the cookie and a strict CSP', async () => {
    const r = await get(port, `/?token=${token}`);
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>Loopdeck</title>');
    expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY_HEADER);
    expect(String(r.headers['set-cookie'])).toMatch(/loopdeck_token=.*HttpOnly; SameSite=Strict/);
    const cookie = String(r.headers['set-cookie']).split(';')[0] ?? '';
    expect((await get(port, '/assets/app.js', { cookie })).status).toBe(200);
  });

  it('sends the shared CSP on every answer: the page, its assets and the refusals', async () => {
    const r = await get(port, `/?token=${token}`);
    const cookie = String(r.headers['set-cookie']).split(';')[0] ?? '';
    const answers = [
      r,
      await get(port, '/assets/app.js', { cookie }),
      await get(port, '/favicon.svg', { cookie }),
      await get(port, '/'),
      await get(port, `/?token=${token}`, { host: `evil.example:${port}` }),
      await get(port, `/?token=${token}`, {}, 'POST'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 401, 403, 405]);
    for (const a of answers) {
      expect(a.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY_HEADER);
      expect(a.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('refuses another Host (DNS rebinding) and another Origin', async () => {
    expect((await get(port, `/?token=${token}`, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await get(port, `/?token=${token}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(port, `/?token=${token}`, { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });

  it('never serves outside the renderer folder, and only GET', async () => {
    expect((await get(port, `/..%2fsecret.txt?token=${token}`)).status).toBe(404);
    expect((await get(port, `/%2e%2e/secret.txt?token=${token}`)).status).toBe(404);
    expect((await get(port, `/?token=${token}`, {}, 'POST')).status).toBe(405);
  });

  it('refuses WebSocket upgrades without the token or from another origin', async () => {
    await expect(connectWsBridge(`http://127.0.0.1:${port}/`)).rejects.toThrow(/401/);
    await expect(connectWsBridge(served.url, { origin: 'http://evil.example' })).rejects.toThrow(/403/);
    const ok = await connectWsBridge(served.url, { origin: `http://127.0.0.1:${port}` });
    expect(await ok.invoke('app.info', {})).toMatchObject({ ok: true });
    ok.close();
  });
});

describe('serve mode without a built renderer', () => {
  it('says how to build it', async () => {
    const served = await startServer({ session: core, rendererDir: join(tmpdir(), 'ld-no-renderer') });
    const r = await get(served.port, `/?token=${served.token}`);
    expect(r.status).toBe(503);
    expect(r.body).toMatch(/npm run build:renderer/);
    await served.close();
  });
});

describe('serve mode telling when the page has been sent', () => {
  it('calls onPageSent once, when a script has been sent and no other file is being sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-serve-sent-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Loopdeck</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'x'.repeat(256 * 1024));
    writeFileSync(join(dir, 'assets', 'chunk.js'), 'console.log(2)');
    writeFileSync(join(dir, 'assets', 'app.css'), 'body{}');
    const calls: number[] = [];
    const served = await startServer({ session: core, rendererDir: dir, onPageSent: () => calls.push(Date.now()) });
    try {
      const page = await get(served.port, `/?token=${served.token}`);
      const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
      // The page, a stylesheet and a refused path are not its scripts.
      await get(served.port, '/assets/app.css', { cookie });
      await get(served.port, '/assets/missing.js', { cookie });
      expect(calls).toEqual([]);
      // Scripts asked for together: told once, after both (not between them).
      const both = await Promise.all([get(served.port, '/assets/app.js', { cookie }), get(served.port, '/assets/chunk.js', { cookie })]);
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(calls).toHaveLength(1);
      await get(served.port, '/assets/chunk.js', { cookie });
      expect(calls).toHaveLength(1);
    } finally {
      await served.close();
    }
  });
});
