/**
 * Figure 8f and 8g: the CPU serve spends on a transcript line appended at a rate where every line
 * wakes a poll of its own, against the floor of any follower of that line, a bare process that
 * watches the folder and stats and reads what was appended, measured in the same windows.
 */
import { appendFileSync } from 'node:fs';
import { median, round, sleep, spawnTracked, stamp, stopChild } from './lib';
import { cpuOverAll, type CpuWindow } from './serve-cpu';

/** Lines a second: 125 ms apart, past the engine's wake gaps, so each line is a poll of its own. */
export const SLOW_LINES_PER_SECOND = 8;
/** The pairs of windows (idle, then lines at SLOW_LINES_PER_SECOND), and the median taken. */
export const SLOW_WINDOWS = 7;
/** After the last line of a window, how long it stays open for that line's processing (ms). */
const SLOW_TAIL_MS = 1000;

/**
 * The floor's program: fs.watch on the file's folder and, on each event naming the file, a stat
 * and a read of the bytes appended since the last one (open, read, close). Nothing is parsed or
 * kept: the least work that still takes each line off the disk. Prints the lines it saw on SIGTERM.
 */
const BARE_FOLLOWER = `
const { watch, statSync, openSync, readSync, closeSync } = require('node:fs');
const { dirname, basename } = require('node:path');
const file = process.argv[1];
let offset = statSync(file).size;
let lines = 0;
const buf = Buffer.alloc(1 << 20);
watch(dirname(file), (kind, name) => {
  if (name !== basename(file)) return;
  const st = statSync(file);
  if (st.size <= offset) return;
  const fd = openSync(file, 'r');
  const n = readSync(fd, buf, 0, Math.min(buf.length, st.size - offset), offset);
  closeSync(fd);
  for (let i = 0; i < n; i++) if (buf[i] === 10) lines++;
  offset += n;
});
process.on('SIGTERM', () => { process.stdout.write(lines + '\\n'); process.exit(0); });
setInterval(() => {}, 1 << 30);
`;

/** A running bare follower: its pid, and how to stop it (resolving to the lines it saw). */
export interface BareFollower {
  readonly pid: number;
  stop(): Promise<number>;
}

/** Start the floor's bare follower on `file` (a plain node process, like serve's). */
export async function startBareFollower(file: string): Promise<BareFollower> {
  const child = spawnTracked(process.execPath, ['-e', BARE_FOLLOWER, file]);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  // Give it a moment to arm its watch before anything is appended.
  await sleep(500);
  return {
    pid: child.pid ?? 0,
    stop: async () => {
      await stopChild(child);
      return Number(out.trim()) || 0;
    },
  };
}

/** Serve's and the floor's CPU per line at SLOW_LINES_PER_SECOND, each window pair's and the medians. */
export interface SlowAppends {
  readonly lines: number;
  readonly serveMsPerLine: number;
  readonly floorMsPerLine: number;
  readonly serveWindows: readonly number[];
  readonly floorWindows: readonly number[];
  readonly ratio: number | null;
  /** Lines the floor saw of those appended (it must have kept up for its figure to count). */
  readonly floorSaw: number;
}

/**
 * Serve (`servePid`) and a bare follower of the same file, measured over the same windows: an idle
 * window, then one of lines appended to `file` at SLOW_LINES_PER_SECOND, SLOW_WINDOWS times. Each
 * append window's CPU less the idle rate of the window just before it, per line; the medians. At a
 * line every 125 ms the idle rate is as large as what the lines cost (0.2 % of a core over a
 * window is 0.25 ms a line), so each append window is set against an idle one beside it: an idle
 * rate measured minutes apart moved the figure by half.
 */
export async function slowAppends(servePid: number, file: string, windowS: number, tag: string): Promise<SlowAppends> {
  const floor = await startBareFollower(file);
  try {
    const perWindow = Math.max(1, Math.round(SLOW_LINES_PER_SECOND * windowS));
    const serveWindows: number[] = [];
    const floorWindows: number[] = [];
    for (let w = 0; w < SLOW_WINDOWS; w += 1) {
      const [si, fi] = await cpuOverAll([servePid, floor.pid], () => sleep(windowS * 1000));
      const [s, f] = await cpuOverAll([servePid, floor.pid], async () => {
        const t0 = Date.now();
        for (let i = 0; i < perWindow; i += 1) {
          const wait = t0 + (i * 1000) / SLOW_LINES_PER_SECOND - Date.now();
          if (wait > 0) await sleep(wait);
          const n = w * perWindow + i;
          appendFileSync(file, `[${stamp(new Date())}] slow ${tag} ${n}: tool_use Read web/lib/slow-${n}.ts (${(n * 37) % 500} lines)\n`);
        }
        await sleep(SLOW_TAIL_MS);
      });
      const net = (x: CpuWindow | undefined, idle: CpuWindow | undefined): number | null => (x && idle ? (x.cpuMs - (idle.cpuMs / idle.wallMs) * x.wallMs) / perWindow : null);
      const sn = net(s, si);
      const fn = net(f, fi);
      if (sn !== null && fn !== null) {
        serveWindows.push(sn);
        floorWindows.push(fn);
      }
    }
    const serveMsPerLine = median(serveWindows);
    const floorMsPerLine = median(floorWindows);
    const floorSaw = await floor.stop();
    return {
      lines: perWindow * SLOW_WINDOWS,
      serveMsPerLine: round(serveMsPerLine, 3),
      floorMsPerLine: round(floorMsPerLine, 3),
      serveWindows: serveWindows.map((x) => round(x, 3)),
      floorWindows: floorWindows.map((x) => round(x, 3)),
      ratio: floorMsPerLine > 0 ? round(serveMsPerLine / floorMsPerLine, 2) : null,
      floorSaw,
    };
  } finally {
    await floor.stop();
  }
}
