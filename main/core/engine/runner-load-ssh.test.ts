import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Phase } from '../../../shared/domain';
import { connectTestHost, isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { countRequests } from '../../../testing/ssh-requests';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { parseConfig } from '../config/load-config';
import type { Engine } from '../engine';
import { composeEngine } from '../session/core';
import { LOAD_SCRIPT, type LoadSample } from '../sources/host-load';
import { SshSource } from '../sources/ssh-source';
import type { SshConnection } from '../ssh/connection';
import { Store } from '../store/store';

// The runner's load, sampled in the requests a poll already makes (issue "Night against night",
// item 3), against a real sshd on loopback: "the host" is this machine, so its `nproc` is the
// host's. Two host entries reach it: `busy`, whose loop has a running remediate, and `idle`,
// whose loop's cycle is finished. Every script each connection runs is recorded.

const HOUR = 3_600_000;
const q = JSON.stringify;
const stamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, '+00:00');

/** Record every request a connection makes from now on: the scripts run in its shell session, and the execs and streams. */
function recordRequests(conn: SshConnection): { scripts: string[]; others: string[] } {
  const seen = { scripts: [] as string[], others: [] as string[] };
  const run = conn.run.bind(conn);
  conn.run = (script, timeoutMs) => {
    seen.scripts.push(script);
    return run(script, timeoutMs);
  };
  const exec = conn.exec.bind(conn);
  conn.exec = (command, timeoutMs, signal) => {
    seen.others.push(command);
    return exec(command, timeoutMs, signal);
  };
  const stream = conn.stream.bind(conn);
  conn.stream = (script, onLine, onEnd) => {
    seen.others.push(script);
    return stream(script, onLine, onEnd);
  };
  return seen;
}

/** A runs folder with today's cycle: audit done, remediate running since an hour ago (or finished). */
function runsFolder(root: string, name: string, running: boolean): string {
  const runs = join(root, name);
  const today = new Date().toISOString().slice(0, 10);
  mkdirSync(join(runs, today), { recursive: true });
  const started = Date.now() - HOUR;
  writeFileSync(join(runs, today, 'audit.status'), `audit ${stamp(started - HOUR)} STARTED\naudit ${stamp(started)} OK\n`);
  writeFileSync(join(runs, today, 'remediate.status'), `remediate ${stamp(started)} STARTED\n${running ? '' : `remediate ${stamp(started + 60_000)} OK\n`}`);
  writeFileSync(join(runs, today, 'remediate.log'), 'tool_use Read src/a.py\n');
  return runs;
}

const phaseOf = (engine: Engine, loop: string, name: string): Phase | undefined =>
  engine.snapshot().loops.find((l) => l.name === loop)?.cycles[0]?.phases.find((p) => p.name === name);

describe('runner load over a real sshd', () => {
  let sshd: TestSshd;
  const root = mkdtempSync(join(tmpdir(), 'ld-runner-load-'));
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 10 });
  }, 30_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  const yaml = (busyRuns: string, idleRuns: string): string =>
    [
      'hosts:',
      `  busy: ${sshHostYaml(sshd)}`,
      `  idle: ${sshHostYaml(sshd)}`,
      'loops:',
      `  reliability: { host: busy, runs: ${q(busyRuns)}, phases: [audit, remediate] }`,
      `  testing: { host: idle, runs: ${q(idleRuns)}, phases: [audit, remediate] }`,
      '',
    ].join('\n');

  it('samples the busy host in its polls’ own requests (cores = its nproc), never the idle one, and keeps the aggregate across a restart', async () => {
    const dir = mkdtempSync(join(root, 'night-'));
    const config = parseConfig(join(dir, 'config.yaml'), yaml(runsFolder(dir, 'busy-runs', true), runsFolder(dir, 'idle-runs', false)));
    const dbPath = join(dir, 'loopdeck.db');
    const store = Store.open(dbPath);
    const engine = composeEngine(config, { store, ssh: isolatedSshEnv() });
    const busy = engine.hosts.get('busy')?.ssh?.connection;
    const idle = engine.hosts.get('idle')?.ssh?.connection;
    if (!busy || !idle) throw new Error('both test hosts are SSH hosts');
    const onBusy = recordRequests(busy);
    const onIdle = recordRequests(idle);
    engine.start();
    let samples: number;
    try {
      await engine.hosts.settle(10_000);
      await until(
        async () => {
          await engine.poll();
          return (phaseOf(engine, 'reliability', 'remediate')?.contention?.samples ?? 0) >= 1;
        },
        20_000,
        'the running remediate to gain the runner’s load',
      );
      const contention = phaseOf(engine, 'reliability', 'remediate')?.contention;
      const nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
      expect(contention).toMatchObject({ cores: nproc, contended: false });
      expect(contention?.peakLoadPerCore).toBeGreaterThanOrEqual(0);
      expect(contention?.minFreeBytes).toBeGreaterThan(0);
      samples = contention?.samples ?? 0;
      // Only the running phase is sampled: the finished audit of the same cycle is not.
      expect(phaseOf(engine, 'reliability', 'audit')?.contention).toBeUndefined();

      // The question rode on a request the poll made anyway: no script ran it alone, and no exec
      // or stream carried it.
      const carried = onBusy.scripts.filter((s) => s.includes(LOAD_SCRIPT));
      expect(carried.length).toBeGreaterThanOrEqual(1);
      for (const s of carried) expect(s.replace(LOAD_SCRIPT, '').trim().length).toBeGreaterThan(0);
      expect([...onBusy.others, ...onIdle.others].some((s) => s.includes('/proc/loadavg'))).toBe(false);

      // The idle host (its cycle finished) was read, and never asked.
      expect(onIdle.scripts.length).toBeGreaterThan(0);
      expect(onIdle.scripts.some((s) => s.includes(LOAD_SCRIPT))).toBe(false);
      expect(phaseOf(engine, 'testing', 'remediate')).toMatchObject({ status: 'ok' });
      expect(phaseOf(engine, 'testing', 'remediate')?.contention).toBeUndefined();
    } finally {
      await engine.close();
      store.close();
    }

    // A restart keeps what the phase was seen to suffer: its first read shows the aggregate.
    const again = Store.open(dbPath);
    const restarted = composeEngine(config, { store: again, ssh: isolatedSshEnv() });
    restarted.start();
    try {
      await restarted.hosts.settle(10_000);
      await restarted.poll();
      expect(phaseOf(restarted, 'reliability', 'remediate')?.contention?.samples).toBeGreaterThanOrEqual(samples);
    } finally {
      await restarted.close();
      again.close();
    }
  }, 60_000);

  it('an SSH source asks with its next request: one request, the answer taken off its stderr, none while the link is down', async () => {
    const dir = mkdtempSync(join(root, 'source-'));
    writeFileSync(join(dir, 'audit.status'), 'audit 2026-11-30T00:00:04+00:00 STARTED\n');
    const store = Store.open(join(dir, 'loopdeck.db'));
    const host = await connectTestHost(sshd, store);
    try {
      const source = new SshSource('runner', host.connection);
      const requests = countRequests(host.connection);
      const heard: (LoadSample | null)[] = [];
      source.loadWith((s) => heard.push(s));
      expect(heard).toEqual([]);
      // A folder that is not there still reads as missing (its exit code is the script's).
      expect(await source.list(join(dir, 'missing'))).toBeNull();
      expect(requests()).toBe(1);
      expect(heard).toHaveLength(1);
      expect(heard[0]?.cores).toBe(Number(execFileSync('nproc', { encoding: 'utf8' }).trim()));
      // Asked once: the next request carries nothing, and a read's error says only its own.
      expect((await source.read(join(dir, 'audit.status'), 0, 5)).toString()).toBe('audit');
      await expect(source.read(dir, 0, 5)).rejects.toThrow(new RegExp(`^Host runner: ${dir} is not a regular file; not read\\.$`));
      expect(heard).toHaveLength(1);
      expect(requests()).toBe(3);
      // A request that fails with the link down leaves the question to the next one.
      host.connection.close();
      source.loadWith((s) => heard.push(s));
      await expect(source.stat(join(dir, 'audit.status'))).rejects.toThrow();
      expect(heard).toHaveLength(1);
    } finally {
      host.connection.close();
      store.close();
    }
  }, 30_000);

  it('samples a local host from the OS, with its cores', async () => {
    const dir = mkdtempSync(join(root, 'local-'));
    const config = parseConfig(join(dir, 'config.yaml'), `hosts:\n  here: { local: true }\nloops:\n  reliability: { host: here, runs: ${q(runsFolder(dir, 'runs', true))}, phases: [audit, remediate] }\n`);
    const store = Store.open(join(dir, 'loopdeck.db'));
    const engine = composeEngine(config, { store });
    try {
      await until(
        async () => {
          await engine.poll();
          return (phaseOf(engine, 'reliability', 'remediate')?.contention?.samples ?? 0) >= 1;
        },
        10_000,
        'the running remediate to gain this machine’s load',
      );
      expect(phaseOf(engine, 'reliability', 'remediate')?.contention?.cores).toBe(availableParallelism());
    } finally {
      await engine.close();
      store.close();
    }
  }, 30_000);
});
