import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { until } from '../../testing/until';
import { watcherScript } from './watcher-script';

/** The watcher script run by a local sh, as sshd would run it; `changed` lines are timestamped. */
function run(dirs: string[], statMs: number, env: NodeJS.ProcessEnv = process.env): { child: ChildProcess; wakes: number[] } {
  const child = spawn('sh', ['-c', watcherScript(dirs, statMs)], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const wakes: number[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (l === 'changed') wakes.push(Date.now());
  });
  return { child, wakes };
}

describe('the watcher script', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.pid) process.kill(-c.pid, 'SIGKILL');
  });

  it('lists every 50 ms where tail -F cannot run, whatever the listing interval asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tail'), '#!/bin/sh\nexit 1\n'); // a host whose tail has no -F
    chmodSync(join(bin, 'tail'), 0o755);
    const watched = join(dir, 'w');
    mkdirSync(watched);
    writeFileSync(join(watched, 'a.log'), '');
    const { child, wakes } = run([watched], 5000, { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
    children.push(child);
    await until(() => wakes.length > 0, 5000, 'the first listing');
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    appendFileSync(join(watched, 'a.log'), 'x\n');
    // With the 5 s listing this would take up to 5 s; the fallback lists every 50 ms.
    await until(() => wakes.some((t) => t >= t0), 2000, 'a wake after the append');
  }, 15_000);

  it('copes with names that need quoting (spaces, quotes, a leading dash)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-watcher-'));
    const watched = join(dir, "it's a -dir");
    mkdirSync(watched);
    writeFileSync(join(watched, '-odd name.log'), '');
    const { child, wakes } = run([watched], 5000);
    children.push(child);
    await until(() => wakes.length > 0, 5000, 'the first listing');
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    appendFileSync(join(watched, '-odd name.log'), 'x\n');
    await until(() => wakes.some((t) => t >= t0), 2000, 'a wake after the append'); // tail -F, not the 5 s listing
  }, 15_000);
});
