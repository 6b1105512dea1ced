import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { until } from '../../../testing/until';
import { startTimerStats, type TimerStats } from './timer-stats';

// Each test file runs in a process of its own (vitest's forks pool): replacing the timers here
// reaches no other file.
describe('timer stats (who wakes the process, how often, at what cost)', () => {
  it('counts each place that sets a timer, its runs and delays, and writes and restarts the table on SIGUSR2', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-timers-')), 'timers.json');
    startTimerStats(file);
    function everyTick(): NodeJS.Timeout {
      return setInterval(() => undefined, 5);
    }
    function once(): void {
      setTimeout(() => {
        // Some CPU in the callback itself.
        let x = 0;
        for (let i = 0; i < 2e6; i++) x += i;
        expect(x).toBeGreaterThan(0);
      }, 1);
    }
    const tick = everyTick();
    once();
    // A promisified setTimeout still works (its custom form is kept).
    await promisify(setTimeout)(20);
    clearInterval(tick);
    process.kill(process.pid, 'SIGUSR2');
    await until(() => existsSync(file), 10_000, 'the table written');
    const stats = JSON.parse(readFileSync(file, 'utf8')) as TimerStats;
    const row = (fn: string) => stats.timers.find((t) => t.site.startsWith(`${fn} `));
    expect(row('everyTick')).toMatchObject({ delaysMs: [5] });
    expect(row('everyTick')?.runs).toBeGreaterThanOrEqual(1);
    expect(row('once')).toMatchObject({ delaysMs: [1], runs: 1 });
    expect(row('once')?.cpuUs).toBeGreaterThan(0);
    expect(row('once')?.site).toContain('timer-stats.test.ts');
    // Written and started afresh: the next table holds nothing from before.
    process.kill(process.pid, 'SIGUSR2');
    await until(() => (JSON.parse(readFileSync(file, 'utf8')) as TimerStats).timers.every((t) => !t.site.startsWith('once ')), 10_000, 'a fresh table');
  });
});
