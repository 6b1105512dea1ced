import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOPDECK_BIN } from '../testing/cli-run';
import { sshHostYaml } from '../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../testing/sshd';
import { until } from '../testing/until';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Start the CLI with a home of its own and no agent; `done` resolves when it exits. */
function start(home: string, args: readonly string[]): { out: Run; done: Promise<Run>; kill: (signal: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [LOOPDECK_BIN, ...args], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ ...out, code }));
  });
  return { out, done, kill: (signal) => child.kill(signal) };
}

const DAY = '2026-08-23';
const OLDER = '2026-08-22';

describe('loopdeck log over a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  let home: string;
  let runs: string;
  let flags: string[];

  beforeAll(async () => {
    sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-cli-log-'));
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    runs = join(dir, 'runs');
    mkdirSync(join(runs, DAY), { recursive: true });
    mkdirSync(join(runs, OLDER), { recursive: true });
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} \x1b[1;31mred\x1b[0m${i + 1 === 1234 ? ' Needle-1' : ''}${i + 1 === 2900 ? ' Needle-22' : ''}`);
    writeFileSync(join(runs, DAY, 'remediate.log'), `${lines.join('\n')}\n`);
    writeFileSync(join(runs, OLDER, 'audit.log'), 'older audit 1\nolder audit 2\n');
    writeFileSync(
      join(dir, 'config.yaml'),
      `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate, deliver]\n`,
    );
    flags = ['--config', join(dir, 'config.yaml'), '--data', join(dir, 'data')];
  }, 30_000);
  afterAll(() => sshd?.stop());

  const loopdeck = (...args: string[]): Promise<Run> => start(home, [...args, ...flags]).done;

  it('prints the last lines with escape sequences stripped, or raw', async () => {
    const r = await loopdeck('log', 'reliability', DAY, 'remediate', '--lines', '3');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('line 2998 red\nline 2999 red\nline 3000 red\n');
    const raw = await loopdeck('log', 'reliability', DAY, 'remediate', '--lines', '1', '--raw');
    expect(raw.stdout).toBe('line 3000 \x1b[1;31mred\x1b[0m\n');
  });

  it('prints a range from a line, and takes the newest cycle holding the phase when DATE is left out', async () => {
    const r = await loopdeck('log', 'reliability', 'remediate', '--from', '1500', '--lines', '2');
    expect(r.stdout).toBe('line 1500 red\nline 1501 red\n');
    const older = await loopdeck('log', 'reliability', 'audit');
    expect(older.stdout).toBe('older audit 1\nolder audit 2\n');
  });

  it('greps on the host, each hit with its line number', async () => {
    const r = await loopdeck('log', 'reliability', DAY, 'remediate', '--grep', 'Needle-[0-9]+$');
    expect(r.stdout).toBe('1234:line 1234 red Needle-1\n2900:line 2900 red Needle-22\n');
    expect(r.code).toBe(0);
  });

  it('exits non-zero naming the loop, phase and file when the transcript does not exist', async () => {
    const r = await loopdeck('log', 'reliability', DAY, 'deliver');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Loop reliability, cycle ${DAY}, phase deliver: no transcript at runner:${join(runs, DAY, 'deliver.log')}`);
    const phase = await loopdeck('log', 'reliability', DAY, 'lint');
    expect(phase.code).toBe(1);
    expect(phase.stderr).toMatch(/Loop reliability has no phase lint/);
  });

  it('follows new lines until SIGINT', async () => {
    const child = start(home, ['log', 'reliability', DAY, 'remediate', '--lines', '1', '--follow', ...flags]);
    await until(() => child.out.stdout.includes('line 3000 red\n'), 20_000, 'the last line');
    appendFileSync(join(runs, DAY, 'remediate.log'), 'line 3001 \x1b[32mnew\x1b[0m\nline 3002 new\n');
    await until(() => child.out.stdout.includes('line 3002 new\n'), 20_000, 'the appended lines');
    child.kill('SIGINT');
    const r = await child.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('line 3000 red\nline 3001 new\nline 3002 new\n');
  }, 60_000);
});
