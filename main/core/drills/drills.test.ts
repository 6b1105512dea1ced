import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DrillRun } from '../../../shared/domain';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { createSession, type Session } from '../session/session';
import { until } from '../../../testing/until';
import { TEST_CALLER } from '../../../testing/callers';
import { LOOPDECK_BIN } from '../../../testing/cli-run';

interface Setup {
  readonly dir: string;
  readonly work: string;
  readonly configPath: string;
  readonly dataDir: string;
  readonly runs: string;
}

function setup(sshd: TestSshd): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-drills-'));
  const work = join(dir, 'work');
  const runs = join(dir, 'runs');
  mkdirSync(work);
  mkdirSync(runs);
  const configPath = join(dir, 'config.yaml');
  const q = JSON.stringify;
  writeFileSync(
    configPath,
    [
      'hosts:',
      `  runner: ${sshHostYaml(sshd)}`,
      'loops:',
      `  reliability: { host: runner, runs: ${q(runs)} }`,
      'drills:',
      `  echo: { host: runner, cwd: ${q(work)}, timeout: 30s, command: ${q('echo "start $LOOPDECK_ARG_MODE"; sleep 1; echo "end in $(pwd)"; exit 3')}, args: { mode: [fast, "a; touch PWNED", "$(touch PWNED2)"] } }`,
      // Runs until the test creates \`release\`: a second run is asked while it surely runs, however slow the machine.
      `  hold: { host: runner, cwd: ${q(work)}, timeout: 60s, command: ${q('while [ ! -e release ]; do sleep 0.05; done; echo released')} }`,
      `  sleeper: { host: runner, cwd: ${q(work)}, timeout: 2s, command: ${q('sleep 60 & echo $! > child.pid; echo started; sleep 60')} }`,
      `  slow: { host: runner, cwd: ${q(work)}, timeout: 60s, command: ${q('echo one; sleep 3; echo two; exit 0')} }`,
      // Its second line waits for the test to create \`go\`: "live" does not depend on timing.
      `  live: { host: runner, cwd: ${q(work)}, timeout: 60s, command: ${q('echo "start $LOOPDECK_ARG_MODE"; while [ ! -e go ]; do sleep 0.05; done; echo "end in $(pwd)"; exit 3')}, args: { mode: [fast] } }`,
      '',
    ].join('\n'),
  );
  return { dir, work, configPath, dataDir: join(dir, 'data'), runs };
}

function core(s: Setup): Session {
  return createSession({ configPath: s.configPath, dataDir: s.dataDir, shell: 'serve', pollMs: 100, ssh: isolatedSshEnv() });
}

const runOf = (c: Session, id: string): DrillRun | undefined => c.snapshot().drillRuns.find((r) => r.id === id);
const failure = (p: Promise<unknown> | unknown): Promise<string> =>
  Promise.resolve()
    .then(() => p)
    .then(
      () => 'accepted',
      (e: Error) => e.message,
    );

/**
 * Run the `live` drill: its first line must arrive while it runs (it waits for `go`, created only
 * once that line was seen), then the rest, the rc and the audit trail.
 */
async function streamsLive(c: Session, s: Setup): Promise<void> {
  const seen: { text: string; status: string | undefined }[] = [];
  const off = c.subscribe((...[event, payload]) => {
    if (event !== 'drill.output') return;
    seen.push({ text: payload.text, status: runOf(c, payload.runId)?.status });
  });
  rmSync(join(s.work, 'go'), { force: true });
  const { runId } = await c.handlers['drills.run']({ name: 'live', args: { mode: 'fast' }, confirm: 'live', overrideRunningPhase: false }, TEST_CALLER);
  const started = Date.now();
  await until(() => seen.length > 0, 20_000, 'the first line of output');
  const go = Date.now();
  writeFileSync(join(s.work, 'go'), '');
  await until(() => runOf(c, runId)?.status !== 'running', 20_000, 'the drill to finish');
  off();
  const run = runOf(c, runId);
  expect(run).toMatchObject({ drill: 'live', host: 'runner', args: { mode: 'fast' }, rc: 3, status: 'failed', override: false });
  expect(run?.user).toBe(TEST_CALLER.user);
  expect(run?.durationMs).toBeGreaterThanOrEqual(go - started);
  expect(run?.logPath).toMatch(/\.loopdeck\/drills\/.+\/out\.log$/);
  // The first line arrived while the drill was still running: live, not at the end.
  expect(seen[0]).toEqual({ text: 'start fast\n', status: 'running' });
  expect(seen.map((x) => x.text).join('')).toBe(`start fast\nend in ${s.work}\n`);
  expect(await c.handlers['drills.output']({ runId, from: 0 }, TEST_CALLER)).toEqual({ text: `start fast\nend in ${s.work}\n`, next: 11 + 8 + s.work.length });
}

describe('drills over a real sshd', () => {
  let sshd: TestSshd;
  let s: Setup;
  let c: Session;
  beforeAll(async () => {
    sshd = await startSshd();
    s = setup(sshd);
    c = core(s);
    await c.start();
    await until(() => c.snapshot().hosts[0]?.state === 'connected', 10_000, 'connected');
  }, 30_000);
  afterAll(async () => {
    await c?.close();
    await sshd?.stop();
  });

  it('runs a declared drill detached, streams its output live, and records rc and the audit trail', async () => {
    await streamsLive(c, s);
  }, 30_000);

  it.each([
    ['an undeclared drill', { name: 'rm -rf /', args: {}, confirm: 'rm -rf /' }, /No drill named "rm -rf \/"/],
    ['a drill name with shell metacharacters', { name: 'echo; touch PWNED3', args: {}, confirm: 'echo; touch PWNED3' }, /No drill named/],
    ['a confirmation that does not repeat the name', { name: 'echo', args: {}, confirm: 'yes' }, /Type the drill's name \(echo\)/],
    ['a value outside the allowed ones', { name: 'echo', args: { mode: '$(touch PWNED4)x' }, confirm: 'echo' }, /not an allowed value of mode \(allowed: fast/],
    ['an undeclared argument', { name: 'echo', args: { path: '/etc/passwd' }, confirm: 'echo' }, /has no argument "path"/],
    ['a prototype key as drill name', { name: '__proto__', args: {}, confirm: '__proto__' }, /No drill named "__proto__"/],
  ])('refuses %s', async (_what, input, message) => {
    expect(await failure(c.handlers['drills.run']({ overrideRunningPhase: false, ...input }, TEST_CALLER))).toMatch(message);
  });

  it('passes allowed values with shell metacharacters as data, never as code', async () => {
    for (const mode of ['a; touch PWNED', '$(touch PWNED2)']) {
      const { runId } = await c.handlers['drills.run']({ name: 'echo', args: { mode }, confirm: 'echo', overrideRunningPhase: false }, TEST_CALLER);
      await until(() => runOf(c, runId)?.status !== 'running', 20_000, 'the drill');
      expect((await c.handlers['drills.output']({ runId, from: 0 }, TEST_CALLER)).text).toContain(`start ${mode}\n`);
    }
    for (const f of ['PWNED', 'PWNED2', 'PWNED3', 'PWNED4']) expect(existsSync(join(s.work, f))).toBe(false);
  }, 40_000);

  it('refuses a second run of the same drill while one runs, and times out by killing the process group', async () => {
    rmSync(join(s.work, 'release'), { force: true });
    const held = await c.handlers['drills.run']({ name: 'hold', args: {}, confirm: 'hold', overrideRunningPhase: false }, TEST_CALLER);
    expect(await failure(c.handlers['drills.run']({ name: 'hold', args: {}, confirm: 'hold', overrideRunningPhase: false }, TEST_CALLER))).toMatch(/already running on runner/);
    writeFileSync(join(s.work, 'release'), '');
    await until(() => runOf(c, held.runId)?.status !== 'running', 30_000, 'the held drill to end');
    expect(runOf(c, held.runId)).toMatchObject({ status: 'ok', rc: 0 });
    const { runId } = await c.handlers['drills.run']({ name: 'sleeper', args: {}, confirm: 'sleeper', overrideRunningPhase: false }, TEST_CALLER);
    await until(() => runOf(c, runId)?.status !== 'running', 30_000, 'the timeout');
    expect(runOf(c, runId)).toMatchObject({ status: 'timeout', rc: 143 });
    const child = Number(readFileSync(join(s.work, 'child.pid'), 'utf8'));
    // The backgrounded child died with its group (a zombie awaiting its reaper counts as dead).
    const state = existsSync(`/proc/${child}/stat`) ? readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.[0] : 'gone';
    expect(['gone', 'Z', 'X']).toContain(state);
    // The lock was released with the run.
    const again = await c.handlers['drills.run']({ name: 'sleeper', args: {}, confirm: 'sleeper', overrideRunningPhase: false }, TEST_CALLER);
    await until(() => runOf(c, again.runId)?.status !== 'running', 30_000, 'the second timeout');
    expect(runOf(c, again.runId)?.status).toBe('timeout');
    // A cancel ends a run that would otherwise wait (for \`release\`) a minute.
    rmSync(join(s.work, 'release'), { force: true });
    const cancelled = await c.handlers['drills.run']({ name: 'hold', args: {}, confirm: 'hold', overrideRunningPhase: false }, TEST_CALLER);
    await c.handlers['drills.cancel']({ runId: cancelled.runId }, TEST_CALLER);
    await until(() => runOf(c, cancelled.runId)?.status !== 'running', 30_000, 'the cancel');
    expect(runOf(c, cancelled.runId)?.status).toBe('cancelled');
  }, 60_000);

  it('refuses while a loop phase on the host is running, unless overridden, and records the override', async () => {
    const date = new Date().toISOString().slice(0, 10);
    mkdirSync(join(s.runs, date), { recursive: true });
    writeFileSync(join(s.runs, date, 'remediate.status'), `remediate ${new Date().toISOString().replace(/\.\d+Z$/, '+00:00')} STARTED\n`);
    await c.pollOnce();
    expect(await failure(c.handlers['drills.run']({ name: 'slow', args: {}, confirm: 'slow', overrideRunningPhase: false }, TEST_CALLER))).toMatch(
      new RegExp(`Host runner is running a loop phase \\(reliability ${date} remediate\\)`),
    );
    const { runId } = await c.handlers['drills.run']({ name: 'slow', args: {}, confirm: 'slow', overrideRunningPhase: true }, TEST_CALLER);
    expect(runOf(c, runId)?.override).toBe(true);
    // The link dies mid-drill; the drill goes on on the host and its result still arrives.
    sshd.kill();
    await until(() => c.snapshot().hosts[0]?.state !== 'connected', 10_000, 'the link seen gone');
    await sshd.restart();
    await until(() => runOf(c, runId)?.status !== 'running', 30_000, 'the result after the reconnect');
    expect(runOf(c, runId)).toMatchObject({ status: 'ok', rc: 0 });
    expect((await c.handlers['drills.output']({ runId, from: 0 }, TEST_CALLER)).text).toBe('one\ntwo\n');
  }, 60_000);

  it('runs from the CLI: output as it arrives, then one JSON record, exiting with the drill\'s rc', async () => {
    const bin = LOOPDECK_BIN;
    const home = mkdtempSync(join(tmpdir(), 'loopdeck-home-'));
    const env = { ...process.env, HOME: home, SSH_AUTH_SOCK: '' };
    const args = ['--config', s.configPath, '--data', join(s.dir, 'cli-data')];
    const list = await promisify(execFile)(process.execPath, [bin, 'drill', 'list', ...args], { env });
    expect(list.stdout).toMatch(/^echo {2}on runner {2}timeout 30s {2}mode=fast\|a; touch PWNED\|\$\(touch PWNED2\)$/m);
    const r = await promisify(execFile)(process.execPath, [bin, 'drill', 'run', 'echo', '--arg', 'mode=fast', '--yes', '--override', '--json', ...args], { env, timeout: 60_000 }).then(
      (ok) => ({ code: 0, ...ok }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(r.code, r.stderr).toBe(3);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual(['start fast', `end in ${s.work}`]);
    expect(JSON.parse(lines[2] ?? '')).toMatchObject({ drill: 'echo', status: 'failed', rc: 3, args: { mode: 'fast' } });
    const refused = await promisify(execFile)(process.execPath, [bin, 'drill', 'run', 'echo', '--arg', 'mode=slow', '--yes', ...args], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"slow" is not an allowed value of mode/);
  }, 60_000);

  it('shows the result of a drill that finished while Loopdeck was closed', async () => {
    const other = core(s);
    await other.start();
    await until(() => other.snapshot().hosts[0]?.state === 'connected', 10_000, 'connected');
    const { runId } = await other.handlers['drills.run']({ name: 'slow', args: {}, confirm: 'slow', overrideRunningPhase: true }, TEST_CALLER);
    const logPath = runOf(other, runId)?.logPath ?? '';
    await other.close();
    // The drill finishes while no Loopdeck runs (the host is this machine: its rc file says so).
    await until(() => existsSync(join(dirname(logPath), 'rc')) && readFileSync(join(dirname(logPath), 'rc'), 'utf8').includes('DONE'), 20_000, 'the drill to finish on the host');
    const reopened = core(s);
    await reopened.start();
    try {
      await until(() => runOf(reopened, runId)?.status === 'ok', 20_000, 'the result after restart');
      expect(runOf(reopened, runId)?.rc).toBe(0);
    } finally {
      await reopened.close();
    }
  }, 60_000);
});

describe('drills over a host whose login shell takes 0.5 s', () => {
  let sshd: TestSshd;
  let s: Setup;
  let c: Session;
  beforeAll(async () => {
    sshd = await startSshd({ loginDelayMs: 500 });
    s = setup(sshd);
    c = core(s);
    await c.start();
    await until(() => c.snapshot().hosts[0]?.state === 'connected', 10_000, 'connected');
  }, 30_000);
  afterAll(async () => {
    await c?.close();
    await sshd?.stop();
  });

  it('streams a drill\'s output live all the same', async () => {
    await streamsLive(c, s);
  }, 30_000);
});
