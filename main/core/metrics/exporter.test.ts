import { CONTRACT_KINDS } from '../../../shared/contract-breach';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useLogger } from '../logging/log';
import { stderrLogger } from '../logging/logger';
import { until } from '../../../testing/until';
import { PROMTOOL, startPrometheus } from '../../../testing/prometheus';
import { createSession, type Session } from '../session/session';
import { MAX_METRICS_CONNECTIONS, METRICS_HEADERS_TIMEOUT_MS, METRICS_KEEP_ALIVE_MS } from './exporter';
import { TEST_CALLER } from '../../../testing/callers';

const NOW = (): Date => new Date('2026-11-29T12:00:00Z');
const SECRET = 'exit order placed without the halt check';

const AUDIT = `# Reliability audit

## Delta audit 2026-11-28

### Findings
| ID | Sev | Category | Where | Finding |
|----|-----|----------|-------|---------|
| R-101 | P0 | safety | scripts/exit_orders.py:88 | ${SECRET} |
| R-102 | P1 | error handling | web/lib/quote.ts:12 | fallback swallows 502 |
| R-103 | P1 | state | daemon/state.py:40 | torn JSON from concurrent writers |
| R-104 | P2 | observability | cloud/x.timer:1 | timer has no health row |

### Backlog
| ID | Findings | Sev | Acceptance criteria |
|----|----------|-----|---------------------|
| REL-050 | R-101 | P0 | kill the halt service mid-order: no order leaves |
| REL-051 | R-104 | P2 | the timer reports its health |
`;

const LOG = `# Reliability log

| ID | Date | Outcome | Red/Green | Notes |
|----|------|---------|-----------|-------|
| REL-051 | 2026-11-28 | DONE | 1/1 | health row added |
`;

/** A free loopback port (closed again at once: the core binds it next). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * One local runner with the `reliability` loop (today: audit ok, remediate failed, deliver ready
 * with 2 PRs; four findings, one closed), a second loop whose runs folder is missing (a source
 * error), an SSH host nothing listens for, and the exporter as `metrics` says.
 */
function fixture(metrics: { listen: string; exposed?: boolean }): { configPath: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-metrics-'));
  const day = join(dir, 'runs', '2026-11-29');
  mkdirSync(day, { recursive: true });
  mkdirSync(join(dir, 'clone'));
  writeFileSync(join(dir, 'clone', 'RELIABILITY_AUDIT.md'), AUDIT);
  writeFileSync(join(dir, 'clone', 'RELIABILITY_LOG.md'), LOG);
  writeFileSync(join(day, 'audit.status'), 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T00:41:12+00:00 OK\n');
  writeFileSync(join(day, 'remediate.status'), 'remediate 2026-11-29T01:00:00+00:00 STARTED\nremediate 2026-11-29T05:00:00+00:00 FAILED 2\n');
  writeFileSync(
    join(day, 'deliver.status'),
    'deliver 2026-11-29T05:10:00+00:00 STARTED\ndeliver 2026-11-29T05:40:00+00:00 2 PR(s) green, ready to merge: https://github.com/acme/radon/pull/88 https://github.com/acme/radon/pull/89\n',
  );
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    [
      'hosts:',
      '  runner: { local: true }',
      '  far: { ssh: "nobody@127.0.0.1:1" }',
      'loops:',
      '  reliability:',
      '    host: runner',
      '    runs: runs',
      '    dir: clone',
      '    schedule: "0 0 * * *"',
      '    grace: 2h',
      '    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }',
      '  testing:',
      '    host: runner',
      '    runs: missing-runs',
      `metrics: ${JSON.stringify(metrics)}`,
      '',
    ].join('\n'),
  );
  return { configPath, dataDir: join(dir, 'data') };
}

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

function fetchHttp(port: number, path: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The value of the sample written exactly as `series` (name and labels in prom-client's order). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/**
 * The connections the server side of `port` holds, as the kernel lists them: accepted sockets it
 * has not closed (ESTABLISHED, or CLOSE_WAIT once the client gave up).
 */
function heldBy(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  // Counted by inode, not by line: the kernel lists /proc/net/tcp a page at a time, and a socket
  // that moves in its table between two reads (the flood opens and closes many) is listed twice.
  const held = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      // A connection still in the listen backlog has no inode (no process holds it yet): the
      // kernel's, not the server's, however many a flood leaves there at the instant of reading.
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (local?.endsWith(`:${hex}`) && (state === '01' || state === '08') && inode && inode !== '0') held.add(inode);
    }
  }
  return held.size;
}

describe('the /metrics exporter', () => {
  let core: Session | null = null;
  const servers: Server[] = [];
  afterEach(async () => {
    await core?.close();
    core = null;
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  async function startCore(listen: string, exposed?: boolean): Promise<Session> {
    const fx = fixture({ listen, ...(exposed === undefined ? {} : { exposed }) });
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await core.pollOnce();
    return core;
  }

  it('serves the loops, findings, PRs, hosts, notices and source errors of a known fixture', async () => {
    const port = await freePort();
    const c = await startCore(`127.0.0.1:${port}`);
    const { status, type, body } = await fetchHttp(port, '/metrics');
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);

    const phase = (p: string, s: string): number | undefined => sample(body, `loopdeck_phase_status{loop="reliability",phase="${p}",status="${s}"}`);
    expect([phase('audit', 'ok'), phase('remediate', 'failed'), phase('deliver', 'ready')]).toEqual([1, 1, 1]);
    expect([phase('audit', 'failed'), phase('remediate', 'ok'), phase('deliver', 'pending')]).toEqual([0, 0, 0]);
    // A state set: one series per status, exactly one of them 1.
    const remediate = body.split('\n').filter((l) => l.startsWith('loopdeck_phase_status{loop="reliability",phase="remediate",'));
    expect(remediate).toHaveLength(7);
    expect(remediate.filter((l) => l.endsWith(' 1'))).toHaveLength(1);

    // The failed remediate's cause, as a state set too (the fixture's night is one this Loopdeck did
    // not watch: unknown, nothing claimed); none for phases that went well.
    const cause = (p: string, c: string): number | undefined => sample(body, `loopdeck_phase_cause{loop="reliability",phase="${p}",cause="${c}"}`);
    expect([cause('remediate', 'unknown'), cause('remediate', 'agent'), cause('remediate', 'fleet'), cause('remediate', 'runner')]).toEqual([1, 0, 0, 0]);
    expect(body).not.toContain('loopdeck_phase_cause{loop="reliability",phase="audit"');

    expect(sample(body, 'loopdeck_deadman_state{loop="reliability",state="ok"}')).toBe(1);
    expect(sample(body, 'loopdeck_deadman_state{loop="reliability",state="missed"}')).toBe(0);
    // The loop whose runs folder cannot be read has neither a cycle nor a dead-man to report yet.
    expect(body).not.toContain('loopdeck_phase_status{loop="testing"');
    expect(body).not.toContain('loopdeck_deadman_state{loop="testing"');

    const open = (loop: string, sev: string): number | undefined => sample(body, `loopdeck_findings_open{loop="${loop}",severity="${sev}"}`);
    expect([open('reliability', 'P0'), open('reliability', 'P1'), open('reliability', 'P2'), open('reliability', 'P3')]).toEqual([1, 2, 0, 0]);
    expect([open('testing', 'P0'), open('testing', 'P1')]).toEqual([0, 0]);

    expect(sample(body, 'loopdeck_prs_ready{loop="reliability"}')).toBe(2);
    expect(sample(body, 'loopdeck_prs_ready{loop="testing"}')).toBe(0);
    expect(sample(body, 'loopdeck_host_up{host="runner"}')).toBe(1);
    expect(sample(body, 'loopdeck_host_up{host="far"}')).toBe(0);
    expect(sample(body, 'loopdeck_source_errors')).toBe(1);

    // The Broken contract list by loop and kind: a series for every kind, the snapshot's count in each.
    const snapContract = c.snapshot().contract ?? [];
    for (const kind of CONTRACT_KINDS) {
      expect(sample(body, `loopdeck_contract_breaches{loop="reliability",kind="${kind}"}`), kind).toBe(snapContract.filter((b) => b.loop === 'reliability' && b.kind === kind).length);
    }
    expect(sample(body, 'loopdeck_contract_breaches{loop="testing",kind="hollow"}')).toBe(0);

    // The same counts as the snapshot holds (the exporter reads the engine's state, not a copy).
    const snap = c.snapshot();
    expect(snap.findings.filter((f) => f.status === 'open' && f.severity === 'P1')).toHaveLength(2);
    for (const p of [-2, -1, 0, 1, 2]) {
      const unacked = snap.notices.filter((n) => n.priority === p && n.acknowledgedAt === null).length;
      expect(sample(body, `loopdeck_notices_unacknowledged{priority="${p}"}`)).toBe(unacked);
    }

    // Aggregates only: no finding text, where, category, nor notice text.
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain('exit_orders');
    for (const n of snap.notices) expect(body).not.toContain(n.title);
  });

  it('a finding closed in the log is no longer counted open on the next scrape', async () => {
    const port = await freePort();
    const fx = fixture({ listen: `127.0.0.1:${port}` });
    core = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000, now: NOW });
    await core.start();
    await core.pollOnce();
    const p0 = 'loopdeck_findings_open{loop="reliability",severity="P0"}';
    expect(sample((await fetchHttp(port, '/metrics')).body, p0)).toBe(1);
    // Scraped again unchanged: the same answer (counted once per ledger change).
    expect(sample((await fetchHttp(port, '/metrics')).body, p0)).toBe(1);
    appendFileSync(join(dirname(fx.configPath), 'clone', 'RELIABILITY_LOG.md'), '| REL-050 | 2026-11-29 | DONE | 1/1 | halt check added |\n');
    await core.pollOnce();
    expect(sample((await fetchHttp(port, '/metrics')).body, p0)).toBe(0);
  });

  it('acknowledging a notice lowers its count on the next scrape', async () => {
    const port = await freePort();
    const c = await startCore(`127.0.0.1:${port}`);
    const notice = c.snapshot().notices.find((n) => n.acknowledgedAt === null);
    expect(notice, 'the fixture raises at least one notice').toBeDefined();
    if (!notice) return;
    const series = `loopdeck_notices_unacknowledged{priority="${notice.priority}"}`;
    const before = sample((await fetchHttp(port, '/metrics')).body, series) ?? NaN;
    c.handlers['notices.ack']({ key: notice.key }, TEST_CALLER);
    expect(sample((await fetchHttp(port, '/metrics')).body, series)).toBe(before - 1);
  });

  it('passes `promtool check metrics` (no lint complaints)', async () => {
    const port = await freePort();
    await startCore(`127.0.0.1:${port}`);
    const { body } = await fetchHttp(port, '/metrics');
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect({ status: check.status, out: check.stdout + check.stderr }).toEqual({ status: 0, out: '' });
  });

  it('a real Prometheus scrapes it and answers queries over the values', async () => {
    const port = await freePort();
    await startCore(`127.0.0.1:${port}`);
    const prometheus = await startPrometheus({ targets: [`127.0.0.1:${port}`] });
    const query = async (q: string): Promise<string | null> => {
      const answer = await prometheus.api(`/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => null);
      if (answer?.status !== 200) return null;
      const data = answer.body as { data: { result: { value: [number, string] }[] } };
      return data.data.result[0]?.value[1] ?? null;
    };
    try {
      await until(async () => (await query('up')) === '1', 60_000, 'Prometheus to scrape /metrics');
      expect(await query('loopdeck_prs_ready{loop="reliability"}')).toBe('2');
      expect(await query('sum by (loop) (loopdeck_findings_open{loop="reliability"})')).toBe('3');
      expect(await query('count(loopdeck_phase_status{status="failed"} == 1)')).toBe('1');
    } finally {
      await prometheus.stop();
    }
  }, 90_000);

  it('answers only GET and HEAD of /metrics', async () => {
    const port = await freePort();
    await startCore(`127.0.0.1:${port}`);
    const head = await fetchHttp(port, '/metrics', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    expect((await fetchHttp(port, '/metrics?x=1')).status).toBe(200);
    expect((await fetchHttp(port, '/')).status).toBe(404);
    expect((await fetchHttp(port, '/metrics/extra')).status).toBe(404);
    expect((await fetchHttp(port, '/metrics', 'POST')).status).toBe(405);
  });

  it('closes connections that stall mid-request, holds at most MAX_METRICS_CONNECTIONS, and answers a scrape during the flood', async () => {
    const port = await freePort();
    await startCore(`127.0.0.1:${port}`);
    // Slow clients: nothing at all, half a request line, a request line and half the headers,
    // and a keep-alive scrape that then sends half of its next request.
    const stalls = ['', 'GET /metr', 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slo', 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /met'];
    const flood = MAX_METRICS_CONNECTIONS + 16;
    const sockets: Socket[] = [];
    // How long each socket lived from its connect (from the flood's start if it never connected):
    // on a busy machine the flood itself takes seconds, which are not the server's to answer for.
    const closedAt = new Map<Socket, number>();
    const connectedAt = new Map<Socket, number>();
    const started = Date.now();
    let connected = 0;
    try {
      for (let i = 0; i < flood; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('data', () => undefined);
        socket.on('close', () => closedAt.set(socket, Date.now() - (connectedAt.get(socket) ?? started)));
        socket.on('connect', () => {
          connectedAt.set(socket, Date.now());
          connected++;
          socket.write(stalls[i % stalls.length] as string);
        });
        sockets.push(socket);
      }
      await until(() => connected + closedAt.size >= flood, 10_000, 'the flood connected');
      // A scrape during the flood is answered; the server has accepted every earlier connection by then.
      const scrape = await fetchHttp(port, '/metrics');
      expect(scrape.status).toBe(200);
      expect(scrape.body).toContain('loopdeck_prs_ready{loop="reliability"} 2');
      const held: number[] = [heldBy(port)];
      // Every stalled socket is closed soon after the header timeout (Node's default check every 30 s kept them that long).
      const bound = METRICS_HEADERS_TIMEOUT_MS + METRICS_KEEP_ALIVE_MS + 5_000;
      await until(
        () => {
          held.push(heldBy(port));
          return closedAt.size === flood;
        },
        bound + 30_000,
        `all ${flood} slow connections closed`,
        100,
      );
      expect(Math.max(...held)).toBeLessThanOrEqual(MAX_METRICS_CONNECTIONS);
      expect(Math.max(...closedAt.values())).toBeLessThan(bound);
      expect(heldBy(port)).toBe(0);
      // And it still answers.
      expect((await fetchHttp(port, '/metrics')).status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  }, 90_000);

  it('a port in use is a problem naming metrics.listen; the app runs on without /metrics', async () => {
    const taken = createServer((_req, res) => res.end('someone else'));
    servers.push(taken);
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as AddressInfo;
    const c = await startCore(`127.0.0.1:${port}`);
    const problem = c.snapshot().problems.find((p) => p.source === 'metrics.listen');
    expect(problem?.message).toContain(`metrics.listen (127.0.0.1:${port} in `);
    expect(problem?.message).toMatch(/already in use.*choose another port/);
    // The loops are followed all the same.
    expect(c.snapshot().loops[0]?.cycles).toHaveLength(1);
    expect((await fetchHttp(port, '/metrics')).body).toBe('someone else');
  });

  it('closing the core frees the port', async () => {
    const port = await freePort();
    const c = await startCore(`127.0.0.1:${port}`);
    expect((await fetchHttp(port, '/metrics')).status).toBe(200);
    await c.close();
    core = null;
    await expect(fetchHttp(port, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // And the port can be bound again at once.
    const again = createServer();
    servers.push(again);
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', resolve);
    });
  });

  it('serves on a non-loopback address only with metrics.exposed, and warns', async () => {
    const port = await freePort();
    const refused = await startCore(`0.0.0.0:${port}`);
    const { config } = await refused.handlers['app.info']({}, TEST_CALLER);
    expect(config).toMatchObject({ state: 'invalid', message: expect.stringMatching(/metrics\.listen: "0\.0\.0\.0:\d+" is not a loopback address.*exposed: true/) });
    await expect(fetchHttp(port, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await refused.close();

    const warnings: string[] = [];
    const restore = useLogger({ ...stderrLogger(), warn: (m: string) => void warnings.push(m) });
    try {
      await startCore(`0.0.0.0:${port}`, true);
    } finally {
      restore();
    }
    expect((await fetchHttp(port, '/metrics')).status).toBe(200);
    expect(warnings.join('\n')).toMatch(/metrics\.listen is 0\.0\.0\.0:\d+, not loopback/);
  });
});
