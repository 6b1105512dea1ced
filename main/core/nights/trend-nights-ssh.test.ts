import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../shared/trends';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { createSession } from '../session/session';
import { OLD_NIGHT_LOG_TAIL_BYTES } from './old-night';
import { TEST_CALLER } from '../../../testing/callers';

const NEWEST = '2026-11-29';
const NOW = () => new Date(`${NEWEST}T12:00:00Z`);

describe('older nights for Trends over SSH, against a real sshd', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 10 });
  }, 30_000);
  afterAll(() => sshd?.stop());

  it('reads each old night, its stamps whole and its transcript’s tail (a verdict past 64 KiB of output), and keeps their summaries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-sshhistory-'));
    const runs = join(dir, 'runs');
    const dates = Array.from({ length: 30 }, (_, i) => addDays(NEWEST, -i));
    for (const [i, d] of dates.entries()) {
      mkdirSync(join(runs, d), { recursive: true });
      writeFileSync(join(runs, d, 'audit.status'), `audit ${d}T00:00:04+00:00 STARTED\naudit ${d}T00:41:12+00:00 ${i === 20 ? 'FAILED 2' : 'OK'}\n`);
      // Night 25: no outcome stamp, a long transcript whose last line declares the no-op.
      if (i === 25) {
        writeFileSync(join(runs, d, 'remediate.status'), `remediate ${d}T01:00:00+00:00 STARTED\n`);
        const filler = 'tool_use Read src/a.py\n'.repeat(Math.ceil((2 * OLD_NIGHT_LOG_TAIL_BYTES) / 22));
        writeFileSync(join(runs, d, 'remediate.log'), `${filler}NIGHTLY PHASE NO-OP: loop=reliability phase=remediate nothing to fix\n`);
      } else writeFileSync(join(runs, d, 'remediate.status'), `remediate ${d}T01:00:00+00:00 STARTED\nremediate ${d}T02:00:00+00:00 OK\n`);
    }
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, `hosts:\n  runner: ${sshHostYaml(sshd)}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n    phases: [audit, remediate]\n    cycles: 5\n    history: 30\n`);
    const core = createSession({ configPath, dataDir: join(dir, 'data'), shell: 'serve', pollMs: 100, now: NOW, ssh: isolatedSshEnv() });
    await core.start();
    try {
      await until(async () => (await core.handlers['trends.nights']({}, TEST_CALLER)).nights.length === 30, 30_000, '30 kept nights over SSH');
      const { nights } = await core.handlers['trends.nights']({}, TEST_CALLER);
      const at = (i: number) => nights.find((n) => n.date === dates[i]);
      expect(at(20)).toMatchObject({ status: 'failed', phases: [{ name: 'audit', status: 'failed' }, { name: 'remediate', status: 'ok', durationMs: 3_600_000 }] });
      expect(at(25)?.phases[1]).toMatchObject({ name: 'remediate', status: 'no-op' });
      // A no-op remediate is a night that went well: only night 20 failed.
      expect(nights.filter((n) => n.status === 'ok')).toHaveLength(29);
    } finally {
      await core.close();
    }
  }, 60_000);
});
