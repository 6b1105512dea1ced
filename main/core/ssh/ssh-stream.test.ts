import { appendFileSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { isolatedSshEnv, sshHostYaml } from '../../testing/ssh-fixture';
import { until } from '../../testing/until';
import { createAppCore, type AppCore } from '../app-core';
import { SshConnection } from './connection';

const DAY = '2026-11-29';
const NOW = (): Date => new Date('2026-11-29T12:00:00Z');

/** The steps of the running remediate's `gates` stage in the snapshot. */
function steps(c: AppCore): string[] {
  const phase = c.snapshot().loops[0]?.cycles[0]?.phases.find((p) => p.name === 'remediate');
  return phase?.stages.find((s) => s.name === 'gates')?.steps.map((s) => s.name) ?? [];
}

/** Count the requests (stat, read, list: one `run` each) every SshConnection makes until `stop`. */
function countRequests(): { readonly count: () => number; reset: () => void; stop: () => void } {
  const original = SshConnection.prototype.run;
  let n = 0;
  SshConnection.prototype.run = function (this: SshConnection, ...args: Parameters<SshConnection['run']>) {
    n += 1;
    return original.apply(this, args);
  };
  return { count: () => n, reset: () => void (n = 0), stop: () => void (SshConnection.prototype.run = original) };
}

describe('appended bytes through the SSH watcher\'s stream, against a real sshd', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  }, 30_000);
  afterAll(() => sshd?.stop());

  it('takes a line appended to a running phase to the snapshot with no request to the host, and a replaced file by requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-stream-'));
    const day = join(dir, 'runs', DAY);
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, 'audit.status'), 'audit 2026-11-29T00:00:04+00:00 STARTED\naudit 2026-11-29T01:00:00+00:00 OK\n');
    writeFileSync(join(day, 'remediate.status'), 'remediate 2026-11-29T01:00:05+00:00 STARTED\n');
    const rc = join(day, 'remediate.gates.rc');
    writeFileSync(rc, 'ast_refresh_rc=0\n');
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(join(dir, 'runs'))}\n    phases: [audit, remediate, deliver]\n`);
    // No timer poll in the test's time: every poll after the first is one the watcher woke.
    const c = createAppCore({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 600_000, now: NOW, ssh: isolatedSshEnv() });
    const requests = countRequests();
    try {
      await c.start();
      await until(() => steps(c).includes('ast_refresh'), 15_000, 'the first read');
      // Warm up until an append costs no request: the watcher is up and its first listing's poll is done.
      let warm = 0;
      for (; warm < 40; warm++) {
        requests.reset();
        appendFileSync(rc, `warm${warm}_rc=0\n`);
        await until(() => steps(c).includes(`warm${warm}`), 10_000, `warm-up line ${warm}`);
        if (requests.count() === 0) break;
      }
      expect(warm).toBeLessThan(40);
      requests.reset();
      for (let i = 0; i < 30; i++) {
        appendFileSync(rc, `step${i}_rc=${i % 3}\n`);
        await until(() => steps(c).includes(`step${i}`), 10_000, `line ${i} in the snapshot`);
      }
      expect(requests.count()).toBe(0);
      const all = steps(c);
      expect(all.filter((s) => s.startsWith('step'))).toEqual(Array.from({ length: 30 }, (_, i) => `step${i}`));

      // A file replaced by a rename is no growth: the watcher says `changed`, the poll asks the host.
      writeFileSync(join(day, 'next.rc'), 'ast_refresh_rc=0\nreplaced_rc=0\n');
      renameSync(join(day, 'next.rc'), rc);
      await until(() => steps(c).includes('replaced') && !steps(c).includes('step0'), 10_000, 'the replaced file read again');
      expect(requests.count()).toBeGreaterThan(0);
    } finally {
      requests.stop();
      await c.close();
    }
  }, 90_000);
});
