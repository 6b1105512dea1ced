/**
 * Figure 8, cost versus history: serve mode following a generated local loop with 30, 120 and
 * 365 days of cycles and 5k, 20k and 60k findings; idle CPU, CPU and event bytes per appended
 * transcript line, RSS, and the event bytes one appended ledger section causes.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCounter, type EventCounter, type EventTally } from './event-counter';
import { generateHistory, loaded, type HistoryFixture, type SnapshotLike } from './history-gen';
import { appendedSection } from './ledger-gen';
import type { TimerStats } from '../main/core/logging/timer-stats';
import { resetTimerStats, timerLine, timerStats } from './timer-report';
import { figure, log, median, round, rssMb, sleep, stamp, startServe, tempDir, until, type Figure, type ServeProcess } from './lib';
import { clockOf, cpuOver, cpuOverAll, settle, SETTLE_BAND_PCT, SETTLE_CAP_MS, SETTLE_MS, SETTLE_STEADY, type Clock, type CpuWindow, type Settled } from './serve-cpu';
import { slowAppends, SLOW_LINES_PER_SECOND, SLOW_WINDOWS, type SlowAppends } from './append-floor';

interface Size {
  readonly days: number;
  readonly findings: number;
  /** Transcript lines in each finished cycle (a year's cycles are shorter, as the issue has it). */
  readonly linesPerCycle: number;
  /** The loop's cap (20h): a minute makes today's running remediate one past its cap (8g). */
  readonly cap?: string;
}

/** Figure 8g's serve: the 30-day history, its running phase past the loop's cap. */
const PAST_CAP: Size = { days: 30, findings: 5_000, linesPerCycle: 400, cap: '1m' };

const SIZES: readonly Size[] = [
  { days: 30, findings: 5_000, linesPerCycle: 400 },
  { days: 120, findings: 20_000, linesPerCycle: 250 },
  { days: 365, findings: 60_000, linesPerCycle: 100 },
];
const LINES_PER_SECOND = 20;
/** After the last appended line, the window stays open this long for its processing and events. */
const TAIL_MS = 2000;
const SECTION_ROWS = 50;
/**
 * Idle is measured in this many windows, and the median taken: a resting process still compiles a
 * function or runs a GC now and then, and one such burst in a single window was the whole
 * difference between two sizes. Every size is measured in the same windows (see idleAll).
 */
const IDLE_WINDOWS = 6;
/** Appends are measured in this many windows, and the median taken. */
const APPEND_WINDOWS = 3;

/** Objects anywhere in `value` whose `id` is one of `ids` (the findings an event carries, whatever its shape). */
function findingsIn(value: unknown, ids: ReadonlySet<string>, out = new Map<string, unknown>()): unknown[] {
  if (Array.isArray(value)) for (const v of value) findingsIn(v, ids, out);
  else if (value !== null && typeof value === 'object') {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' && ids.has(id)) out.set(id, value);
    else for (const v of Object.values(value)) findingsIn(v, ids, out);
  }
  return [...out.values()];
}

/** One history size's measurements. */
export interface HistoryResult {
  readonly days: number;
  readonly followedCycles: number;
  readonly findings: number;
  readonly transcriptLines: number;
  readonly runsMb: number;
  readonly generateMs: number;
  readonly loadMs: number;
  /** The median of the idle windows' rates, and each window's. */
  readonly idleCpuPct: number;
  readonly idleWindowsPct: readonly number[];
  /** How long serve took to settle before idle was measured, and the settling windows' CPU (% of a core). */
  readonly settle: Settled;
  readonly idleEventBytesPerS: number;
  /** Who woke serve in the idle windows, how often, at what cost (timer-report.ts), and the table. */
  readonly idleTimers: string;
  readonly idleTimerTable: TimerStats | null;
  readonly linesAppended: number;
  readonly appendWindowMs: number;
  readonly appendCpuMs: number;
  /** The median over the append windows, and each window's. */
  readonly cpuPerLineMs: number;
  readonly appendWindowsMsPerLine: readonly number[];
  /** All the window's CPU over the lines, idle not subtracted. */
  readonly grossCpuPerLineMs: number;
  readonly eventBytesPerLine: number;
  readonly appendEvents: EventTally;
  readonly rssMb: number | null;
  readonly sectionEventBytes: number;
  readonly sectionEvents: EventTally;
  readonly sectionFindingsJsonBytes: number | null;
  readonly sectionRatio: number | null;
  /** Times serve dropped the counting client in each window (what it sent then went unseen). */
  readonly drops: { readonly idle: number; readonly append: number; readonly section: number };
  /** Which clock measured the idle and append windows (`ticks` only where a thread came or went). */
  readonly clocks: { readonly idle: Clock; readonly append: Clock };
  readonly rssAfterSectionMb: number | null;
  /** Lines at SLOW_LINES_PER_SECOND against the bare follower's floor (8f). */
  readonly slow: SlowAppends | null;
}

/** A serve that has read one size's history, with its counting client. */
interface Loaded {
  readonly size: Size;
  readonly fx: HistoryFixture;
  readonly served: ServeProcess;
  readonly client: EventCounter;
  readonly generateMs: number;
  readonly loadMs: number;
}

/** Generate one size's history and start serve on it; resolves once serve has read all of it. */
async function load(size: Size): Promise<Loaded> {
  const dir = tempDir(`history-${size.days}`);
  const g0 = performance.now();
  const fx = generateHistory(dir, size.days, size.findings, size.linesPerCycle, Date.now(), size.cap);
  const generateMs = performance.now() - g0;
  log(`figure 8: ${size.days} days (${fx.followed} followed), ${size.findings} findings, ${fx.transcriptLines} transcript lines generated in ${round(generateMs / 1000, 1)} s`);

  const served = await startServe(['--config', fx.configPath, '--data', fx.dataDir], { HOME: fx.home, LOOPDECK_TIMER_STATS: timersFile(fx) });
  try {
    const client = await connectCounter(served.url);
    // Ask for a snapshot when serve has been quiet for a second, else every 5 s (tens of MB at 60k).
    let seenFindings = -1;
    let seenCycles = -1;
    let snapAt = 0;
    let failedInARow = 0;
    try {
      await until(
        async () => {
          if (Date.now() - client.lastFrameAt < 1000 && Date.now() - snapAt < 5000) return false;
          snapAt = Date.now();
          let snap: SnapshotLike;
          try {
            snap = (await client.invoke('state.snapshot')) as SnapshotLike;
            failedInARow = 0;
          } catch (err) {
            if (++failedInARow >= 3) throw new Error(`state.snapshot failed 3 times in a row: ${(err as Error).message}`, { cause: err });
            return false;
          }
          seenFindings = snap.findings.length;
          seenCycles = snap.loops.find((l) => l.name === 'reliability')?.cycles.length ?? -1;
          return loaded(snap, fx, size.findings);
        },
        240_000,
        `serve to read ${size.days} days and ${size.findings} findings`,
        1000,
      );
    } catch (err) {
      client.close();
      throw new Error(`${(err as Error).message} (last snapshot: ${seenFindings} findings, ${seenCycles} cycles)`, { cause: err });
    }
    const loadMs = Date.now() - served.spawnedAt;
    log(`figure 8: ${size.days} days read in ${round(loadMs / 1000, 1)} s`);
    return { size, fx, served, client, generateMs, loadMs };
  } catch (err) {
    await served.stop();
    throw err;
  }
}

/** Where a size's serve writes its timer table (LOOPDECK_TIMER_STATS). */
function timersFile(fx: HistoryFixture): string {
  return join(fx.dir, 'timers.json');
}

/** One serve's idle measurement. */
interface Idle {
  /** CPU ms per wall ms, the median of the windows. */
  readonly rate: number;
  readonly windows: readonly CpuWindow[];
  readonly settle: Settled;
  readonly eventBytesPerS: number;
  readonly drops: number;
  /** Serve's timers over the idle windows (who woke it, how often, what it cost). */
  readonly timers: TimerStats | null;
}

/**
 * The idle cost of every loaded serve, measured together: each settles (see `settle`), then all are
 * measured over the same IDLE_WINDOWS windows of wall time. Measured one after another, a size
 * could meet a busier minute of a shared machine than the size it is compared with; measured
 * together, what else ran fell on all of them alike (each is one idle process; they do not
 * compete for a core, at ~0.1 % each).
 */
async function idleAll(all: readonly Loaded[], idleS: number): Promise<Idle[]> {
  log(`figure 8: settling ${all.map((l) => `${l.size.days} d`).join(', ')}, then ${idleS} s idle, all at once`);
  const settled = await Promise.all(all.map((l) => settle(l.served.pid)));
  all.forEach((l, i) => {
    const s = settled[i];
    if (s) log(`figure 8: ${l.size.days} days ${s.settled ? 'settled' : 'did not settle'} after ${round(s.settleMs / 1000, 0)} s (5-s windows: ${s.windowsPct.join(', ')} % of a core)`);
  });
  for (const l of all) l.client.reset();
  resetTimerStats(all.map((l) => l.served.pid));
  const windows: CpuWindow[][] = all.map(() => []);
  for (let w = 0; w < IDLE_WINDOWS; w += 1) {
    const measured = await cpuOverAll(
      all.map((l) => l.served.pid),
      () => sleep((idleS * 1000) / IDLE_WINDOWS),
    );
    measured.forEach((x, i) => windows[i]?.push(x));
  }
  const timers = await Promise.all(all.map((l) => timerStats(l.served.pid, timersFile(l.fx))));
  return all.map((l, i) => {
    const ws = windows[i] ?? [];
    const wallMs = ws.reduce((a, x) => a + x.wallMs, 0);
    return {
      rate: median(ws.map((x) => x.cpuMs / x.wallMs)),
      windows: ws,
      settle: settled[i] ?? { settleMs: 0, settled: false, windowsPct: [] },
      eventBytesPerS: (l.client.bytes * 1000) / wallMs,
      drops: l.client.drops,
      timers: timers[i] ?? null,
    };
  });
}

/** Appended transcript lines and one ledger section on a loaded, idle-measured serve. */
async function appendAndSection(l: Loaded, idle: Idle, appendS: number, slowS: number): Promise<HistoryResult> {
  const { size, fx, served, client } = l;
  const perWindow = Math.round((LINES_PER_SECOND * appendS) / APPEND_WINDOWS);
  const lines = perWindow * APPEND_WINDOWS;
  client.reset();
  const appendWindows: CpuWindow[] = [];
  for (let w = 0; w < APPEND_WINDOWS; w += 1) {
    appendWindows.push(
      await cpuOver(served.pid, async () => {
        const t0 = Date.now();
        for (let i = 0; i < perWindow; i += 1) {
          const wait = t0 + (i * 1000) / LINES_PER_SECOND - Date.now();
          if (wait > 0) await sleep(wait);
          const n = w * perWindow + i;
          appendFileSync(fx.hotLog, `[${stamp(new Date())}] tick ${n}: tool_use Read web/lib/file-${n}.ts (${(n * 37) % 500} lines)\n`);
        }
        await sleep(TAIL_MS);
      }),
    );
  }
  const appendBytes = client.bytes;
  const appendEvents = client.tally();
  const appendDrops = client.drops;
  const netPerLine = appendWindows.map((x) => (x.cpuMs - idle.rate * x.wallMs) / perWindow);
  const grossPerLine = appendWindows.map((x) => x.cpuMs / perWindow);
  const cpuPerLineMs = median(netPerLine);
  const append = { wallMs: appendWindows.reduce((a, x) => a + x.wallMs, 0), cpuMs: appendWindows.reduce((a, x) => a + x.cpuMs, 0) };
  const rss = rssMb(served.pid);
  // A line every 125 ms, against the floor of a bare follower of the same lines (8f).
  const slow = await slowAppends(served.pid, fx.hotLog, slowS, `${size.days}d`);
  log(`figure 8: ${size.days} days at ${SLOW_LINES_PER_SECOND} lines/s: ${slow.serveMsPerLine} ms a line, floor ${slow.floorMsPerLine} ms (${slow.ratio} ×)`);

  // One ledger section of 50 findings; count events until the last of them has been sent and
  // serve has been quiet for two seconds.
  const first = size.findings;
  const lastId = `"R-${first + SECTION_ROWS - 1}"`;
  const ids = new Set(Array.from({ length: SECTION_ROWS }, (_, i) => `R-${first + i}`));
  let carrying: string | null = null;
  client.reset();
  client.onFrame = (text) => {
    if (carrying === null && text.includes(lastId)) carrying = text;
  };
  appendFileSync(fx.auditPath, appendedSection(1, first, SECTION_ROWS));
  await until(() => carrying !== null || client.drops > 0, 120_000, `an event carrying R-${first + SECTION_ROWS - 1}`, 20);
  await until(() => Date.now() - client.lastFrameAt > 2000, 30_000, 'serve to fall quiet after the ledger section', 50);
  client.onFrame = null;
  const sectionEventBytes = client.bytes;
  const sectionEvents = client.tally();
  const sectionDrops = client.drops;
  const rssAfterSection = rssMb(served.pid);
  // The 50 findings as serve shapes them: from the event that carried them, else a snapshot.
  let sectionFindings = carrying === null ? [] : findingsIn(JSON.parse(carrying), ids);
  if (sectionFindings.length !== SECTION_ROWS) {
    const snap = (await client.invoke('state.snapshot').catch(() => null)) as SnapshotLike | null;
    sectionFindings = snap ? snap.findings.filter((f) => ids.has(f.id)) : [];
  }
  const sectionFindingsJsonBytes = sectionFindings.length === SECTION_ROWS ? Buffer.byteLength(JSON.stringify(sectionFindings)) : null;

  const idleRates = idle.windows.map((x) => x.cpuMs / x.wallMs);
  const r: HistoryResult = {
    days: size.days,
    followedCycles: fx.followed,
    findings: size.findings,
    transcriptLines: fx.transcriptLines,
    runsMb: round(fx.runsBytes / 1e6, 1),
    generateMs: round(l.generateMs, 0),
    loadMs: l.loadMs,
    // Three decimals: at ~0.1 % of a core, two would move the 365/30-day ratio by up to ±10 %.
    idleCpuPct: round(idle.rate * 100, 3),
    idleWindowsPct: idleRates.map((x) => round(x * 100, 3)),
    settle: idle.settle,
    idleEventBytesPerS: round(idle.eventBytesPerS, 0),
    idleTimers: timerLine(idle.timers),
    idleTimerTable: idle.timers,
    linesAppended: lines,
    appendWindowMs: round(append.wallMs, 0),
    appendCpuMs: append.cpuMs,
    cpuPerLineMs: round(cpuPerLineMs, 3),
    grossCpuPerLineMs: round(median(grossPerLine), 2),
    appendWindowsMsPerLine: netPerLine.map((x) => round(x, 3)),
    eventBytesPerLine: round(appendBytes / lines, 0),
    appendEvents,
    rssMb: rss === null ? null : round(rss, 0),
    sectionEventBytes,
    sectionEvents,
    sectionFindingsJsonBytes,
    sectionRatio: sectionFindingsJsonBytes === null ? null : round(sectionEventBytes / sectionFindingsJsonBytes, 2),
    drops: { idle: idle.drops, append: appendDrops, section: sectionDrops },
    clocks: { idle: clockOf(idle.windows), append: clockOf(appendWindows) },
    rssAfterSectionMb: rssAfterSection === null ? null : round(rssAfterSection, 0),
    slow,
  };
  log(
    `figure 8: ${size.days} days: idle ${r.idleCpuPct} % of a core, ${r.cpuPerLineMs} ms CPU and ${r.eventBytesPerLine} event bytes per line, RSS ${r.rssMb} MB, section ${r.sectionEventBytes} B for ${sectionFindingsJsonBytes} B of findings`,
  );
  return r;
}

const label = (r: HistoryResult): string => `${r.days} d`;

/** Figure 8: cost versus history, the 365-day figure against the 30-day one measured in the same run. */
export async function historyCost(quick: boolean): Promise<Figure[]> {
  // Six idle windows of 20 s, all sizes at once, and three append windows of 15 s each.
  const idleS = quick ? 6 : 120;
  const appendS = quick ? 9 : 45;
  // Seven pairs of 8-s windows (idle, then 64 lines at 8 a second).
  const slowS = quick ? 3 : 8;
  const results: HistoryResult[] = [];
  const failures: string[] = [];
  const fail = (size: Size, err: unknown): void => {
    const message = `${size.days} days: ${(err as Error).message}`;
    log(`figure 8 failed at ${message}`);
    failures.push(message);
  };
  // Every size is loaded first and kept running, so their idle cost is measured together; then
  // each takes its appends in turn (the others idle beside it, ~0.1 % of a core each).
  const running: Loaded[] = [];
  let pastCap: SlowAppends | null = null;
  try {
    for (const size of [...SIZES, PAST_CAP]) {
      try {
        running.push(await load(size));
      } catch (err) {
        fail(size, err);
      }
    }
    const idle = running.length > 0 ? await idleAll(running, idleS) : [];
    for (const [i, l] of running.entries()) {
      const measured = idle[i];
      try {
        if (!measured) throw new Error('no idle measurement');
        if (l.size === PAST_CAP) {
          pastCap = await slowAppends(l.served.pid, l.fx.hotLog, slowS, 'past-cap');
          log(`figure 8: past its cap at ${SLOW_LINES_PER_SECOND} lines/s: ${pastCap.serveMsPerLine} ms a line, floor ${pastCap.floorMsPerLine} ms (${pastCap.ratio} ×)`);
        } else results.push(await appendAndSection(l, measured, appendS, slowS));
      } catch (err) {
        fail(l.size, err);
      }
    }
  } finally {
    for (const l of running) l.client.close();
    await Promise.all(running.map((l) => l.served.stop()));
  }
  const small = results.find((r) => r.days === SIZES[0]?.days) ?? null;
  const large = results.find((r) => r.days === SIZES[SIZES.length - 1]?.days) ?? null;
  const all = results.length === SIZES.length;
  const capped = results.filter((r) => r.followedCycles < r.days);
  const dropped = results.filter((r) => r.drops.idle + r.drops.append + r.drops.section > 0);
  const notes = [
    ...failures.map((f) => `not measured: ${f}`),
    ...dropped.map((r) => `${label(r)}: serve dropped the counting client (idle ${r.drops.idle}, appends ${r.drops.append}, section ${r.drops.section} times): bytes it sent then were not received`),
    ...(capped.length ? [`the config schema caps loops.*.cycles at ${capped[0]?.followedCycles}: ${capped.map((r) => `${r.days} d follows ${r.followedCycles} cycles`).join(', ')}`] : []),
  ];
  const per = (f: (r: HistoryResult) => number | string | null, unit: string): string => results.map((r) => `${label(r)} ${f(r)} ${unit}`).join(', ');
  const row = (id: string, name: string, unit: string, pick: (r: HistoryResult) => number | null, target: string, pass: boolean | null, extraNotes: string[] = []): Figure =>
    figure({
      id,
      name,
      value: large ? pick(large) : null,
      unit,
      baseline: small ? pick(small) : null,
      baselineLabel: `${SIZES[0]?.days}-day history, same run`,
      target,
      pass,
      details: { sizes: results.map((r) => ({ days: r.days, findings: r.findings, value: pick(r) })) },
      notes: [per(pick, unit), ...extraNotes, ...notes],
    });
  const ratio = (pick: (r: HistoryResult) => number | null): number | null => {
    const a = small ? pick(small) : null;
    const b = large ? pick(large) : null;
    return a !== null && b !== null && a > 0 ? b / a : null;
  };
  const idleRatio = ratio((r) => r.idleCpuPct);
  const lineRatio = ratio((r) => r.cpuPerLineMs);
  const unsettled = results.filter((r) => !r.settle.settled);
  const settleNote = `idle: the median of ${IDLE_WINDOWS} windows of ${idleS / IDLE_WINDOWS} s, every size in the same windows, once each serve settled (≥ ${SETTLE_MS / 1000} s, then until ${SETTLE_STEADY} 5-s windows in a row lie within ${SETTLE_BAND_PCT} % of a core, cap ${SETTLE_CAP_MS / 1000} s): settled after ${per((r) => round(r.settle.settleMs / 1000, 0), 's')}${unsettled.length ? `; did not settle within the cap: ${unsettled.map(label).join(', ')}` : ''}`;
  const ticked = results.filter((r) => r.clocks.idle === 'ticks' || r.clocks.append === 'ticks');
  const clockNote = `CPU from each thread's run time in /proc/<pid>/task/*/schedstat (ns)${ticked.length ? `; from /proc's 10 ms ticks where a thread came or went in a window: ${ticked.map((r) => `${label(r)} idle ${r.clocks.idle}, appends ${r.clocks.append}`).join('; ')}` : ''}`;
  const windowNote = `the median of ${APPEND_WINDOWS} windows of ${LINES_PER_SECOND} lines/s for ${appendS / APPEND_WINDOWS} s (+${TAIL_MS / 1000} s tail each), the idle rate over the same time subtracted: ${per((r) => r.appendWindowsMsPerLine.join(' / '), 'ms')}`;
  return [
    figure({
      ...row('8a', `Serve idle CPU vs history (${SIZES.map((s) => `${s.days} d/${s.findings / 1000}k`).join(', ')})`, '% core', (r) => r.idleCpuPct, '≤ 0.2 % of a core at 30 d; 365 d ≤ 1.2 × 30 d', all ? (results[0]?.idleCpuPct ?? Infinity) <= 0.2 && idleRatio !== null && idleRatio <= 1.2 : false),
      details: { results, idleSeconds: idleS, appendSeconds: appendS, linesPerSecond: LINES_PER_SECOND, failures },
      notes: [
        per((r) => r.idleCpuPct, '% core'),
        `idle windows: ${per((r) => r.idleWindowsPct.join(' / '), '% core')}`,
        settleNote,
        clockNote,
        ...results.map((r) => `timers while idle, ${label(r)}: ${r.idleTimers} (CPU of each callback's synchronous part; the reads it starts are not in it)`),
        ...notes,
      ],
    }),
    row('8b', 'Serve CPU per appended transcript line', 'ms', (r) => r.cpuPerLineMs, '≤ 1 ms; 365 d ≤ 1.2 × 30 d', all ? results.every((r) => r.cpuPerLineMs <= 1) && lineRatio !== null && lineRatio <= 1.2 : false, [
      windowNote,
      clockNote,
      `without the idle rate subtracted: ${per((r) => r.grossCpuPerLineMs, 'ms')} (while idle polls are slow, appends ride on polls that run anyway, so the marginal figure can fall as history grows)`,
    ]),
    row('8c', 'Event bytes per appended transcript line', 'B', (r) => r.eventBytesPerLine, '≤ 2 KB', all ? results.every((r) => r.eventBytesPerLine <= 2048 && r.drops.append === 0) : false, [
      `idle event bytes/s: ${per((r) => r.idleEventBytesPerS, 'B/s')}`,
    ]),
    row('8d', 'Serve RSS after the appends', 'MB', (r) => r.rssMb, 'info', null, [`after the ledger section: ${per((r) => r.rssAfterSectionMb, 'MB')}`]),
    slowFigure('8f', `Serve CPU per transcript line at ${SLOW_LINES_PER_SECOND} lines/s (a poll a line), ${SIZES[SIZES.length - 1]?.days} d`, large?.slow ?? null, results, notes),
    slowFigure('8g', `… with the running phase past its cap (${PAST_CAP.days} d, cap ${PAST_CAP.cap})`, pastCap, [], notes),
    figure({
      id: '8e',
      name: `Event bytes for one appended ledger section of ${SECTION_ROWS} findings (${SIZES[SIZES.length - 1]?.days} d)`,
      value: large?.sectionEventBytes ?? null,
      unit: 'B',
      baseline: large?.sectionFindingsJsonBytes ?? null,
      baselineLabel: `JSON of those ${SECTION_ROWS} findings`,
      target: '≤ 2 × its findings',
      pass: all ? results.every((r) => r.sectionRatio !== null && r.sectionRatio <= 2 && r.drops.section === 0) : false,
      details: { sizes: results.map((r) => ({ days: r.days, findings: r.findings, eventBytes: r.sectionEventBytes, findingsJsonBytes: r.sectionFindingsJsonBytes, ratio: r.sectionRatio, events: r.sectionEvents })) },
      notes: [
        `event bytes / findings JSON: ${per((r) => r.sectionRatio, '×')}`,
        ...(small && large && small.sectionEventBytes > 0 ? [`365 d / 30 d: ${round(large.sectionEventBytes / small.sectionEventBytes, 2)}×`] : []),
        ...notes,
      ],
    }),
  ];
}

/**
 * A figure of lines at SLOW_LINES_PER_SECOND against the bare follower's floor measured in the same
 * windows (`slow` is the headline; `results` adds every size's in the notes).
 */
function slowFigure(id: string, name: string, slow: SlowAppends | null, results: readonly HistoryResult[], notes: readonly string[]): Figure {
  const sized = results.filter((r) => r.slow !== null);
  const all = [...sized.map((r) => r.slow), ...(sized.length === 0 ? [slow] : [])];
  const kept = all.every((x) => x !== null && x.floorSaw >= x.lines);
  return figure({
    id,
    name,
    value: slow?.serveMsPerLine ?? null,
    unit: 'ms',
    baseline: slow?.floorMsPerLine ?? null,
    baselineLabel: 'a bare fs.watch + stat + read of the same lines, same windows',
    target: '≤ 1.5 × the floor',
    pass: slow === null ? false : all.every((x) => x !== null && x.ratio !== null && x.ratio <= 1.5) && kept,
    details: { slow, sizes: sized.map((r) => ({ days: r.days, ...r.slow })) },
    notes: [
      ...sized.map((r) => `${r.days} d: ${r.slow?.serveMsPerLine} ms against ${r.slow?.floorMsPerLine} ms (${r.slow?.ratio} ×)`),
      ...(slow ? [`the median of ${SLOW_WINDOWS} append windows, each less the idle rate of an idle window just before it: serve ${slow.serveWindows.join(' / ')} ms, floor ${slow.floorWindows.join(' / ')} ms`] : []),
      ...(kept ? [] : ['the floor did not see every line: its figure is not the floor of these lines']),
      ...notes,
    ],
  });
}
