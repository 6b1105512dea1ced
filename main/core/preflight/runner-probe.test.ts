import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeScript } from './host-probe';
import { originCheck } from './runner-checks';
import { parseRunner, type RunnerAsk } from './runner-probe';

// The runner part of the probe script, run for real by /bin/sh on this machine with a PATH that
// has no `timeout` (as on a Mac): the script's own watchdog holds the bound on git ls-remote.

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), 'ld-runner-probe-'));
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A folder of links to the tools the script uses, without `timeout`. */
function pathWithoutTimeout(): string {
  const bin = join(root, 'bin');
  mkdirSync(bin);
  for (const tool of ['sh', 'git', 'sed', 'grep', 'head', 'mktemp', 'cat', 'rm', 'sleep', 'df', 'id']) {
    symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
  }
  return bin;
}

/** Run the probe script for `asks` (no folders) under /bin/sh with PATH `bin`; its answers and how long it took. */
async function probe(asks: readonly RunnerAsk[], boundS: number, bin: string) {
  const started = Date.now();
  const { stdout } = await run('/bin/sh', ['-c', probeScript([], asks, boundS)], { env: { PATH: bin, HOME: root } });
  return { answers: parseRunner(stdout, asks), took: Date.now() - started };
}

describe('the runner probe on a host without timeout', () => {
  let bin: string;
  let hole: ReturnType<typeof createServer>;
  const held: Socket[] = [];

  beforeAll(async () => {
    bin = pathWithoutTimeout();
    hole = createServer((s) => held.push(s));
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    for (const s of held) s.destroy();
    hole.close();
  });

  const clone = (name: string, origin?: string): string => {
    const dir = join(root, name);
    git(root, 'init', '-q', '--bare', `${name}.git`);
    git(root, 'clone', '-q', `${name}.git`, name);
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init');
    git(dir, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    if (origin) git(dir, 'remote', 'set-url', 'origin', origin);
    return dir;
  };

  it('cuts a blackholed origin at the bound with its own watchdog, and says so', async () => {
    const url = `git://127.0.0.1:${(hole.address() as AddressInfo).port}/radon.git`;
    const dir = clone('hole', url);
    const { answers, took } = await probe([{ dir }], 1, bin);
    expect(answers[0]?.origin).toMatchObject({ url, via: 'watchdog', rc: 124 });
    expect(held.length).toBeGreaterThan(0);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(10_000);
    expect(originCheck('runner', dir, answers[0]?.origin ?? null, 1).detail).toBe(
      `origin ${url} did not answer within 1 s (the bound was hit: runner has no timeout: the check's own watchdog), from clone ${dir}: tonight's pushes and PR will fail`,
    );
  }, 30_000);

  it('returns as soon as an answering origin answers, not after the bound; a scheduler tool not on PATH is said', async () => {
    const dir = clone('fine');
    const { answers, took } = await probe([{ dir, scheduler: { systemd: 'reliability.timer' } }, { scheduler: { cron: 'nightly' } }], 20, bin);
    expect(answers[0]?.origin).toMatchObject({ url: join(root, 'fine.git'), via: 'watchdog', rc: 0, error: null });
    expect(took).toBeLessThan(10_000);
    expect(answers.map((a) => a.scheduler)).toEqual([
      { kind: 'no-tool', tool: 'systemctl' },
      { kind: 'no-tool', tool: 'crontab' },
    ]);
  }, 30_000);
});
