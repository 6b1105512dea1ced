import { writeFileSync } from 'node:fs';

/** One place that sets timers: how often its callbacks ran and the CPU their synchronous part took. */
export interface TimerStat {
  /** Where the timer was set: the function that called setTimeout/setInterval, and its file. */
  readonly site: string;
  /** The delays it asked for (ms), distinct, at most five. */
  readonly delaysMs: readonly number[];
  readonly runs: number;
  /** CPU (user + system) of the callbacks' synchronous part, in µs; promises they start are not in it. */
  readonly cpuUs: number;
}

/** What SIGUSR2 writes: the table since the last write (or the start), and how long that was. */
export interface TimerStats {
  readonly sinceMs: number;
  readonly timers: readonly TimerStat[];
}

/**
 * Where a timer was set: the file of the first stack frame past the wrapper (the stack's first
 * frame) that is not Node's own, named by the first named function from there (an arrow function
 * set in a method is the method's): `fn (file)`.
 */
function siteOf(stack: string | undefined): string {
  let file: string | null = null;
  for (const line of (stack ?? '').split('\n').slice(2)) {
    if (line.includes('node:')) continue;
    const m = /at (?:async )?(?:(\S+) )?\(?([^()]*?)(?::\d+)?\)?$/.exec(line.trim());
    if (!m) continue;
    file ??= (m[2] ?? '').split('/').pop() ?? '';
    if (m[1] && m[1] !== '<anonymous>') return `${m[1]} (${file})`;
  }
  return file ?? 'unknown';
}

/**
 * Who wakes the process, how often, and what each wake costs (bench figure 8a: "every timer
 * accounted for"). Off unless a shell calls it (serve does when `LOOPDECK_TIMER_STATS` names a
 * file): every setTimeout and setInterval callback is counted by where it was set, with the CPU of
 * its synchronous part, and on SIGUSR2 the table since the last one is written to `file` as JSON
 * (TimerStats) and started afresh. Its own cost is a short stack capture per timer set.
 */
export function startTimerStats(file: string): void {
  const table = new Map<string, { delays: Set<number>; runs: number; cpuUs: number }>();
  let since = Date.now();
  const counted = (site: string, delay: number): { delays: Set<number>; runs: number; cpuUs: number } => {
    let row = table.get(site);
    if (!row) table.set(site, (row = { delays: new Set(), runs: 0, cpuUs: 0 }));
    if (row.delays.size < 5) row.delays.add(delay);
    return row;
  };
  const wrap = <T extends typeof setTimeout | typeof setInterval>(original: T): T => {
    const wrapped = (callback: unknown, delay?: number, ...args: unknown[]): unknown => {
      if (typeof callback !== 'function') return (original as (...a: unknown[]) => unknown)(callback, delay, ...args);
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 6;
      const site = siteOf(new Error().stack);
      Error.stackTraceLimit = limit;
      const fn = callback as (...a: unknown[]) => unknown;
      return (original as (...a: unknown[]) => unknown)(
        function (this: unknown, ...a: unknown[]) {
          const before = process.cpuUsage();
          try {
            return fn.apply(this, a);
          } finally {
            const used = process.cpuUsage(before);
            const row = counted(site, Math.round(delay ?? 0));
            row.runs += 1;
            row.cpuUs += used.user + used.system;
          }
        },
        delay,
        ...args,
      );
    };
    // Its properties too (util.promisify's custom form of setTimeout).
    Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
    return wrapped as unknown as T;
  };
  globalThis.setTimeout = wrap(globalThis.setTimeout);
  globalThis.setInterval = wrap(globalThis.setInterval);
  process.on('SIGUSR2', () => {
    const stats: TimerStats = {
      sinceMs: Date.now() - since,
      timers: [...table].map(([site, r]) => ({ site, delaysMs: [...r.delays], runs: r.runs, cpuUs: r.cpuUs })).sort((a, b) => b.runs - a.runs),
    };
    writeFileSync(file, `${JSON.stringify(stats, null, 2)}\n`);
    table.clear();
    since = Date.now();
  });
}
