import { existsSync, readFileSync, statSync } from 'node:fs';
import type { TimerStats } from '../main/core/logging/timer-stats';
import { round, until } from './lib';

// Figure 8a's account of serve's timers: serve started with LOOPDECK_TIMER_STATS=FILE counts every
// timer callback by where it was set (main/core/logging/timer-stats.ts); SIGUSR2 writes the table
// since the last one and starts afresh.

/** Start a fresh table in each serve (before the idle windows). */
export function resetTimerStats(pids: readonly number[]): void {
  for (const pid of pids) process.kill(pid, 'SIGUSR2');
}

/** The table since the last reset, once serve has written it. */
export async function timerStats(pid: number, file: string): Promise<TimerStats | null> {
  const before = existsSync(file) ? statSync(file).mtimeMs : 0;
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  try {
    await until(() => existsSync(file) && statSync(file).mtimeMs !== before && statSync(file).mtimeMs >= asked - 1000, 10_000, `serve ${pid} to write its timer table`);
    return JSON.parse(readFileSync(file, 'utf8')) as TimerStats;
  } catch {
    return null;
  }
}

/** `site: N wakes a minute (delay), X µs CPU each` for the busiest timers. */
export function timerLine(stats: TimerStats | null, top = 6): string {
  if (!stats) return 'no timer table';
  const minutes = stats.sinceMs / 60_000;
  const rows = stats.timers.slice(0, top).map((t) => `${t.site} ${round(t.runs / minutes, 1)}/min (${t.delaysMs.join('/')} ms) ${t.runs ? round(t.cpuUs / t.runs, 0) : 0} µs each`);
  const rest = stats.timers.slice(top).reduce((a, t) => a + t.runs, 0);
  return `${rows.join('; ')}${rest ? `; ${round(rest / minutes, 1)}/min more from ${stats.timers.length - top} other sites` : ''}`;
}
