import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startSshd, type TestSshd } from '../../../testing/sshd';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { until } from '../../../testing/until';
import type { ExecResult } from '../ssh/connection-types';
import type { SshHost } from '../ssh/ssh-host';
import { LocalShell, type HostShell } from '../hosts/host-shell';
import { Store } from '../store/store';
import { AnchorCheck, parseAnchorAnswer, PROBLEM_RETRY_MS, UNRESOLVED_RETRY_MS, type AnchorMark } from './anchor-check';

// The SHA half of the `anchor` rule against real clones: git repositories made here, asked through
// a real shell on this machine (a `local: true` host), through the OpenSSH client, and through a
// real sshd over Loopdeck's own SSH connection.

const root = mkdtempSync(join(tmpdir(), 'ld-anchor-'));
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A clone of a fresh origin with one commit; the origin gets a second commit the clone has not fetched. */
function cloneWithUnfetched(name: string): { dir: string; head: string; unfetched: string } {
  const origin = join(root, `${name}-origin`);
  git(root, 'init', '-q', origin);
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'audited');
  const dir = join(root, name);
  git(root, 'clone', '-q', origin, dir);
  git(origin, 'commit', '-q', '--allow-empty', '-m', 'later');
  return { dir, head: git(dir, 'rev-parse', 'HEAD'), unfetched: git(origin, 'rev-parse', 'HEAD') };
}

/** A host's shell that counts what it was asked. */
function counted(shell: HostShell): HostShell & { asked: number } {
  const c = {
    asked: 0,
    exec: (script: string, timeoutMs?: number, signal?: AbortSignal): Promise<ExecResult> => {
      c.asked++;
      return shell.exec(script, timeoutMs, signal);
    },
  };
  return c;
}

/** `/bin/sh -c` with its own environment: a host whose PATH is `bin`. */
function shellWithPath(bin: string): HostShell {
  return {
    exec: (script) =>
      new Promise((resolve) => {
        execFile('/bin/sh', ['-c', script], { env: { PATH: bin, HOME: root }, encoding: 'buffer' }, (err, stdout, stderr) => {
          const code = err && typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : err ? 1 : 0;
          resolve({ code, stdout, stderr: stderr.toString('utf8') });
        });
      }),
  };
}

/** A host reached with the OpenSSH client (`ssh host script`), which exits 255 when it cannot connect. */
function opensshShell(port: number): HostShell {
  return {
    exec: (script) =>
      new Promise((resolve) => {
        const args = ['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', '-p', String(port), '127.0.0.1', script];
        execFile('ssh', args, { encoding: 'buffer' }, (err, stdout, stderr) => {
          const code = err && typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : err ? 1 : 0;
          resolve({ code, stdout, stderr: stderr.toString('utf8') });
        });
      }),
  };
}

const AUDIT = '/srv/radon/RELIABILITY_AUDIT.md';
const T0 = new Date('2026-08-25T06:00:00Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const marks = (...m: [sha: string, date: string, line: number][]): AnchorMark[] => m.map(([sha, date, line]) => ({ sha, date, line }));
const config = (dir: string | undefined) => ({ host: 'runner', ...(dir === undefined ? {} : { dir }) });

describe('the anchor SHA check on a local host', () => {
  let clone: ReturnType<typeof cloneWithUnfetched>;
  beforeAll(() => {
    clone = cloneWithUnfetched('radon');
  });

  it("shows no breach for a real commit's SHA, full or abbreviated, and keeps the same (empty) array", async () => {
    const check = new AnchorCheck();
    const shell = counted(new LocalShell());
    expect(await check.check('radon', config(clone.dir), marks([clone.head, '2026-08-24', 12]), AUDIT, shell, T0)).toBe(false);
    const before = check.breaches('radon');
    expect(before).toEqual([]);
    expect(check.problem('radon')).toBeNull();
    expect(await check.check('radon', config(clone.dir), marks([clone.head.slice(0, 7), '2026-08-24', 12]), AUDIT, shell, T0)).toBe(false);
    expect(check.breaches('radon')).toBe(before);
    expect(shell.asked).toBe(2);
  });

  it('is a breach for a SHA the clone cannot resolve: its id, date, line and git\'s own words', async () => {
    const check = new AnchorCheck();
    const sha = 'deadbeefcafe1234';
    expect(await check.check('radon', config(clone.dir), marks([clone.head, '2026-08-23', 9], [sha, '2026-08-24', 31]), AUDIT, new LocalShell(), T0)).toBe(true);
    expect(check.breaches('radon')).toEqual([
      {
        kind: 'anchor',
        loop: 'radon',
        date: '2026-08-24',
        phase: null,
        id: sha,
        detail: `The anchor "Audited through: ${sha} on 2026-08-24" names ${sha}, which the clone at ${clone.dir} cannot resolve (git cat-file: fatal: Not a valid object name ${sha}^{commit})`,
        since: '2026-08-24',
        evidence: { file: AUDIT, line: 31, url: null },
      },
    ]);
    expect(check.problem('radon')).toBeNull();
  });

  it('checks only the latest anchor line: the newest date, of one date the last line', async () => {
    const check = new AnchorCheck();
    const shell = counted(new LocalShell());
    await check.check('radon', config(clone.dir), marks(['0000000', '2026-08-24', 40], [clone.head, '2026-08-24', 44], ['1111111', '2026-08-20', 50]), AUDIT, shell, T0);
    expect(check.breaches('radon')).toEqual([]);
    expect(shell.asked).toBe(1);
    await check.check('radon', config(clone.dir), marks([clone.head, '2026-08-24', 44], ['0000000', '2026-08-24', 46]), AUDIT, shell, T0);
    expect(check.breaches('radon').map((b) => [b.id, b.evidence.line])).toEqual([['0000000', 46]]);
  });

  it('asks the host once per loop and SHA: repeated and concurrent checks reuse the answer, a resolved SHA is never asked again', async () => {
    const check = new AnchorCheck();
    const shell = counted(new LocalShell());
    const bad = marks(['abcdef0123456', '2026-08-24', 7]);
    const first = await Promise.all([1, 2, 3].map(() => check.check('radon', config(clone.dir), bad, AUDIT, shell, T0)));
    expect(first.filter(Boolean)).toHaveLength(1);
    const list = check.breaches('radon');
    expect(list).toHaveLength(1);
    for (const m of [1, 5, 9]) expect(await check.check('radon', config(clone.dir), bad, AUDIT, shell, at(m * 60_000))).toBe(false);
    expect(check.breaches('radon')).toBe(list);
    expect(shell.asked).toBe(1);

    const good = marks([clone.head, '2026-08-25', 8]);
    expect(await check.check('radon', config(clone.dir), good, AUDIT, shell, T0)).toBe(true);
    for (const h of [1, 24, 24 * 30]) await check.check('radon', config(clone.dir), good, AUDIT, shell, at(h * 3_600_000));
    expect(shell.asked).toBe(2);
    // Another loop with the same clone asks for itself.
    await check.check('other', config(clone.dir), good, AUDIT, shell, T0);
    expect(shell.asked).toBe(3);
  });

  it('asks again about an unresolved SHA after 10 minutes, not before, so a fetch that brought it clears the breach', async () => {
    const fresh = cloneWithUnfetched('fetched');
    const check = new AnchorCheck();
    const shell = counted(new LocalShell());
    const anchor = marks([fresh.unfetched, '2026-08-25', 3]);
    expect(await check.check('radon', config(fresh.dir), anchor, AUDIT, shell, T0)).toBe(true);
    expect(check.breaches('radon').map((b) => b.id)).toEqual([fresh.unfetched]);
    git(fresh.dir, 'fetch', '-q', 'origin');
    expect(await check.check('radon', config(fresh.dir), anchor, AUDIT, shell, at(UNRESOLVED_RETRY_MS - 1))).toBe(false);
    expect(check.breaches('radon')).toHaveLength(1);
    expect(shell.asked).toBe(1);
    expect(await check.check('radon', config(fresh.dir), anchor, AUDIT, shell, at(UNRESOLVED_RETRY_MS))).toBe(true);
    expect(check.breaches('radon')).toEqual([]);
    expect(shell.asked).toBe(2);
  });

  it('is a breach without asking the host for a SHA that is not 7 to 40 hex digits', async () => {
    const check = new AnchorCheck();
    const shell = counted(new LocalShell());
    for (const sha of ['HEAD~1', 'abc12', 'g1234567', `${'a'.repeat(41)}`, '$(touch x)']) {
      expect(await check.check('radon', config(clone.dir), marks([sha, '2026-08-24', 5]), AUDIT, shell, T0)).toBe(true);
      expect(check.breaches('radon')).toEqual([
        expect.objectContaining({ kind: 'anchor', id: sha, date: '2026-08-24', detail: `The anchor "Audited through: ${sha} on 2026-08-24" names ${sha}, which is not a commit SHA (7 to 40 hex digits)` }),
      ]);
    }
    // Without even a clone or a shell.
    expect(await check.check('bare', config(undefined), marks(['HEAD', '2026-08-24', 5]), AUDIT, null, T0)).toBe(true);
    expect(shell.asked).toBe(0);
  });

  it('claims nothing when git is not on the host, and says so', async () => {
    const bin = join(root, 'bin-without-git');
    mkdirSync(bin);
    symlinkSync(execFileSync('sh', ['-c', 'command -v sh'], { encoding: 'utf8' }).trim(), join(bin, 'sh'));
    const check = new AnchorCheck();
    const shell = counted(shellWithPath(bin));
    const anchor = marks(['deadbeef', '2026-08-24', 5]);
    expect(await check.check('radon', config(clone.dir), anchor, AUDIT, shell, T0)).toBe(false);
    expect(check.breaches('radon')).toEqual([]);
    expect(check.problem('radon')).toBe(`the clone at ${clone.dir} on runner: git is not installed (not on the PATH of the host's shell)`);
    // Tried again after a minute, not on every check before that.
    await check.check('radon', config(clone.dir), anchor, AUDIT, shell, at(PROBLEM_RETRY_MS - 1));
    expect(shell.asked).toBe(1);
    await check.check('radon', config(clone.dir), anchor, AUDIT, shell, at(PROBLEM_RETRY_MS));
    expect(shell.asked).toBe(2);
    expect(check.breaches('radon')).toEqual([]);
    // The same problem again: then after 2, 4 and 8 minutes, and every 10 minutes from there.
    const asks: number[] = [];
    let t = PROBLEM_RETRY_MS;
    for (let minute = 2; minute <= 45; minute++) {
      const now = PROBLEM_RETRY_MS + minute * 60_000;
      const before = shell.asked;
      await check.check('radon', config(clone.dir), anchor, AUDIT, shell, at(now));
      if (shell.asked > before) {
        asks.push((now - t) / 60_000);
        t = now;
      }
    }
    expect(asks).toEqual([2, 4, 8, 10, 10, 10]);
    expect(check.problem('radon')).toMatch(/git is not installed/);
  });

  it('finds a clone that comes later at its next retry, two minutes after the second problem', async () => {
    const check = new AnchorCheck();
    const anchor = marks([clone.head, '2026-08-24', 5]);
    const missing = join(root, 'clone-that-comes-late');
    const shell = counted(new LocalShell());
    await check.check('radon', config(missing), anchor, AUDIT, shell, T0);
    await check.check('radon', config(missing), anchor, AUDIT, shell, at(PROBLEM_RETRY_MS));
    expect(shell.asked).toBe(2);
    // The clone appears: found at the next retry (two minutes on), and no problem then.
    git(root, 'clone', '-q', clone.dir, missing);
    await check.check('radon', config(missing), anchor, AUDIT, shell, at(3 * PROBLEM_RETRY_MS - 1));
    expect(shell.asked).toBe(2);
    await check.check('radon', config(missing), anchor, AUDIT, shell, at(3 * PROBLEM_RETRY_MS));
    expect(shell.asked).toBe(3);
    expect(check.problem('radon')).toBeNull();
  });

  it('claims nothing when the clone is missing, there is no clone configured or no shell for the host', async () => {
    const check = new AnchorCheck();
    const anchor = marks(['deadbeef', '2026-08-24', 5]);
    const missing = join(root, 'no-such-clone');
    await check.check('radon', config(missing), anchor, AUDIT, new LocalShell(), T0);
    expect(check.breaches('radon')).toEqual([]);
    expect(check.problem('radon')).toBe(`the clone at ${missing} on runner: not a git clone (fatal: cannot change to '${missing}': No such file or directory)`);
    await check.check('radon', config(undefined), anchor, AUDIT, new LocalShell(), T0);
    expect(check.problem('radon')).toBe(`loops.radon.dir is not set: the SHA of the anchor on line 5 of ${AUDIT} cannot be checked against a clone`);
    await check.check('radon', config(clone.dir), anchor, AUDIT, null, T0);
    expect(check.problem('radon')).toBe(`host runner (loops.radon.host) has no shell: the SHA deadbeef was not checked against the clone at ${clone.dir}`);
    expect(check.breaches('radon')).toEqual([]);
  });

  it('claims nothing when the runner cannot be reached (ssh exits 255), and says why', async () => {
    const port = await freePort();
    const check = new AnchorCheck();
    expect(await check.check('radon', config(clone.dir), marks(['deadbeef', '2026-08-24', 5]), AUDIT, opensshShell(port), T0)).toBe(false);
    expect(check.breaches('radon')).toEqual([]);
    expect(check.problem('radon')).toMatch(new RegExp(`^the clone at .* on runner: the anchor check exited 255: ssh: connect to host 127\\.0\\.0\\.1 port ${port}: Connection refused$`));
  });
});

describe("the anchor check's answer", () => {
  const where = 'the clone at /srv/radon on runner';
  const answer = (code: number | null, stdout: string, stderr = '') => parseAnchorAnswer({ code, stdout, stderr }, where, 0);

  it('takes only git saying the name does not resolve (exit 128 or 1) as unresolved; a killed git or a silent host is a problem', () => {
    expect(answer(0, 'A rc 128\nfatal: Not a valid object name abc1234^{commit}\n')).toMatchObject({ kind: 'unresolved', why: 'fatal: Not a valid object name abc1234^{commit}' });
    expect(answer(0, 'A rc 1\n')).toMatchObject({ kind: 'unresolved', why: 'exit 1' });
    expect(answer(0, 'A rc 0\n')).toEqual({ kind: 'resolved' });
    expect(answer(0, 'A rc 143\nTerminated\n')).toMatchObject({ kind: 'problem', problem: `${where}: git cat-file exited 143: Terminated` });
    expect(answer(0, '')).toMatchObject({ kind: 'problem', problem: `${where}: the anchor check said nothing` });
    expect(answer(null, '', 'killed\n')).toMatchObject({ kind: 'problem', problem: `${where}: the anchor check ended without an exit code: killed` });
  });
});

describe('the anchor SHA check over SSH', () => {
  let sshd: TestSshd;
  let host: SshHost;
  let clone: ReturnType<typeof cloneWithUnfetched>;
  beforeAll(async () => {
    clone = cloneWithUnfetched('over-ssh');
    sshd = await startSshd();
    host = await connectTestHost(sshd, Store.open(':memory:'));
  }, 30_000);
  afterAll(async () => {
    host?.connection.close();
    await sshd?.stop();
  });

  it('asks the runner through its SSH connection; a host gone down later keeps what it said and names the problem', async () => {
    const check = new AnchorCheck();
    const shell = counted(host.connection);
    expect(await check.check('radon', config(clone.dir), marks([clone.head, '2026-08-24', 5]), AUDIT, shell, T0)).toBe(false);
    expect(await check.check('radon', config(clone.dir), marks([clone.unfetched, '2026-08-25', 9]), AUDIT, shell, T0)).toBe(true);
    const list = check.breaches('radon');
    expect(list.map((b) => [b.id, b.evidence.line])).toEqual([[clone.unfetched, 9]]);
    expect(check.problem('radon')).toBeNull();

    sshd.kill();
    await until(() => host.connection.status.state !== 'connected', 10_000, 'the connection to notice sshd is gone');
    expect(await check.check('radon', config(clone.dir), marks([clone.unfetched, '2026-08-25', 9]), AUDIT, shell, at(UNRESOLVED_RETRY_MS))).toBe(false);
    expect(check.breaches('radon')).toBe(list);
    expect(check.problem('radon')).toMatch(/^the clone at .* on runner: could not ask the host: /);
    // A SHA it never answered about is not claimed while it is down.
    expect(await check.check('radon', config(clone.dir), marks(['0123456789ab', '2026-08-26', 11]), AUDIT, shell, at(UNRESOLVED_RETRY_MS))).toBe(true);
    expect(check.breaches('radon')).toEqual([]);
    expect(shell.asked).toBe(4);
  }, 30_000);
});
