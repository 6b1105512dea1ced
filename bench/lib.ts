import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { servedUrl } from '../testing/served-url';
// Installs the database schema for the benchmarks that open a Store themselves (as session/core.ts does for the app).
import '../main/core/engine/migrations';

/** The repository root (bench/ lives directly under it). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The `loopdeck` CLI, run the way a user runs it (node + tsx, no build step). */
/** The CLI as `npm start` runs it: bundled by scripts/build-cli.mjs (run.ts builds it first). */
export const LOOPDECK_BIN = join(ROOT, 'out', 'cli', 'loopdeck.mjs');

/** One figure of the benchmark: a measurement, its same-run baseline, and the target. */
export interface Figure {
  /** Short id, e.g. `1a`. */
  readonly id: string;
  readonly name: string;
  /** The headline value and unit, e.g. 612 ms. */
  readonly value: number | null;
  readonly unit: string;
  /** The baseline measured in the same run (null when the figure is absolute). */
  readonly baseline: number | null;
  readonly baselineLabel: string;
  /** value / baseline, when both exist. */
  readonly ratio: number | null;
  /** The target, as the issue states it. */
  readonly target: string;
  /** Whether the target holds; null when there is no target or nothing could be measured. */
  readonly pass: boolean | null;
  /** Everything else worth reading: distributions, breakdowns, causes. */
  readonly details: Record<string, unknown>;
  readonly notes: readonly string[];
}

/** Build a figure, computing the ratio from value and baseline. */
export function figure(f: Omit<Figure, 'ratio'> & { ratio?: number | null }): Figure {
  const ratio = f.ratio !== undefined ? f.ratio : f.value !== null && f.baseline !== null && f.baseline > 0 ? f.value / f.baseline : null;
  return { ...f, ratio };
}

/** A figure that could not be measured, with the reason. */
export function notMeasurable(id: string, name: string, target: string, why: string): Figure {
  return figure({ id, name, value: null, unit: '', baseline: null, baselineLabel: '', target, pass: null, details: {}, notes: [`not measurable: ${why}`] });
}

/** The p-th percentile (0..100) by nearest rank; NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** The median. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Round for printing and JSON (3 significant decimals at most). */
export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Milliseconds since `t0` (from `process.hrtime.bigint()`). */
export function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Resolve after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Wait until `cond` is true, polling; throws naming `what` after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A progress line on stderr (stdout is kept for the table). */
export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

type Cleanup = () => void | Promise<void>;
const cleanups: Cleanup[] = [];

/** Register something to undo at the end (run last-in first-out, even after a failure). */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

/** Undo everything registered, newest first; failures are reported, not thrown. */
export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn?.();
    } catch (err) {
      log(`cleanup failed: ${(err as Error).message}`);
    }
  }
}

/** A temp folder removed at the end. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `loopdeck-bench-${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Stop a child we started: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Spawn a child that is stopped at cleanup if still running. */
export function spawnTracked(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(cmd, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  onCleanup(() => stopChild(child));
  return child;
}

/** A `loopdeck serve` process: its URL, pid, and when it was spawned. */
export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  /** `Date.now()` just before spawn. */
  readonly spawnedAt: number;
  /** `Date.now()` when the URL line was read. */
  readonly urlAt: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start `loopdeck serve` (the real CLI) and wait for the URL it prints. `LOOPDECK_BENCH_NODE_ARGS`
 * (space-separated) goes to its node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a
 * figure's time goes (NODE_OPTIONS refuses --cpu-prof).
 */
export async function startServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const spawnedAt = Date.now();
  const nodeArgs = (process.env.LOOPDECK_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawnTracked(process.execPath, [...nodeArgs, LOOPDECK_BIN, 'serve', '--port', '0', ...args], env);
  const { url, output } = await servedUrl(child, { timeoutMs: 60_000 });
  const urlAt = Date.now();
  return { url, pid: child.pid ?? 0, spawnedAt, urlAt, output, stop: () => stopChild(child) };
}

/** Chromium flags of the issue (the e2e suite's, headless). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Launch the system Chromium, closed at cleanup. */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: process.env.LOOPDECK_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  onCleanup(() => browser.close());
  return browser;
}

/** The resident set size of a process, in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Total CPU time (user + system) of a process so far, in ms (from /proc/<pid>/stat). */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11] = utime, fields[12] = stime (clock ticks, 100 Hz on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU time of a process's live threads so far, in ms, to the nanosecond: the sum of each thread's
 * run time in /proc/<pid>/task/<tid>/schedstat. `/proc/<pid>/stat` reports CPU in 10 ms units, and
 * a minute of a process at 0.1 % of a core is 6 of them. A thread that exits takes its time with
 * it, so the thread ids come too: compare them across a window. Null where the kernel keeps no
 * schedstat.
 */
export function threadCpu(pid: number): { readonly ms: number; readonly threads: string } | null {
  try {
    const tids: string[] = [];
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`).sort()) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
      } catch {
        continue; // it exited meanwhile: left out of the ids too, so the window shows a change
      }
      ns += Number(text.split(' ')[0]);
      tids.push(tid);
    }
    return Number.isFinite(ns) && tids.length > 0 ? { ms: ns / 1e6, threads: tids.join(',') } : null;
  } catch {
    return null;
  }
}

/** An ISO stamp with a UTC offset, as the runner's wrapper writes them. */
export function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** Today's cycle folder name (UTC). */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Wait until `expression` is truthy in the page, polling with `page.evaluate` (CDP evaluation is
 * not subject to the console's CSP, which forbids the eval `page.waitForFunction` needs).
 */
export async function pageUntil(page: Page, expression: string, timeoutMs: number, everyMs = 25): Promise<void> {
  await until(async () => Boolean(await page.evaluate(expression)), timeoutMs, `the page: ${expression.slice(0, 120)}`, everyMs);
}

// In the page: a bare <input> and <button> outside the app, whose handlers only set a text node.
// Event to two animation frames after that change is the browser's own input-to-paint floor.
const FLOOR_PROBE = `(() => {
  const w = window;
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;right:0;bottom:0;z-index:99999;background:#fff';
  box.innerHTML = '<input id="__floor_in"><button id="__floor_btn">floor</button><span id="__floor_out"></span>';
  document.body.appendChild(box);
  const out = box.querySelector('#__floor_out');
  w.__floor = [];
  const done = (t0) => { out.textContent = String(Math.random()); const changed = performance.now(); requestAnimationFrame(() => requestAnimationFrame(() => w.__floor.push({ t0, changed, painted: performance.now() }))); };
  box.querySelector('#__floor_in').addEventListener('input', (e) => done(e.timeStamp));
  box.querySelector('#__floor_btn').addEventListener('click', (e) => done(e.timeStamp));
})()`;

/**
 * The page's input-to-paint floor: `n` keystrokes (or clicks) on a bare control whose handler only
 * sets a text node, each from the event to two animation frames later (what the figures' probes
 * measure too). Returns the times in ms.
 */
export async function inputToPaintFloor(page: Page, kind: 'key' | 'click', n: number): Promise<number[]> {
  await page.evaluate(FLOOR_PROBE);
  if (kind === 'key') await page.locator('#__floor_in').focus();
  for (let i = 0; i < n; i++) {
    if (kind === 'key') await page.keyboard.press(i % 2 === 0 ? 'a' : 'Backspace');
    else await page.locator('#__floor_btn').click();
    await pageUntil(page, `window.__floor.length > ${i}`, 10_000);
    await sleep(50);
  }
  const results = (await page.evaluate('window.__floor')) as { t0: number; painted: number }[];
  await page.evaluate(`document.getElementById('__floor_in')?.parentElement?.remove()`);
  return results.map((r) => r.painted - r.t0);
}

/**
 * A config with the runner on this machine and one loop (`reliability`) whose runs folder is
 * `<dir>/runs` (created): `loopLines` are added to the loop, `extra` after it.
 */
export function writeLocalConfig(dir: string, loopLines: readonly string[] = [], extra: readonly string[] = []): string {
  mkdirSync(join(dir, 'runs'), { recursive: true });
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    ['hosts:', '  runner: { local: true }', 'loops:', '  reliability:', '    host: runner', `    runs: ${JSON.stringify(join(dir, 'runs'))}`, ...loopLines, ...extra, ''].join('\n'),
  );
  return configPath;
}
