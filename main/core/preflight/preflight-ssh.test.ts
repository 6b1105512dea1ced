import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../../shared/contract';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { mountTmpfs, type Tmpfs } from '../../../testing/tmpfs';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import { type Engine } from '../engine';
import { Store } from '../store/store';
import { countRequests } from '../../../testing/ssh-requests';
import { composeEngine } from '../session/core';

// Pre-flight against a real sshd on loopback ("the host" is this machine, reached over SSH): a
// clone on a full tmpfs, an unfinished previous cycle, a resumable deliver record, a model the
// crossbar does not have loaded (its admin API on the host's loopback, through the SSH link),
// and a second host whose key is not trusted.

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

  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 10 });
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
    night.engine.subscribe((event, payload) => {
      if (event === 'preflight.changed') published.push(payload as EventPayload<'preflight.changed'>);
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

  it('asks the host once for 20 loops: one script run for every folder (the target is at most 2 requests a host)', async () => {
    const lines = ['hosts:', `  runner: ${sshHostYaml(sshd)}`, 'loops:'];
    for (let i = 0; i < 20; i++) {
      const dir = join(root, `loop-${i}`);
      mkdirSync(join(dir, 'runs'), { recursive: true });
      mkdirSync(join(dir, 'clone'), { recursive: true });
      lines.push(`  loop-${i}: { host: runner, runs: ${q(join(dir, 'runs'))}, dir: ${q(join(dir, 'clone'))}, preflightDisk: 1MB }`);
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
