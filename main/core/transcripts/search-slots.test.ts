import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../shared/roles';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { createSession, type Session } from '../session/session';
import { SEARCHES_PER_HOST, SearchCancelledError } from './search-slots';

const DAY = '2026-08-23';

/**
 * A regex glibc can only answer by backtracking (back-references), on a line it cannot match (an
 * odd number of `a`s): grep stays busy without writing a byte, so nothing but its time limit or
 * the cancel ends it. `tag` makes each search's grep findable on the host.
 */
const slow = (tag: string): string => `^(a*)(a*)(a*)\\3\\2\\1b$|${tag}`;

/** The pids of the greps on this machine (the sshd's host) whose command line holds `tag`. */
function greps(tag: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `^grep .*${tag}`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** How a search settled: its answer, or the error it was refused or cancelled with. */
const settled = <T>(p: Promise<T>): Promise<T | Error> => p.catch((err: unknown) => err as Error);

describe('transcript searches, one a user and a few a host, over a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  let session: Session;

  beforeAll(async () => {
    sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-search-slots-'));
    const runs = join(dir, 'runs');
    mkdirSync(join(runs, DAY), { recursive: true });
    writeFileSync(join(runs, DAY, 'remediate.log'), `step 1\n${'a'.repeat(161)}b\nquick needle\nstep 4\n`);
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate, deliver]\n`);
    session = createSession({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 100, ssh: isolatedSshEnv() });
    await session.start();
    await until(() => session.snapshot().hosts[0]?.state === 'connected', 10_000, 'the runner connected');
  }, 30_000);

  afterAll(async () => {
    await session?.close();
    await sshd?.stop();
  });

  const caller = (user: string): Caller => ({ user, role: 'viewer', via: 'oidc' });
  const search = async (user: string, query: string) =>
    session.handlers['transcript.search']({ loop: 'reliability', date: DAY, phase: 'remediate', query, regex: true, ignoreCase: false, maxHits: 1000 }, caller(user));

  it('cancels a user\'s running search when the same user starts another, and ends its grep on the host', async () => {
    const first = settled(search('ann', slow('slow-ann-1')));
    await until(() => greps('slow-ann-1').length === 1, 10_000, "ann's first grep running on the host");
    // Another window of the same signed-in user: the same user.
    const second = await search('ann', 'quick needle');
    expect(second.hits).toEqual([{ n: 3, text: 'quick needle' }]);
    const old = await first;
    expect(old).toBeInstanceOf(SearchCancelledError);
    expect((old as Error).message).toMatch(/^The search of .*remediate\.log on host runner was cancelled: ann started another search\.$/);
    await until(() => greps('slow-ann-1').length === 0, 5_000, "ann's cancelled grep to end on the host");
  }, 30_000);

  it(`refuses a search past ${SEARCHES_PER_HOST} on a host, naming it, and takes it once one has ended`, async () => {
    expect(SEARCHES_PER_HOST).toBe(2);
    const ann = settled(search('ann', slow('slow-ann-2')));
    const bob = settled(search('bob', slow('slow-bob')));
    await until(() => greps('slow-ann-2').length === 1 && greps('slow-bob').length === 1, 10_000, "ann's and bob's greps running on the host");
    await expect(search('cat', 'quick needle')).rejects.toThrow(
      'Host runner is already running 2 transcript searches, the most at once; try again in a few seconds, once one has ended.',
    );
    // Bob's grep ends (as at its time limit): his search answers, and the host has room again.
    for (const pid of greps('slow-bob')) process.kill(pid);
    expect(await bob).toMatchObject({ hits: [], timedOut: true });
    expect((await search('cat', 'quick needle')).hits).toHaveLength(1);
    // Ann moves on: her slow search ends too, and nothing is left on the host.
    await search('ann', 'quick needle');
    expect(await ann).toBeInstanceOf(SearchCancelledError);
    await until(() => greps('slow-').length === 0, 5_000, 'no search left running on the host');
  }, 30_000);
});
