/**
 * The CPU of serve processes over windows of wall time, for figure 8: from each thread's exact run
 * time where the same threads lived through a window, else from /proc's ticks; and the wait for a
 * freshly loaded serve to settle before its idle cost is measured.
 */
import { cpuMs, round, sleep, threadCpu } from './lib';

/** Which clock measured a window (see cpuOverAll). */
export type Clock = 'threads' | 'ticks';
/** One measured window: a process's CPU, the wall time, and the clock that measured it. */
export type CpuWindow = { cpuMs: number; wallMs: number; clock: Clock };

/**
 * CPU ms of each process over one window (while `run` runs), and the window's wall time: from the
 * threads' exact run times (`threadCpu`) when the same threads lived through the window, else from
 * /proc's ticks. Every process is measured over the same wall-clock window, so whatever else the
 * machine did then fell on all of them alike.
 */
export async function cpuOverAll(pids: readonly number[], run: () => Promise<void>): Promise<CpuWindow[]> {
  const before = pids.map((pid) => ({ ticks: cpuMs(pid) ?? Number.NaN, threads: threadCpu(pid) }));
  const t0 = performance.now();
  await run();
  const wallMs = performance.now() - t0;
  return pids.map((pid, i) => {
    const b = before[i];
    const e1 = threadCpu(pid);
    const c1 = cpuMs(pid) ?? Number.NaN;
    if (b?.threads && e1 && b.threads.threads === e1.threads) return { cpuMs: e1.ms - b.threads.ms, wallMs, clock: 'threads' };
    return { cpuMs: c1 - (b?.ticks ?? Number.NaN), wallMs, clock: 'ticks' };
  });
}

/** CPU ms of one process over a window (see cpuOverAll). */
export async function cpuOver(pid: number, run: () => Promise<void>): Promise<CpuWindow> {
  const [w] = await cpuOverAll([pid], run);
  if (!w) throw new Error('cpuOverAll measured no window');
  return w;
}

/** Whether every window was measured by the threads' clock. */
export const clockOf = (ws: readonly { clock: Clock }[]): Clock => (ws.every((x) => x.clock === 'threads') ? 'threads' : 'ticks');

/**
 * Idle is the steady-state cost while nothing changes, measured once serve has settled: after
 * reading a year of history V8 spends a minute or more of background GC shrinking the heap it grew
 * for the first read (a one-off, not the idle cost), in bursts some seconds apart. So: at least
 * SETTLE_MS, then 5-s windows until SETTLE_STEADY in a row lie within SETTLE_BAND_PCT % of a core
 * of each other (the rate stopped changing), at most SETTLE_CAP_MS in all; the details record how
 * long it took and the windows' rates (CPU as `cpuOver` reads it).
 */
export const SETTLE_MS = 20_000;
const SETTLE_WINDOW_MS = 5000;
export const SETTLE_STEADY = 4;
export const SETTLE_BAND_PCT = 0.2;
export const SETTLE_CAP_MS = 180_000;

/** How a serve settled (see SETTLE_MS). */
export interface Settled {
  readonly settleMs: number;
  readonly settled: boolean;
  /** The settling windows' rates, % of a core. */
  readonly windowsPct: readonly number[];
}

/** Wait for serve's CPU rate to stop falling (see SETTLE_MS). */
export async function settle(pid: number): Promise<Settled> {
  const t0 = performance.now();
  await sleep(SETTLE_MS);
  const windowsPct: number[] = [];
  while (performance.now() - t0 < SETTLE_CAP_MS) {
    const w = await cpuOver(pid, () => sleep(SETTLE_WINDOW_MS));
    windowsPct.push(round((w.cpuMs / w.wallMs) * 100, 2));
    const last = windowsPct.slice(-SETTLE_STEADY);
    if (last.length === SETTLE_STEADY && Math.max(...last) - Math.min(...last) <= SETTLE_BAND_PCT + 1e-9) return { settleMs: round(performance.now() - t0, 0), settled: true, windowsPct };
  }
  return { settleMs: round(performance.now() - t0, 0), settled: false, windowsPct };
}
