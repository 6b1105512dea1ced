import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../scripts/system-tools.mjs';
import { holdsWithin } from './until';
import { endChild } from './end-child';

/** The Alertmanager binary: LOOPDECK_ALERTMANAGER, else Debian's (package prometheus-alertmanager; the rule is in scripts/system-tools.mjs). */
export const ALERTMANAGER = toolPath('prometheus-alertmanager');

/** An alert as Alertmanager's `GET /api/v2/alerts` lists it (the fields the tests read). */
export interface ListedAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly generatorURL?: string;
  readonly status: { readonly state: 'active' | 'suppressed' | 'unprocessed' };
}

/** A real Alertmanager on loopback, for integration tests. */
export interface TestAlertmanager {
  /** Base URL, for `notify.alertmanager.url`. */
  readonly url: string;
  readonly pid: number;
  /** The alerts it lists: firing ones (it leaves out any whose `endsAt` has passed, i.e. resolved). */
  alerts(): Promise<ListedAlert[]>;
  /** What its own log said, for a failing test's message. */
  output(): string;
  /** End it (by its PID) and remove its files. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Route everything to a receiver with no integrations (the tests read alerts through the API), or
 * to `webhook` at once, resolved notifications included, when the test runs a webhook server.
 */
function configText(webhook: string | undefined): string {
  if (!webhook) return `route:\n  receiver: 'null'\nreceivers:\n  - name: 'null'\n`;
  return [
    'route:',
    "  receiver: 'hook'",
    '  group_by: [alertname, loop, key]',
    '  group_wait: 0s',
    '  group_interval: 1s',
    '  repeat_interval: 1h',
    'receivers:',
    "  - name: 'hook'",
    '    webhook_configs:',
    `      - url: ${JSON.stringify(webhook)}`,
    '        send_resolved: true',
    '',
  ].join('\n');
}

/** How the test Alertmanager is set up. */
export interface TestAlertmanagerOptions {
  /** A webhook the test runs: Alertmanager posts firing and resolved notifications there. */
  readonly webhook?: string;
}

/**
 * Start Alertmanager on a free loopback port with clustering off and a throwaway storage folder;
 * resolves once `/-/ready` answers. A port taken between choosing and binding is retried.
 */
export async function startAlertmanager(options: TestAlertmanagerOptions = {}): Promise<TestAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'ld-alertmanager-'));
  const config = join(dir, 'alertmanager.yml');
  writeFileSync(config, configText(options.webhook));
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let out = '';
    const child: ChildProcess = spawn(
      ALERTMANAGER,
      [`--config.file=${config}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    let exited = false;
    const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
    const ready = await holdsWithin(
      async () => exited || (await fetch(`${url}/-/ready`).then((r) => r.ok, () => false)),
      20_000,
      50,
    );
    if (ready && !exited && child.pid !== undefined) {
      const pid = child.pid;
      return {
        url,
        pid,
        output: () => out,
        alerts: async () => {
          const res = await fetch(`${url}/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true`);
          if (!res.ok) throw new Error(`Alertmanager GET /api/v2/alerts: HTTP ${res.status}`);
          return (await res.json()) as ListedAlert[];
        },
        stop: () => endChild(pid, gone, () => exited, dir),
      };
    }
    lastOutput = out;
    if (!exited && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`Alertmanager did not start (${existsSync(ALERTMANAGER) ? 'see its output' : `${ALERTMANAGER} is missing: install prometheus-alertmanager`}): ${lastOutput.slice(-2000)}`);
}

/** A loopback HTTP front for a test Alertmanager that records alert posts and can fail them. */
export interface AlertmanagerFront {
  /** Base URL, for `notify.alertmanager.url`. */
  readonly url: string;
  /** The alerts of every post that reached Alertmanager, in order. */
  readonly posts: readonly { readonly alerts: readonly ListedAlert[] }[];
  /** Answer the next `times` alert posts with HTTP `status` instead of forwarding them. */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

/** Start a front that forwards to `target` (a real Alertmanager), to see what was posted and to inject outages. */
export async function startAlertmanagerFront(target: string): Promise<AlertmanagerFront> {
  const posts: { alerts: ListedAlert[] }[] = [];
  let fail = { status: 0, times: 0 };
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/api/v2/alerts' && fail.times > 0) {
        fail = { ...fail, times: fail.times - 1 };
        res.writeHead(fail.status, { 'content-type': 'text/plain' });
        res.end('injected outage');
        return;
      }
      fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers: { 'content-type': req.headers['content-type'] ?? 'application/json' }, ...(req.method === 'POST' ? { body } : {}) }).then(
        async (up) => {
          const text = await up.text();
          if (req.method === 'POST' && req.url === '/api/v2/alerts' && up.ok) posts.push({ alerts: JSON.parse(body.toString('utf8')) as ListedAlert[] });
          res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'text/plain' });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(502);
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    failNext: (status, times = 1) => void (fail = { status, times }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
