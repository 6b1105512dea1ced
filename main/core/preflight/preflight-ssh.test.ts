import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { freePort, startSshd, type TestSshd } from '../../../testing/sshd';
import { mountTmpfs, type Tmpfs } from '../../../testing/tmpfs';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import { type Engine } from '../engine';
import { Store } from '../store/store';
import { countRequests } from '../../../testing/ssh-requests';
import { composeEngine } from '../session/core';
import { probeScript } from './host-probe';
import { originCheck } from './runner-checks';
import { parseRunner } from './runner-probe';

// Pre-flight against a real sshd on loopback ("the host" is this machine, reached over SSH): a
// clone on a full tmpfs, an unfinished previous cycle, a resumable deliver record, a model the
// crossbar does not have loaded (its admin API on the host's loopback, through the SSH link),
// and a second host whose key is not trusted. The host's sessions have a `crontab` of the test's
// first on their PATH (this machine has no cron; sshd's SetEnv puts it there) and no launchctl;
// the clones' origins are local bare repositories, a removed path and a closed port.

const HOUR = 3_600_000;

/** A crossbar admin API with one host that has `qwen3-32b` loaded, 1 of 4 slots busy. */
function crossbar(): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/_crossbar/hosts') {
      res.end(JSON.stringify([{ name: 'gpu-a', up: true, n_ctx: 32768, slots: 4, inflight: 1, queued: 0, models: { 'qwen3-32b': { n_ctx: 32768, slots: 4, inflight: 1, queued: 0 } } }]));
    } else if (req.url?.startsWith('/_crossbar/usage')) res.end('[]');
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const q = JSON.stringify;

interface Night {
  readonly engine: Engine;
  readonly store: Store;
  close(): Promise<void>;
}

function open(yaml: string): Night {
  const dir = mkdtempSync(join(tmpdir(), 'ld-preflight-'));
  const config = parseConfig(join(dir, 'config.yaml'), yaml);
  const store = Store.open(join(dir, 'loopdeck.db'));
  const engine = composeEngine(config, { store, ssh: isolatedSshEnv() });
  engine.start();
  return {
    engine,
    store,
    close: async () => {
      await engine.close();
      store.close();
    },
  };
}

async function settle(engine: Engine): Promise<void> {
  await engine.hosts.settle(10_000);
  await engine.capacity.pollOnce();
  await engine.poll();
  for (let i = 0; engine.behind() && i < 100; i++) await engine.poll();
}

describe('pre-flight over a real sshd', () => {
  let sshd: TestSshd;
  let fleet: Server;
  let full: Tmpfs;
  const root = mkdtempSync(join(tmpdir(), 'ld-preflight-runner-'));
  const runs = join(root, 'runs');
  const today = new Date().toISOString().slice(0, 10);
  const bin = join(root, 'bin');
  const crontabFile = join(root, 'crontab.txt');

  beforeAll(async () => {
    // `crontab -l` prints crontabFile, or says there is none, as cron's own does.
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'crontab'),
      `#!/bin/sh\n[ "$1" = -l ] || { echo "test crontab: only -l" >&2; exit 2; }\n[ -f ${q(crontabFile)} ] || { echo "no crontab for $(id -un)" >&2; exit 1; }\ncat ${q(crontabFile)}\n`,
      { mode: 0o755 },
    );
    sshd = await startSshd({ maxSessions: 10, extraConfig: `SetEnv PATH=${bin}:/usr/local/bin:/usr/bin:/bin` });
    fleet = await crossbar();
    full = mountTmpfs(1024 * 1024);
    full.fill();
    // The previous cycle is still in remediate (started an hour ago, well inside its 20 h cap).
    mkdirSync(join(runs, today), { recursive: true });
    const started = new Date(Date.now() - HOUR).toISOString().replace(/\.\d+Z$/, '+00:00');
    writeFileSync(join(runs, today, 'audit.status'), `audit ${started} STARTED\naudit ${started} OK\n`);
    writeFileSync(join(runs, today, 'remediate.status'), `remediate ${started} STARTED\n`);
    writeFileSync(
      join(root, 'deliver.json'),
      q({ loop: 'reliability', branch: 'reliability/2026-11-30', pr: 88, url: 'https://github.com/acme/radon/pull/88', status: 'incomplete', check: 'ci', updated_at: '2026-11-30T10:00:00Z' }),
    );
  }, 30_000);
  afterAll(async () => {
    full?.unmount();
    fleet?.close();
    await sshd?.stop();
  });

  const yaml = (): string =>
    [
      'hosts:',
      `  runner: ${sshHostYaml(sshd)}`,
      `  stranger: ${sshHostYaml(sshd, false)}`,
      'proxies:',
      `  crossbar: { host: runner, kind: crossbar, url: "http://127.0.0.1:${(fleet.address() as AddressInfo).port}", every: 1h }`,
      'loops:',
      `  reliability: { host: runner, runs: ${q(runs)}, dir: ${q(full.dir)}, schedule: "0 0 * * *", timezone: UTC, preflightDisk: 10MB, deliverRecord: ${q(join(root, 'deliver.json'))}, models: [qwen3-32b, gpt-oss-120b], uses: [crossbar] }`,
      `  elsewhere: { host: stranger, runs: ${q(runs)} }`,
      '',
    ].join('\n');

  it('finds each thing that will fail tonight, and says what a resumable deliver record will do', async () => {
    const night = open(yaml());
    try {
      await settle(night.engine);
      const [rel, other] = await night.engine.preflight.run();
      expect(rel?.state).toBe('at-risk');
      const check = (name: string) => rel?.checks.find((c) => c.name === name);
      expect(check('host')).toMatchObject({ status: 'ok', detail: 'host runner is connected and its key trusted' });
      expect(check('disk')?.status).toBe('fail');
      expect(check('disk')?.detail).toMatch(new RegExp(`^clone ${full.dir} has \\d+(\\.\\d+)? (B|KB) free on ${full.dir} \\(needs 10 MB, preflightDisk\\)$`));
      expect(check('previous-cycle')?.status).toBe('fail');
      expect(check('previous-cycle')?.detail).toMatch(new RegExp(`^cycle ${today} is still running \\(remediate since `));
      expect(check('deliver-record')).toMatchObject({ status: 'warn', ok: true });
      expect(check('deliver-record')?.detail).toContain('resumes https://github.com/acme/radon/pull/88 on reliability/2026-11-30 (failing check ci)');
      expect(check('fleet')).toMatchObject({ status: 'ok', detail: 'proxy crossbar: 1 of 1 hosts up, 3 of 4 slots free' });
      expect(check('models')).toMatchObject({ status: 'fail', detail: 'model gpt-oss-120b not loaded on crossbar (loaded: qwen3-32b)' });

      expect(other?.state).toBe('at-risk');
      const host = other?.checks.find((c) => c.name === 'host');
      expect(host?.status).toBe('fail');
      expect(host?.detail).toMatch(/^host stranger's key is not trusted \(SHA256:[A-Za-z0-9+/]+\): compare it with the host's own and run `loopdeck trust stranger`$/);
      expect(other?.checks.find((c) => c.name === 'disk')).toMatchObject({ status: 'unknown', detail: 'free room not checked: host stranger cannot be read' });
    } finally {
      await night.close();
    }
  }, 60_000);

  it('runs on its own inside the lead, publishes it, and notices an at-risk night under the key of its fire', async () => {
    // Every minute: the next fire is always inside the default 1 h lead.
    const night = open(yaml().replace('schedule: "0 0 * * *"', 'schedule: "* * * * *"'));
    const published: EventPayload<'preflight.changed'>[] = [];
    night.engine.subscribe((...[event, payload]) => {
      if (event === 'preflight.changed') published.push(payload);
    });
    try {
      await night.engine.hosts.settle(10_000);
      await night.engine.capacity.pollOnce();
      night.engine.run({ intervalMs: 100 });
      await until(() => published.some((p) => p.preflight.some((x) => x.loop === 'reliability' && x.state === 'at-risk')), 20_000, 'an at-risk pre-flight published');
      const pf = night.engine.preflight.list().find((p) => p.loop === 'reliability');
      expect(night.engine.summary().preflight?.map((p) => p.loop)).toContain('reliability');
      const key = `preflight:reliability:${pf?.fireAt}`;
      await until(() => night.engine.notifier.list().some((n) => n.key === key), 20_000, `the notice ${key}`);
      const notice = night.engine.notifier.list().find((n) => n.key === key);
      expect(notice?.priority).toBe(1);
      expect(notice?.message).toContain('models: model gpt-oss-120b not loaded on crossbar');
    } finally {
      await night.close();
    }
  }, 60_000);

  /** `git -C cwd ...args`. */
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  /** A clone of a new bare repository `<name>.git` (one commit on main), its origin then set to `origin` when given. */
  const clone = (name: string, origin?: string): string => {
    const dir = join(root, name);
    git(root, 'init', '-q', '--bare', `${name}.git`);
    git(root, 'clone', '-q', `${name}.git`, name);
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init');
    git(dir, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    if (origin) git(dir, 'remote', 'set-url', 'origin', origin);
    return dir;
  };
  const runnerYaml = (loops: Record<string, string>): string => {
    const quiet = join(root, 'runs-quiet');
    mkdirSync(quiet, { recursive: true });
    const lines = Object.entries(loops).map(([name, extra]) => `  ${name}: { host: runner, runs: ${q(quiet)}, schedule: "0 0 * * *", timezone: UTC, preflightDisk: 1MB, ${extra} }`);
    return ['hosts:', `  runner: ${sshHostYaml(sshd)}`, 'loops:', ...lines, ''].join('\n');
  };

  it('is at risk when the cron entry is missing from crontab -l or the origin does not answer, ready when both hold, and says a scheduler tool the host lacks', async () => {
    writeFileSync(crontabFile, '# 0 0 * * * /srv/radon/scripts/reliability-nightly.sh\nMAILTO=ops\n0 0 * * * /srv/radon/scripts/loopdeck-ok-nightly.sh >> /tmp/x 2>&1\n');
    const good = clone('good');
    const gone = clone('gone');
    const removed = join(root, 'gone.git');
    execFileSync('rm', ['-rf', removed]);
    const port = await freePort();
    const closed = clone('closed', `git://127.0.0.1:${port}/radon.git`);
    const night = open(
      runnerYaml({
        good: `dir: ${q(good)}, scheduler: { cron: "loopdeck-ok-nightly.sh" }`,
        nocron: `dir: ${q(good)}, scheduler: { cron: "reliability-nightly.sh" }`,
        gone: `dir: ${q(gone)}`,
        closed: `dir: ${q(closed)}`,
        mac: 'scheduler: { launchd: com.acme.reliability }',
      }),
    );
    try {
      await settle(night.engine);
      const byLoop = new Map((await night.engine.preflight.run()).map((p) => [p.loop, p]));
      const check = (loop: string, name: string) => byLoop.get(loop)?.checks.find((c) => c.name === name);

      expect(byLoop.get('good')?.state).toBe('ready');
      expect(check('good', 'scheduler')).toMatchObject({ status: 'ok', detail: `runner's crontab has "0 0 * * * /srv/radon/scripts/loopdeck-ok-nightly.sh >> /tmp/x 2>&1"` });
      expect(check('good', 'origin')).toMatchObject({ status: 'ok', detail: `origin ${join(root, 'good.git')} answers (git ls-remote --heads, clone ${good})` });

      // Only in a commented line: not installed.
      expect(byLoop.get('nocron')?.state).toBe('at-risk');
      expect(check('nocron', 'scheduler')).toMatchObject({
        status: 'fail',
        detail: 'no line of runner\'s crontab contains "reliability-nightly.sh" (commented lines aside): tonight\'s fire is not installed (loops.nocron.scheduler.cron)',
      });

      expect(byLoop.get('gone')?.state).toBe('at-risk');
      expect(check('gone', 'origin')).toMatchObject({
        status: 'fail',
        detail: `origin ${removed} does not answer from clone ${gone} on runner (git ls-remote exit 128): fatal: '${removed}' does not appear to be a git repository`,
      });
      // No scheduler declared: no scheduler check (as no deliver record means no deliver-record check).
      expect(check('gone', 'scheduler')).toBeUndefined();

      expect(byLoop.get('closed')?.state).toBe('at-risk');
      expect(check('closed', 'origin')?.status).toBe('fail');
      expect(check('closed', 'origin')?.detail).toMatch(
        new RegExp(`^origin git://127\\.0\\.0\\.1:${port}/radon\\.git does not answer from clone ${closed} on runner \\(git ls-remote exit 128\\): fatal: unable to connect to 127\\.0\\.0\\.1: .*Connection refused`),
      );

      // This host has no launchctl: said, and the night is not taken for ready.
      expect(check('mac', 'scheduler')).toMatchObject({
        status: 'unknown',
        ok: false,
        detail: 'launchctl is not installed on runner: cannot tell whether launchd label com.acme.reliability is installed (loops.mac.scheduler)',
      });
      expect(byLoop.get('mac')?.state).toBe('unknown');
      expect(check('mac', 'origin')).toBeUndefined(); // no dir

      // No crontab at all for the account: cron's own "no crontab for USER".
      execFileSync('rm', ['-f', crontabFile]);
      const [again] = await night.engine.preflight.run(['good']);
      expect(again?.state).toBe('at-risk');
      expect(again?.checks.find((c) => c.name === 'scheduler')?.detail).toMatch(/^runner has no crontab \(crontab -l: no crontab for \S+\): no line contains "loopdeck-ok-nightly.sh", tonight's fire is not installed \(loops\.good\.scheduler\.cron\)$/);
    } finally {
      await night.close();
    }
  }, 60_000);

  it('bounds git ls-remote on the host: an origin that takes the connection and never answers is cut at the bound, and said', async () => {
    const held: Socket[] = [];
    const hole = createTcpServer((s) => held.push(s));
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    const url = `git://127.0.0.1:${(hole.address() as AddressInfo).port}/radon.git`;
    const dir = clone('blackholed', url);
    const night = open(runnerYaml({ hole: `dir: ${q(dir)}` }));
    try {
      await settle(night.engine);
      const conn = night.engine.hosts.get('runner')?.ssh?.connection;
      if (!conn) throw new Error('no SSH connection for runner');
      // The service's script with a 2 s bound instead of 20 s, over the same connection.
      const asks = [{ dir }];
      const started = Date.now();
      const out = await conn.run(probeScript([[dir]], asks, 2), 30_000);
      const took = Date.now() - started;
      const [answer] = parseRunner(out.stdout.toString('utf8'), asks);
      expect(answer?.origin).toMatchObject({ noGit: false, url, via: 'timeout', rc: 124 });
      expect(held.length).toBeGreaterThan(0); // git did reach the port
      expect(took).toBeGreaterThanOrEqual(1900);
      expect(took).toBeLessThan(15_000);
      expect(originCheck('runner', dir, answer?.origin ?? null, 2)).toMatchObject({
        status: 'fail',
        detail: `origin ${url} did not answer within 2 s (the bound was hit: timeout 2 on runner), from clone ${dir}: tonight's pushes and PR will fail`,
      });
    } finally {
      await night.close();
      for (const s of held) s.destroy();
      hole.close();
    }
  }, 60_000);

  it('asks the host once for 20 loops: one script run for every folder, scheduler and origin (the target is at most 2 requests a host)', async () => {
    const lines = ['hosts:', `  runner: ${sshHostYaml(sshd)}`, 'loops:'];
    for (let i = 0; i < 20; i++) {
      const dir = join(root, `loop-${i}`);
      mkdirSync(join(dir, 'runs'), { recursive: true });
      mkdirSync(join(dir, 'clone'), { recursive: true });
      lines.push(`  loop-${i}: { host: runner, runs: ${q(join(dir, 'runs'))}, dir: ${q(join(dir, 'clone'))}, preflightDisk: 1MB, scheduler: { cron: loop-${i}-nightly } }`);
    }
    const night = open(`${lines.join('\n')}\n`);
    try {
      await settle(night.engine);
      const conn = night.engine.hosts.get('runner')?.ssh?.connection;
      if (!conn) throw new Error('no SSH connection for runner');
      const requestsMade = countRequests(conn);
      const results = await night.engine.preflight.run();
      const requests = requestsMade();
      expect(results).toHaveLength(20);
      expect(results.every((r) => r.checks.find((c) => c.name === 'disk')?.status === 'ok')).toBe(true);
      // The scheduler and the origin were asked in that same request (the clones are not git repositories).
      expect(results.every((r) => r.checks.some((c) => c.name === 'scheduler') && r.checks.find((c) => c.name === 'origin')?.detail.startsWith(`clone ${join(root, r.loop, 'clone')} on runner is not a git repository`))).toBe(true);
      console.log(`pre-flight of 20 loops on one SSH host: ${requests} request(s) to the host`);
      expect(requests).toBeLessThanOrEqual(2);
      expect(requests).toBe(1);
    } finally {
      await night.close();
    }
  }, 60_000);

  it('asks every host at once: two hosts, ten loops each, one request each, the second sent before the first answered', async () => {
    const lines = ['hosts:', `  a: ${sshHostYaml(sshd)}`, `  b: ${sshHostYaml(sshd)}`, 'loops:'];
    for (let i = 0; i < 20; i++) {
      const dir = join(root, `pair-${i}`);
      mkdirSync(join(dir, 'runs'), { recursive: true });
      lines.push(`  pair-${i}: { host: ${i % 2 ? 'b' : 'a'}, runs: ${q(join(dir, 'runs'))}, preflightDisk: 1MB }`);
    }
    const night = open(`${lines.join('\n')}\n`);
    try {
      await settle(night.engine);
      const requests = { a: 0, b: 0 };
      let answered = 0;
      let inFlightAtSecond = -1;
      for (const name of ['a', 'b'] as const) {
        const conn = night.engine.hosts.get(name)?.ssh?.connection;
        if (!conn) throw new Error(`no SSH connection for ${name}`);
        const original = conn.run.bind(conn);
        conn.run = (script, timeoutMs) => {
          requests[name] += 1;
          if (requests.a + requests.b === 2) inFlightAtSecond = 2 - answered - 1;
          return original(script, timeoutMs).finally(() => answered++);
        };
      }
      const results = await night.engine.preflight.run();
      expect(results.map((r) => r.state)).toEqual(Array(20).fill('ready'));
      expect(requests).toEqual({ a: 1, b: 1 });
      // When the second host was asked, the first had not answered yet.
      expect(inFlightAtSecond).toBe(1);
    } finally {
      await night.close();
    }
  }, 60_000);
});
