import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../testing/sshd';
import { isolatedSshEnv, sshHostYaml } from '../../testing/ssh-fixture';
import { createSession, type Session } from './session/session';
import { holdsWithin, until } from '../../testing/until';

const DAY = '2026-11-29';
const NOW = () => new Date('2026-11-29T06:00:00Z');

function setup(hostYaml: string): { file: string; core: Session } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-wake-'));
  const runs = join(dir, 'runs');
  mkdirSync(join(runs, DAY), { recursive: true });
  const file = join(runs, DAY, 'audit.status');
  writeFileSync(file, 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
  writeFileSync(join(dir, 'c.yaml'), `hosts:\n  runner: ${hostYaml}\nloops:\n  l: { host: runner, runs: ${JSON.stringify(runs)} }\n`);
  // A poll interval of a minute: only the watch can make the change show within seconds.
  const core = createSession({ configPath: join(dir, 'c.yaml'), dataDir: join(dir, 'data'), shell: 'serve', pollMs: 60_000, now: NOW, ssh: isolatedSshEnv() });
  return { file, core };
}

/** Whether a `tail -F` of the watcher follows `file` (the SSH host is this machine). */
function tailFollows(file: string): boolean {
  const out = execFileSync('ps', ['-ww', '-eo', 'args='], { encoding: 'utf8' });
  return out.split('\n').some((l) => l.startsWith('tail -n0 -q -F -- ') && l.includes(file));
}

async function changeShowsWithoutTheTimer(core: Session, file: string, armed: () => boolean): Promise<void> {
  const status = () => core.snapshot().loops[0]?.cycles[0]?.phases[0]?.status;
  await until(() => status() === 'running', 15_000, 'the first poll');
  await until(armed, 15_000, 'the watch to be armed'); // after the first poll
  const seen = new Promise<number>((resolve) => {
    const off = core.subscribe((...[event]) => {
      if (event === 'loop.changed' && status() === 'ok') {
        off();
        resolve(Date.now());
      }
    });
  });
  const t0 = Date.now();
  appendFileSync(file, 'audit 2026-11-29T00:41:12+00:00 OK\n');
  const at = await Promise.race([seen, new Promise<number>((r) => setTimeout(() => r(Infinity), 10_000))]);
  expect(at - t0).toBeLessThan(10_000);
}

// One sshd for the file (the test that kills its sshd starts its own).
let sshd: TestSshd;
beforeAll(async () => {
  sshd = await startSshd();
}, 30_000);
afterAll(() => sshd?.stop());

describe('a change wakes a poll at once', () => {
  it.each([
    // fs.watch is armed in the same turn as the poll that shows the first status.
    ['a local host (fs.watch)', () => '{ local: true }', () => true],
    ['an SSH host (a watcher channel on the host)', () => sshHostYaml(sshd), tailFollows],
  ])('on %s', async (_, hostYaml, armed) => {
    const { file, core } = setup(hostYaml());
    await core.start();
    try {
      await changeShowsWithoutTheTimer(core, file, () => armed(file));
    } finally {
      await core.close();
    }
  }, 30_000);
});

describe('the SSH watcher on the host', () => {
  it('wakes on a file growing without waiting for its listing, and follows a file created after it started', async () => {
    const { Store } = await import('./store/store');
    const { SshSource } = await import('./sources/ssh-source');
    const { connectTestHost } = await import('../../testing/ssh-fixture');
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-watched-'));
    writeFileSync(join(dir, 'a.log'), 'one\n');
    const host = await connectTestHost(sshd, Store.open(':memory:'));
    // Listings 4 s apart: a wake-up within 2 s of an append comes from tail -F (or, at worst, a
    // listing that happened to fall then; on a busy machine a second was too tight for tail).
    const source = new SshSource('runner', host.connection, { watchStatMs: 4000 });
    const wakes: number[] = [];
    source.watch([dir], () => wakes.push(Date.now()));
    try {
      await until(() => wakes.length > 0 && tailFollows(join(dir, 'a.log')), 10_000, 'the first listing and a tail following a.log');
      const wokeWithin = async (change: () => void, ms: number): Promise<boolean> => {
        const t0 = Date.now();
        change();
        return holdsWithin(() => wakes.some((t) => t >= t0 && t - t0 < ms), ms);
      };
      expect(await wokeWithin(() => appendFileSync(join(dir, 'a.log'), 'two\n'), 2000)).toBe(true);
      // A new file is found by the next listing (within 4 s), which makes the tail follow it too.
      const before = wakes.length;
      writeFileSync(join(dir, 'b.log'), '');
      await until(() => wakes.length > before && tailFollows(join(dir, 'b.log')), 10_000, 'the listing to find b.log and a tail to follow it');
      expect(await wokeWithin(() => appendFileSync(join(dir, 'b.log'), 'three\n'), 2000)).toBe(true);
    } finally {
      source.unwatch();
      host.connection.close();
    }
  }, 40_000);

  it('ends by itself once the link is gone, leaving nothing running on the host (its tails neither)', async () => {
    const { Store } = await import('./store/store');
    const { SshSource } = await import('./sources/ssh-source');
    const { connectTestHost } = await import('../../testing/ssh-fixture');
    const own = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-watched-'));
    writeFileSync(join(dir, 'a.log'), '');
    const host = await connectTestHost(own, Store.open(':memory:'));
    const running = (pattern: string): number => {
      try {
        return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
      } catch {
        return 0;
      }
    };
    const source = new SshSource('runner', host.connection);
    source.watch([dir], () => undefined);
    await until(() => running(dir) > 0 && running(`^tail -n0 -q -F -- .*${dir}`) > 0, 10_000, 'the watcher and its tail on the host');
    own.kill(); // the link dies; sshd's own processes with it, the watcher's shell is orphaned
    await until(() => running(dir) === 0, 10_000, 'nothing of the watcher left on the host');
    host.connection.close();
    await own.stop();
  }, 40_000);
});
