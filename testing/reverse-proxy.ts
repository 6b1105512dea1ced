// A real nginx (Debian's) as a reverse proxy in front of the console, for the sign-in tests that
// trust a proxy's identity header, and for Host/Origin checks behind a proxy.
//
// What a test does:
//   const proxy = await startReverseProxy({ upstream: consoleUrl, basicAuthUsers: { alice: 'pw' }, identityHeader: 'X-Forwarded-User' });
//   const auth = { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` };
//   await fetch(`${proxy.url}/`, { headers: auth });            // the console sees X-Forwarded-User: alice
//   new WebSocket(`${proxy.url.replace('http', 'ws')}/ws`, { headers: { ...auth, origin: proxy.url } });
//   await proxy.close();
//
// What the upstream receives through it (one `location /`, HTTP/1.1 to the upstream):
// - Host: the client's own Host header, i.e. the proxy's public `127.0.0.1:PORT` (`$http_host`),
//   so a console that checks Host against where it is reached sees the proxy's host:port; with
//   `host: 'upstream'` nginx's default instead (`$proxy_host`: the upstream's host:port).
// - Origin: passed unchanged: a browser on the proxy sends `http://127.0.0.1:PORT` (proxy.url).
// - The identity header: `$remote_user`, the basic-auth user, set by `proxy_set_header`, which
//   also drops any copy the client sent (any case); with no basic auth, or no user, it is absent.
//   With `names`, a user listed there is sent under that name instead (any characters but `"`,
//   `\`, `$` and control characters; basic auth itself allows no colon in a user).
// - Authorization: the client's (basic credentials) is passed on, as nginx does by default.
// - X-Forwarded-For, X-Forwarded-Proto (`http`), X-Forwarded-Host (= Host).
// - WebSocket: Upgrade and `Connection: upgrade` passed (the `$connection_upgrade` map), 1 h
//   read timeout; other requests get `Connection: close`. No response buffering (streams pass).
// nginx runs in the foreground (`daemon off`) as a child with its own prefix, config, pid file,
// logs and temp folders in a throwaway folder; close() ends it by its PID. The folder is
// world-readable because nginx's workers (nobody, when run as root) read the htpasswd file.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../scripts/system-tools.mjs';
import { freePort } from './sshd';
import { holdsWithin } from './until';
import { endChild } from './end-child';

/** The nginx binary: LOOPDECK_NGINX, else Debian's /usr/sbin/nginx (the rule is in scripts/system-tools.mjs). */
export const NGINX = toolPath('nginx');

/** How the proxy is set up. */
export interface ReverseProxyOptions {
  /** Where it forwards: `http://127.0.0.1:PORT` (no path). */
  readonly upstream: string;
  /** Require HTTP basic auth with these users and passwords (an htpasswd file of {SSHA} hashes). */
  readonly basicAuthUsers?: Readonly<Record<string, string>>;
  /** Send the basic-auth user to the upstream in this header (e.g. `X-Forwarded-User`). */
  readonly identityHeader?: string;
  /** The Host the upstream sees: the client's (`public`, default) or the upstream's own (`upstream`). */
  readonly host?: 'public' | 'upstream';
  /** Connect to the upstream from this local address (`proxy_bind`), e.g. 127.0.0.2, so it differs from a direct client's. */
  readonly bindFrom?: string;
  /** Send each basic-auth user's groups (comma-separated) in this header; users not in `groups` get it empty. */
  readonly groupsHeader?: string;
  readonly groups?: Readonly<Record<string, string>>;
  /**
   * The name sent in `identityHeader` for a basic-auth user, instead of the user itself: a proxy
   * whose provider lets people choose their name (oauth2-proxy passing `preferred_username`).
   */
  readonly names?: Readonly<Record<string, string>>;
}

/** A running nginx in front of `upstream`. */
export interface TestReverseProxy {
  /** `http://127.0.0.1:PORT`: what a browser or client uses. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The generated nginx.conf, for a failing test's message. */
  readonly config: string;
  /** nginx's error log and access log so far. */
  logs(): { error: string; access: string };
  /** Stop nginx (SIGTERM by PID, SIGKILL after 5 s) and remove its folder. */
  close(): Promise<void>;
}

/** An htpasswd line nginx accepts: `user:{SSHA}base64(sha1(password + salt) + salt)`. */
export function htpasswdLine(user: string, password: string): string {
  if (!user || /[:\s]/.test(user)) throw new Error(`basic-auth user ${JSON.stringify(user)}: no colon or whitespace`);
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password, 'utf8').update(salt).digest();
  return `${user}:{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

/** The nginx.conf for a proxy on `port`, everything under `dir`. */
export function nginxConfig(o: ReverseProxyOptions, port: number, dir: string): string {
  const upstream = new URL(o.upstream);
  if (upstream.protocol !== 'http:' || (upstream.pathname !== '/' && upstream.pathname !== '')) throw new Error(`reverse proxy upstream ${o.upstream}: an http://host:port URL without a path`);
  for (const [key, value] of [['bindFrom', o.bindFrom], ['groupsHeader', o.groupsHeader]] as const) {
    if (value !== undefined && !/^[A-Za-z0-9.-]+$/.test(value)) throw new Error(`${key} ${JSON.stringify(value)}: letters, digits, dots and dashes only`);
  }
  if (o.identityHeader !== undefined && !/^[A-Za-z0-9-]+$/.test(o.identityHeader)) throw new Error(`identityHeader ${JSON.stringify(o.identityHeader)}: letters, digits and dashes only`);
  for (const name of Object.values(o.names ?? {})) {
    if (/["\\$]|\p{Cc}/u.test(name)) throw new Error(`names: ${JSON.stringify(name)}: no quote, backslash, dollar or control character`);
  }
  const auth = o.basicAuthUsers ? [`auth_basic "Loopdeck test proxy";`, `auth_basic_user_file ${join(dir, 'htpasswd')};`] : [];
  const location = [
    ...auth,
    `proxy_pass ${upstream.origin};`,
    'proxy_http_version 1.1;',
    ...(o.host === 'upstream' ? [] : ['proxy_set_header Host $http_host;']),
    'proxy_set_header Upgrade $http_upgrade;',
    'proxy_set_header Connection $connection_upgrade;',
    'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    'proxy_set_header X-Forwarded-Proto $scheme;',
    'proxy_set_header X-Forwarded-Host $http_host;',
    ...(o.identityHeader ? [`proxy_set_header ${o.identityHeader} ${o.names ? '$loopdeck_user' : '$remote_user'};`] : []),
    ...(o.groupsHeader ? [`proxy_set_header ${o.groupsHeader} $loopdeck_groups;`] : []),
    ...(o.bindFrom ? [`proxy_bind ${o.bindFrom};`] : []),
    'proxy_buffering off;',
    'proxy_read_timeout 3600s;',
    'proxy_send_timeout 3600s;',
  ];
  return [
    'worker_processes 1;',
    `error_log ${join(dir, 'error.log')} notice;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, `${t}-temp`)};`),
    "  map $http_upgrade $connection_upgrade { default upgrade; '' close; }",
    ...(o.names ? ['  map $remote_user $loopdeck_user {', '    default $remote_user;', ...Object.entries(o.names).map(([u, n]) => `    ${JSON.stringify(u)} ${JSON.stringify(n)};`), '  }'] : []),
    ...(o.groupsHeader ? ['  map $remote_user $loopdeck_groups {', `    default "";`, ...Object.entries(o.groups ?? {}).map(([u, g]) => `    ${JSON.stringify(u)} ${JSON.stringify(g)};`), '  }'] : []),
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    server_name _;',
    '    location / {',
    ...location.map((l) => `      ${l}`),
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });
}

/** Start nginx on a free loopback port in front of `o.upstream`; resolves once it answers. */
export async function startReverseProxy(o: ReverseProxyOptions): Promise<TestReverseProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'ld-nginx-'));
  chmodSync(dir, 0o755);
  if (o.basicAuthUsers) {
    const file = join(dir, 'htpasswd');
    writeFileSync(file, Object.entries(o.basicAuthUsers).map(([u, p]) => `${htpasswdLine(u, p)}\n`).join(''));
    chmodSync(file, 0o644);
  }
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const config = nginxConfig(o, port, dir);
    writeFileSync(join(dir, 'nginx.conf'), config);
    let out = '';
    const child: ChildProcess = spawn(NGINX, ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${join(dir, 'nginx.pid')};`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    let exited = false;
    const gone = new Promise<void>((resolve) => {
      child.once('exit', () => ((exited = true), resolve()));
      child.once('error', (err) => ((out += String(err)), (exited = true), resolve()));
    });
    const url = `http://127.0.0.1:${port}`;
    // Its pid file (written once it has bound the port) and a TCP connect, not a request, so the
    // upstream sees only the test's own requests.
    const answering = await holdsWithin(async () => exited || (existsSync(join(dir, 'nginx.pid')) && (await accepts(port))), 15_000, 25);
    if (answering && !exited && child.pid !== undefined) {
      const pid = child.pid;
      return {
        url,
        port,
        pid,
        config,
        logs: () => ({ error: read('error.log'), access: read('access.log') }),
        close: () => endChild(pid, gone, () => exited, dir),
      };
    }
    lastOutput = `${out}${read('error.log')}`;
    rmSync(join(dir, 'nginx.pid'), { force: true });
    if (!exited && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`nginx did not start (${existsSync(NGINX) ? 'see its output' : `${NGINX} is missing: install nginx`}): ${lastOutput.slice(-2000)}`);
}
