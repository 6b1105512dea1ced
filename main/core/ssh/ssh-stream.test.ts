import { appendFileSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { until } from '../../../testing/until';
import { createSession, type Session } from '../session/session';
import { followOnce } from '../follow/line-follower';
import { statusFileParser } from '../loops/status-file';
import type { WatchHint } from '../sources/file-source';
import { SshSource } from '../sources/ssh-source';
import { Store } from '../store/store';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { SshConnection } from './connection';

const DAY = '2026-11-29';
const NOW = (): Date => new Date('2026-11-29T12:00:00Z');

/** The steps of the running remediate's `gates` stage in the snapshot. */
function steps(c: Session): string[] {
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
    const c = createSession({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 600_000, now: NOW, ssh: isolatedSshEnv() });
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

  it.each(['perl', 'sh'] as const)('follows a watched file from the %s watcher\'s frames alone, exactly once', async (watcher) => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-frames-'));
    const store = Store.open(join(dir, 'loopdeck.db'));
    const host = await connectTestHost(sshd, store);
    const source = new SshSource('runner', host.connection, { watcher });
    const day = join(dir, 'day');
    mkdirSync(day);
    const path = join(day, 'audit.status');
    writeFileSync(path, 'audit 2026-11-30T00:00:04+00:00 STARTED\n');
    const hints: (WatchHint | 'all')[] = [];
    const followed = (): string[] => store.records(store.file('runner', path).id).flatMap((r) => (r.kind === 'detail' ? [r.text] : []));
    const requests = countRequests();
    try {
      // Its first report: `all` (sh), or the folder no read saw yet (Perl's listing).
      source.watch([day], (hint) => hints.push(hint ?? 'all'));
      await until(() => hints.length > 0 && source.watching([day]), 10_000, 'the watcher up');
      await followOnce(source, store, path, statusFileParser); // by requests, to the end
      requests.reset();
      let seen = hints.length;
      const expected: string[] = [];
      for (let i = 0; i < 30; i++) {
        expected.push(`line-${i}-${'é'.repeat(i % 5)}`);
        appendFileSync(path, `${expected[i]}\n`);
        // As a woken poll does: on each batch of hints, one stat and one follow of the named file.
        await until(async () => {
          if (hints.length > seen) {
            seen = hints.length;
            expect(hints.at(-1)).toEqual({ dir: day, name: 'audit.status', kind: 'change' });
            await followOnce(source, store, path, statusFileParser, { stat: await source.stat(path) });
          }
          return followed().length === i + 1;
        }, 10_000, `line ${i}`);
      }
      expect(followed()).toEqual(expected);
      expect(requests.count()).toBe(0);
    } finally {
      requests.stop();
      source.unwatch();
      host.connection.close();
      store.close();
    }
  }, 60_000);

  it('loses and repeats nothing when sshd is killed while frames stream, and restarted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-frames-kill-'));
    const store = Store.open(join(dir, 'loopdeck.db'));
    const host = await connectTestHost(sshd, store);
    const source = new SshSource('runner', host.connection);
    const day = join(dir, 'day');
    mkdirSync(day);
    const path = join(day, 'audit.status');
    writeFileSync(path, 'audit 2026-11-30T00:00:04+00:00 STARTED\n');
    const followed = (): string[] => store.records(store.file('runner', path).id).flatMap((r) => (r.kind === 'detail' ? [r.text] : []));
    let hinted = 0;
    let running = true;
    const errors: string[] = [];
    // The engine's way, in small: keep the folder watched, follow on a hint, and by requests now and then.
    const loop = (async () => {
      let polls = 0;
      while (running) {
        try {
          if (!source.watching([day])) source.watch([day], () => void (hinted += 1));
          if (hinted > 0 || ++polls % 10 === 0) {
            hinted = 0;
            await followOnce(source, store, path, statusFileParser);
          }
        } catch (err) {
          errors.push((err as Error).message);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const expected: string[] = [];
    try {
      for (let i = 0; i < 2000; i++) {
        expected.push(`k-${i}`);
        appendFileSync(path, `k-${i}\n`);
        if (i === 700) {
          sshd.kill();
          // The loop meets the dead link before sshd is back, however slow the machine.
          await until(() => errors.length > 0, 20_000, 'the follow loop to fail on the dead link');
        }
        if (i === 1300) await sshd.restart();
        if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5));
      }
      await until(() => host.connection.status.state === 'connected', 20_000, 'the reconnect');
      await until(() => followed().length >= expected.length, 30_000, 'all lines after the restart');
    } finally {
      running = false;
      await loop;
      source.unwatch();
      host.connection.close();
    }
    expect(followed()).toEqual(expected);
    expect(errors.length).toBeGreaterThan(0); // the link really dropped
    store.close();
  }, 90_000);
});
