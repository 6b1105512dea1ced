import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../../shared/contract';
import { SummarySchema, type Summary } from '../../../shared/ledger-slice';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { freePort, startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { createSession, type Session } from '../session/session';
import { TEST_CALLER } from '../../../testing/callers';

const DAY = '2026-11-29';
// Noon: a cycle fired at midnight with 2 h of grace is overdue if none is known.
const NOW = (): Date => new Date(`${DAY}T12:00:00Z`);

/** Nothing listens on the port any more. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

function summaryOf(core: Session): Promise<Summary> {
  return Promise.resolve(core.handlers['state.summary']({}, TEST_CALLER)).then((s) => SummarySchema.parse(s));
}

const FINDINGS_HEAD = '| ID | Sev | Category | Where | Finding |\n|---|---|---|---|---|\n';
const finding = (n: number): string => `| R-${n} | P1 | safety | web/lib/f${n}.ts:${n} | the writer stamps scan_time before the write lands |\n`;

describe('the first read after a start, on an SSH host that is slow to answer', () => {
  let sshd: TestSshd;
  // Every command on the host waits until this file exists: the first read cannot end on its own.
  const gate = join(mkdtempSync(join(tmpdir(), 'loopdeck-gate-')), 'open');
  let core: Session | null = null;
  beforeAll(async () => {
    sshd = await startSshd({ gate });
  }, 30_000);
  afterEach(async () => {
    writeFileSync(gate, '');
    await core?.close();
    core = null;
  });
  afterAll(() => sshd?.stop());

  function start(dir: string): { core: Session; events: EventName[] } {
    const c = createSession({ configPath: join(dir, 'config.yaml'), dataDir: join(dir, 'data'), shell: 'serve', pollMs: 100, now: NOW, ssh: isolatedSshEnv() });
    const events: EventName[] = [];
    c.subscribe((...[event]) => void events.push(event));
    core = c;
    return { core: c, events };
  }

  function writeLoop(hostYaml: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-first-read-'));
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, DAY), { recursive: true });
    mkdirSync(join(dir, 'clone'));
    writeFileSync(join(runs, DAY, 'audit.status'), `audit ${DAY}T00:00:04+00:00 STARTED\n`);
    writeFileSync(join(dir, 'clone', 'RELIABILITY_AUDIT.md'), `# Reliability audit\n\n## Delta audit ${DAY}\n\n${FINDINGS_HEAD}${finding(1)}`);
    const loop =
      `    host: runner\n    runs: ${JSON.stringify(runs)}\n    schedule: "0 0 * * *"\n    timezone: UTC\n    grace: 2h\n` +
      `    dir: ${JSON.stringify(join(dir, 'clone'))}\n    ledgers: { audit: RELIABILITY_AUDIT.md }\n`;
    writeFileSync(join(dir, 'config.yaml'), `hosts:\n  runner: ${hostYaml}\nloops:\n  reliability:\n${loop}`);
    return dir;
  }

  it('claims no missed cycle for a loop on a host unreachable since the start: the host says why nothing is known', async () => {
    // Nothing listens on the port: the first attempt fails and the host settles as unreachable.
    const closed = `{ ssh: "${sshd.user}@127.0.0.1:${await freePort()}", identityFile: ${JSON.stringify(sshd.clientKey)} }`;
    const { core: c, events } = start(writeLoop(closed));
    await c.start();
    await until(async () => (await summaryOf(c)).hosts[0]?.state === 'unreachable', 10_000, 'the host to be unreachable');
    await c.pollOnce();
    expect(events).toContain('state.reset'); // nothing more can be read: the first read is over
    const s = await summaryOf(c);
    expect(s.reading).toBeUndefined();
    expect(s.loops[0]?.deadman ?? null).toBeNull();
    expect(c.snapshot().notices.filter((n) => n.key.startsWith('deadman:'))).toEqual([]);
  });

  it('after a restart with the host down, shows the cycles, findings and PRs stored at the last run with no dead-man, and reads afresh once it is back', async () => {
    const own = await startSshd({ loginDelayMs: 0 });
    try {
      const dir = writeLoop(sshHostYaml(own));
      const pr = 'https://github.com/acme/radon/pull/88';
      writeFileSync(join(dir, 'runs', DAY, 'deliver.log'), `NIGHTLY DELIVER READY: loop=reliability prs=1 ${pr}\n`);
      const first = start(dir).core;
      await first.start();
      await until(() => first.snapshot().loops[0]?.cycles.length === 1 && first.snapshot().findings.length === 1, 10_000, 'the first run to read');
      expect(first.snapshot().prs.map((p) => [p.url, p.status])).toEqual([[pr, 'ready']]);
      await first.close();
      core = null;

      own.kill(); // the runner is down before Loopdeck starts again
      await until(() => refused(own.port), 10_000, 'sshd to be gone');
      const { core: c } = start(dir);
      await c.start();
      // (The summary is the one saved at the last run until the first read is over: ask the live state.)
      await until(() => c.snapshot().hosts[0]?.state === 'unreachable', 10_000, 'the host to be unreachable');
      await c.pollOnce();
      const down = c.snapshot();
      expect(down.loops[0]?.cycles.map((x) => x.phases[0]?.status)).toEqual(['running']);
      expect(down.findings.map((f) => f.id)).toEqual(['R-1']);
      // The PRs are derived from the restored cycles, as from read ones.
      expect(down.prs.map((p) => [p.url, p.status])).toEqual([[pr, 'ready']]);
      expect(down.loops[0]?.deadman ?? null).toBeNull();
      expect(down.notices.filter((n) => n.key.startsWith('deadman:'))).toEqual([]);

      // While it was down: the audit finished, remediate began, a finding was appended. Back up:
      // all of it is read, nothing stored is read twice.
      appendFileSync(join(dir, 'runs', DAY, 'audit.status'), `audit ${DAY}T00:40:00+00:00 OK\n`);
      writeFileSync(join(dir, 'runs', DAY, 'remediate.status'), `remediate ${DAY}T01:00:00+00:00 STARTED\n`);
      appendFileSync(join(dir, 'clone', 'RELIABILITY_AUDIT.md'), finding(2));
      await own.restart();
      await until(
        () => c.snapshot().loops[0]?.cycles[0]?.phases[1]?.status === 'running' && c.snapshot().findings.length === 2,
        20_000,
        'the host to be read again',
      );
      const up = c.snapshot();
      expect(up.loops[0]?.cycles).toHaveLength(1);
      expect(up.loops[0]?.cycles[0]?.phases[0]?.status).toBe('ok');
      expect(up.findings.map((f) => f.id).sort()).toEqual(['R-1', 'R-2']);
      expect(up.loops[0]?.deadman?.state).toBe('ok');
    } finally {
      await own.stop();
    }
  }, 60_000);

  it('stays open until the loop is read: no state.reset, no dead-man from no cycles, no notice; then the state whole', async () => {
    const dir = writeLoop(sshHostYaml(sshd));
    for (const restart of [false, true]) {
      // The second start has a saved summary and a seeded notifier: a false "missed" would be sent.
      rmSync(gate, { force: true });
      const { core: c, events } = start(dir);
      await c.start();
      await until(async () => (await summaryOf(c)).hosts[0]?.state === 'connected', 10_000, 'the host to connect');
      // Polls ran while the host connected and run now (every 100 ms), each held at the gate.
      const held = await summaryOf(c);
      expect(restart ? held.restored : held.reading, `start ${restart ? 2 : 1}`).toBe(true);
      expect(events).not.toContain('state.reset');
      expect(c.snapshot().loops[0]?.deadman ?? null).toBeNull();
      expect(c.snapshot().notices.filter((n) => n.key.startsWith('deadman:'))).toEqual([]);

      writeFileSync(gate, '');
      await until(() => events.includes('state.reset'), 20_000, 'state.reset');
      const read = await summaryOf(c);
      expect(read.reading).toBeUndefined();
      expect(read.restored).toBeUndefined();
      expect(read.loops[0]?.cycles[0]?.phases[0]?.status).toBe('running');
      expect(read.loops[0]?.deadman?.state).toBe('ok');
      expect(c.snapshot().notices.filter((n) => n.key.startsWith('deadman:'))).toEqual([]);
      await c.close();
      core = null;
    }
  }, 60_000);
});
