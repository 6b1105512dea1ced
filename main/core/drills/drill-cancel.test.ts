import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { until } from '../../../testing/until';
import { cancelScript, launchScript, parseProbe, statusScript } from './drill-script';

const sh = async (script: string, home: string): Promise<string> =>
  (await promisify(execFile)('/bin/sh', ['-c', script], { env: { ...process.env, HOME: home } })).stdout;

describe('cancelling a drill', () => {
  // On a busy host (or behind a slow login shell) a cancel can come before the detached wrapper
  // has started the command and written its process group: it used to do nothing then, and the
  // drill ran on to its timeout.
  it('stops a drill cancelled before its wrapper wrote the process group', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loopdeck-cancel-'));
    const work = join(home, 'work');
    mkdirSync(work);
    for (let round = 0; round < 5; round++) {
      const runId = `20260101000000-cancel${round}`;
      const launch = launchScript({ runId, drill: `sleeper${round}`, command: 'sleep 60', cwd: work, timeoutSeconds: 120, graceSeconds: 1, args: {} });
      const dir = join(home, '.loopdeck', 'drills', runId);
      // Launch and cancel in one script: the cancel runs before the wrapper has got going.
      const out = await sh(`${launch} >/dev/null\n${cancelScript(dir, 1)}`, home);
      expect(out).toContain('SIGNALLED');
      await until(() => existsSync(join(dir, 'rc')) && readFileSync(join(dir, 'rc'), 'utf8').includes('DONE'), 15_000, `drill ${round} to end`);
      const probe = parseProbe(await sh(statusScript(dir), home));
      expect(probe).toMatchObject({ done: true, cancelled: true });
      // SIGTERM (143), or SIGKILL after the 1 s grace (137) when a busy host was slow to act on it.
      expect([143, 137]).toContain(probe.rc);
    }
  }, 90_000);
});
