import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../main/core/config/load-config';
import { Store } from '../main/core/store/store';
import { isolatedSshEnv, sshHostYaml } from '../testing/ssh-fixture';
import type { TestSshd } from '../testing/sshd';
import { countRequests } from '../testing/ssh-requests';
import { figure, log, median, msSince, round, tempDir, type Figure } from './lib';
import { composeEngine } from '../main/core/session/core';

const run = promisify(execFile);
const LOOPS = 20;
const RUNS = 5;

/**
 * Figure 11: the pre-flight of 20 loops on one SSH host (the test sshd), each with a runs folder
 * and a clone to check the room of. 11a: requests made to the host per pre-flight (every method
 * of its connection counted), target ≤ 2. 11b: the pre-flight's wall time (median of 5) against
 * one `ssh host df -Pk` of the same 40 folders — the least a check of their room costs.
 */
export async function preflightCost(sshd: TestSshd): Promise<Figure[]> {
  const dir = tempDir('preflight');
  const q = JSON.stringify;
  const lines = ['hosts:', `  runner: ${sshHostYaml(sshd)}`, 'loops:'];
  const folders: string[] = [];
  for (let i = 0; i < LOOPS; i++) {
    const runs = join(dir, `loop-${i}`, 'runs');
    const clone = join(dir, `loop-${i}`, 'clone');
    mkdirSync(runs, { recursive: true });
    mkdirSync(clone, { recursive: true });
    folders.push(runs, clone);
    lines.push(`  loop-${i}: { host: runner, runs: ${q(runs)}, dir: ${q(clone)}, schedule: "0 0 * * *", preflightDisk: 1MB }`);
  }
  const store = Store.open(join(dir, 'loopdeck.db'));
  const engine = composeEngine(parseConfig(join(dir, 'config.yaml'), `${lines.join('\n')}\n`), { store, ssh: isolatedSshEnv() });
  try {
    engine.start();
    await engine.hosts.settle(15_000);
    await engine.poll();
    for (let i = 0; engine.behind() && i < 100; i++) await engine.poll();
    const conn = engine.hosts.get('runner')?.ssh?.connection;
    if (!conn) throw new Error('no SSH connection for runner');
    const requests = countRequests(conn);
    const times: number[] = [];
    const perRun: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = requests();
      const t0 = process.hrtime.bigint();
      const results = await engine.preflight.run();
      times.push(msSince(t0));
      perRun.push(requests() - before);
      if (results.length !== LOOPS) throw new Error(`pre-flight returned ${results.length} loops, not ${LOOPS}`);
    }
    const floor: number[] = [];
    const args = ['-i', sshd.clientKey, '-p', String(sshd.port), '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'BatchMode=yes', `${sshd.user}@127.0.0.1`, 'df', '-Pk', ...folders];
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      await run('ssh', args);
      floor.push(msSince(t0));
    }
    const most = Math.max(...perRun);
    const ms = median(times);
    const base = median(floor);
    log(`figure 11: ${most} request(s) per pre-flight of ${LOOPS} loops; ${round(ms, 1)} ms against ssh df ${round(base, 1)} ms`);
    return [
      figure({
        id: '11a',
        name: `Pre-flight of ${LOOPS} loops on one SSH host: requests to the host`,
        value: most,
        unit: 'requests',
        baseline: null,
        baselineLabel: '',
        target: '≤ 2 a host',
        pass: most <= 2,
        details: { perRun },
        notes: [],
      }),
      figure({
        id: '11b',
        name: `Pre-flight of ${LOOPS} loops, wall time (median of ${RUNS})`,
        value: round(ms, 1),
        unit: 'ms',
        baseline: round(base, 1),
        baselineLabel: `ssh host df -Pk of the ${folders.length} folders`,
        target: 'info',
        pass: null,
        details: { times: times.map((t) => round(t, 1)), floor: floor.map((t) => round(t, 1)) },
        notes: ['The pre-flight runs over the console\'s one long-lived shell; `ssh host df` pays a new connection and login each time.'],
      }),
    ];
  } finally {
    await engine.close();
    store.close();
  }
}
