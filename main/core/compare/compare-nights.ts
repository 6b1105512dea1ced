import { posix } from 'node:path';
import type { BacklogItem, Cycle, CycleStatus, FailureCause, Finding, Phase, Stage } from '../../../shared/domain';
import { closedNight, openedNight } from '../../../shared/finding-nights';
import {
  COMPARE_COMMITS_SHOWN,
  COMPARE_MAX_BYTES,
  COMPARE_MAX_IDS,
  COMPARE_MAX_LINES,
  firstDivergence,
  keptLine,
  suiteDeltas,
  type FleetWindow,
  type LineDivergence,
  type NightComparison,
  type NightFindings,
  type PhaseComparison,
  type PhaseSide,
  type RcDivergence,
} from '../../../shared/night-compare';
import { messageOf } from '../../../shared/errors';
import type { LoopConfig } from '../config/schema';
import { markCommits } from '../contract/phase-commits';
import { parseReflogLine, reflogPath, type ReflogEntry } from '../loops/branch-reflog';
import { readOldNight } from '../nights/old-night';
import { derivePullRequests } from '../prs/pull-requests';
import { FileReadError, type DirEntry, type FileSource } from '../sources/file-source';
import { classifyCycleFiles, isCycleFolder } from '../text/cycle-layout';
import type { NightFleet } from './night-fleet';
import { NO_LINES, transcriptLines, type TranscriptLines } from './transcript-lines';

// Two nights of one loop side by side (issue "Night against night", item 4): each night's cycle
// derived by the rules a followed one is (old-night.ts: FORMATS.md §2.4), the first rc step and the
// first transcript line where they part, the findings each opened and closed, its PRs and the
// fleet over its window. Transcripts are streamed from their start a chunk at a time and only as
// far as the first divergence (or the bounds): a gigabyte remediate costs what it takes to part.

/** How far back the last good night is looked for (nights read from files at most). */
export const LAST_GOOD_LOOKBACK = 60;
/** Bytes of a night's branch reflog read (git writes one line a move: a night is a few dozen). */
export const REFLOG_MAX_BYTES = 1024 * 1024;

/** A night that cannot be compared: the message names the loop, the date, the host and the folder, and what to do. */
export class NightCompareError extends Error {
  override readonly name = 'NightCompareError';
}

/** The loop's ledgers as last read (the findings and the backlog their DONE dates come from). */
export interface CompareLedgers {
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
}

/** What a comparison reads. */
export interface CompareNightsOptions {
  readonly loop: string;
  readonly config: LoopConfig;
  /** The loop's runner host. */
  readonly source: FileSource;
  /** The capacity history; null: no fleet windows. */
  readonly fleet: NightFleet | null;
  readonly now: Date;
  readonly a: string;
  /** Default: the last night before `a` whose cycle was ok or ready. */
  readonly b?: string;
  /** A night's cycle as the engine follows it (causes put down, commits marked), when it is in the followed window. */
  readonly cycleOf?: (date: string) => Cycle | undefined;
  /** A night's status as kept for Trends (the `nights` table), when it has a row: the last-good search reads no files for it. */
  readonly keptStatus?: (date: string) => CycleStatus | null;
  /** Who a bad phase of a night read from its files is put down to (as Trends' old nights are); without it, what its files tell. */
  readonly causeOf?: (phase: Phase, now: Date) => FailureCause;
  /** The loop's ledgers; null or absent when not read (then `findings` is null). */
  readonly ledgers?: CompareLedgers | null;
  readonly maxLines?: number;
  readonly maxBytes?: number;
  /** Bytes a transcript read asks the host for at once (tests make it small). */
  readonly chunkBytes?: number;
}

/** One night as the comparison reads it. */
interface Night {
  readonly date: string;
  readonly cycle: Cycle;
  /** The folder's files by name. */
  readonly files: ReadonlyMap<string, DirEntry>;
}

/** Compare two nights of a loop (see NightComparison). Throws a NightCompareError naming what is missing. */
export async function compareNights(o: CompareNightsOptions): Promise<NightComparison> {
  const notes: string[] = [];
  const maxLines = o.maxLines ?? COMPARE_MAX_LINES;
  const maxBytes = o.maxBytes ?? COMPARE_MAX_BYTES;
  checkDate(o, o.a);
  if (o.b !== undefined) checkDate(o, o.b);
  if (o.b === o.a) throw new NightCompareError(`Loop ${o.loop}: both nights are ${o.a}; name two different nights.`);
  const a = await readNight(o, o.a, notes);
  const bDate = o.b ?? (await lastGoodBefore(o, o.a));
  const b = await readNight(o, bDate, notes);
  const phases: PhaseComparison[] = [];
  for (const name of o.config.phases) phases.push(await comparePhase(o, name, a, b, { maxLines, maxBytes }, notes));
  const fleetOf = (n: Night): FleetWindow | null => {
    const w = nightWindow(n.cycle, o.now);
    if (!w || !o.fleet) return null;
    try {
      return o.fleet.window(w.from, w.to, o.now.getTime());
    } catch (err) {
      // A damaged data folder is the store's to report; the comparison goes on without the fleet.
      notes.push(`Night ${n.date}: the fleet's history could not be read (${messageOf(err)}).`);
      return null;
    }
  };
  return {
    loop: o.loop,
    host: o.source.host,
    a: { date: a.date, status: a.cycle.status },
    b: { date: b.date, status: b.cycle.status },
    picked: o.b === undefined ? 'last-good' : 'given',
    phases,
    findings: o.ledgers ? { a: nightFindings(o.loop, a.date, o.ledgers), b: nightFindings(o.loop, b.date, o.ledgers) } : null,
    prs: { a: prsOf(o, a.cycle), b: prsOf(o, b.cycle) },
    fleet: { a: fleetOf(a), b: fleetOf(b) },
    bounds: { maxLines, maxBytes },
    notes,
  };
}

function checkDate(o: CompareNightsOptions, date: string): void {
  if (!isCycleFolder(date)) throw new NightCompareError(`Loop ${o.loop}: ${JSON.stringify(date)} is not a night's date (YYYY-MM-DD).`);
}

const folderOf = (o: CompareNightsOptions, date: string): string => posix.join(o.config.runs, date);

/** A night's folder listing and its cycle: followed, else derived from its files (its commits from the reflog). */
async function readNight(o: CompareNightsOptions, date: string, notes: string[]): Promise<Night> {
  const dir = folderOf(o, date);
  const missing = (): NightCompareError =>
    new NightCompareError(`Loop ${o.loop} has no night ${date}: there is no folder ${o.source.host}:${dir} (the loop did not run that night, or its folder was removed; config key loops.${o.loop}.runs).`);
  let listing;
  try {
    listing = await o.source.list(dir);
  } catch (err) {
    if (err instanceof FileReadError) throw new NightCompareError(`Loop ${o.loop}, night ${date}: ${o.source.host}:${dir} cannot be read: ${err.message}`);
    throw err;
  }
  if (listing === null) throw missing();
  const files = new Map(listing.entries.filter((e) => !e.isDirectory).map((e) => [e.name, e]));
  const followed = o.cycleOf?.(date);
  if (followed) return { date, cycle: followed, files };
  const read = await readOldNight(o.source, o.loop, o.config, date, o.now);
  if (read === null) throw missing();
  const causeOf = o.causeOf;
  const attributed = causeOf ? { ...read, phases: read.phases.map((p) => (p.cause ? { ...p, cause: causeOf(p, o.now) } : p)) } : read;
  const entries = await readReflog(o, date, notes);
  const [cycle = attributed] = markCommits([attributed], () => entries);
  return { date, cycle, files };
}

/** The night's branch reflog (FORMATS.md §2.7), its first REFLOG_MAX_BYTES; [] without a clone or a reflog. */
async function readReflog(o: CompareNightsOptions, date: string, notes: string[]): Promise<ReflogEntry[]> {
  const path = reflogPath(o.config, date);
  if (path === null) return [];
  try {
    const stat = await o.source.stat(path);
    if (stat === null || stat.kind !== 'file') return [];
    const buf = await o.source.read(path, 0, Math.min(stat.size, REFLOG_MAX_BYTES));
    if (stat.size > REFLOG_MAX_BYTES) notes.push(`Night ${date}: only the first ${REFLOG_MAX_BYTES} bytes of its reflog ${o.source.host}:${path} were read.`);
    // What follows the last newline is no line (git ends each with one): empty, or cut by the bound.
    const lines = buf.toString('utf8').split('\n').slice(0, -1);
    return lines.map((text, i) => parseReflogLine(text, i + 1)).filter((e): e is ReflogEntry => e !== null);
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    notes.push(`Night ${date}: its reflog ${o.source.host}:${path} could not be read (${err.message}); its commits are not shown.`);
    return [];
  }
}

/**
 * The last night before `date` whose cycle was `ok` or `ready` and none of whose phases declared
 * NO-OP (else the last good one with a NO-OP), newest first: its status as followed, else as kept
 * for Trends (its phases not known there: taken as worked), else derived from its files (at most
 * LAST_GOOD_LOOKBACK of those).
 */
async function lastGoodBefore(o: CompareNightsOptions, date: string): Promise<string> {
  const runs = o.config.runs;
  const names = o.source.dirs ? ((await o.source.dirs(runs))?.entries ?? null) : ((await o.source.list(runs))?.entries.filter((e) => e.isDirectory).map((e) => e.name) ?? null);
  if (names === null) throw new NightCompareError(`Loop ${o.loop}: its runs folder ${o.source.host}:${runs} does not exist (config key loops.${o.loop}.runs).`);
  const before = names.filter((d) => isCycleFolder(d) && d < date).sort().reverse();
  let read = 0;
  // A good night where a phase declared NO-OP did less than the night compared (no remediate, no
  // suite): the newest good night where every phase worked is preferred, that one the fallback.
  let idleGood: string | null = null;
  for (const d of before) {
    const followed = o.cycleOf?.(d);
    let status = followed?.status ?? keptStatus(o, d);
    let phases = followed?.phases ?? null;
    if (status === null) {
      if (read >= LAST_GOOD_LOOKBACK) break;
      read += 1;
      const old = await readOldNight(o.source, o.loop, o.config, d, o.now);
      status = old?.status ?? null;
      phases = old?.phases ?? null;
    }
    if (status !== 'ok' && status !== 'ready') continue;
    if (phases === null || !phases.some((p) => p.status === 'no-op')) return d;
    idleGood ??= d;
  }
  if (idleGood !== null) return idleGood;
  const looked = read >= LAST_GOOD_LOOKBACK ? ` (looked back through ${LAST_GOOD_LOOKBACK} nights read from their files)` : '';
  throw new NightCompareError(
    `Loop ${o.loop}: no night before ${date} ended ok or ready${before.length === 0 ? ` (no night before it in ${o.source.host}:${runs})` : looked}; name the night to compare it with.`,
  );
}

/** A night's status as kept for Trends; null when it has no row, or the store cannot be read (its files are read instead). */
function keptStatus(o: CompareNightsOptions, date: string): CycleStatus | null {
  try {
    return o.keptStatus?.(date) ?? null;
  } catch {
    return null;
  }
}

/** Each phase's status, times, rounds, cause and commits on a night. */
function sideOf(p: Phase, transcriptBytes: number | null): PhaseSide {
  const from = p.startedAt ? Date.parse(p.startedAt) : NaN;
  const to = p.endedAt ? Date.parse(p.endedAt) : NaN;
  const commits = p.commits ?? [];
  return {
    status: p.status,
    reason: p.reason,
    startedAt: p.startedAt,
    endedAt: p.endedAt,
    durationMs: Number.isFinite(from) && Number.isFinite(to) && to >= from ? to - from : null,
    rounds: p.rounds ?? (p.status === 'pending' ? 0 : 1),
    cause: p.cause ? { kind: p.cause.kind, detail: p.cause.detail } : null,
    commits: { count: commits.length, first: commits.slice(0, COMPARE_COMMITS_SHOWN).map((c) => ({ sha: c.sha, message: c.message })) },
    transcriptBytes,
    ...(p.suites && p.suites.length > 0 ? { suites: p.suites } : {}),
  };
}

/** The first rc step, in plan order, whose value differs between the nights (see RcDivergenceSchema). */
export function rcDivergence(a: readonly Stage[], b: readonly Stage[]): RcDivergence | null {
  const stages = [...new Set([...a.map((s) => s.name), ...b.map((s) => s.name)])];
  for (const stage of stages) {
    const sa = a.find((s) => s.name === stage);
    const sb = b.find((s) => s.name === stage);
    const steps = [...new Set([...(sa?.steps ?? []).map((s) => s.name), ...(sb?.steps ?? []).map((s) => s.name)])];
    for (const step of steps) {
      const ra = sa?.steps.find((s) => s.name === step)?.rc ?? null;
      const rb = sb?.steps.find((s) => s.name === step)?.rc ?? null;
      if (ra !== rb) return { stage, step, a: ra, b: rb };
    }
  }
  return null;
}

/** A phase's transcript in a night's folder (by the loop's layout), or null. */
function transcriptOf(o: CompareNightsOptions, night: Night, phase: string): { path: string; size: number } | null {
  const file = classifyCycleFiles([...night.files.keys()], [phase], o.config.layout).find((f) => f.kind === 'log' && f.phase === phase);
  const entry = file && night.files.get(file.name);
  if (!file || !entry || entry.stat.kind !== 'file') return null;
  return { path: posix.join(folderOf(o, night.date), file.name), size: entry.stat.size };
}

/** Lines counted as they are read. */
async function* counted(lines: AsyncIterable<string>, count: { n: number }): AsyncGenerator<string> {
  for await (const line of lines) {
    count.n += 1;
    yield line;
  }
}

async function comparePhase(
  o: CompareNightsOptions,
  name: string,
  a: Night,
  b: Night,
  bounds: { maxLines: number; maxBytes: number },
  notes: string[],
): Promise<PhaseComparison> {
  const pa = a.cycle.phases.find((p) => p.name === name);
  const pb = b.cycle.phases.find((p) => p.name === name);
  const ta = transcriptOf(o, a, name);
  const tb = transcriptOf(o, b, name);
  const open = (t: { path: string; size: number } | null): TranscriptLines =>
    t === null ? NO_LINES : transcriptLines(o.source, t.path, t.size, { maxBytes: bounds.maxBytes, ...(o.chunkBytes ? { chunkBytes: o.chunkBytes } : {}) });
  const la = open(ta);
  const lb = open(tb);
  const count = { n: 0 };
  let firstLine: LineDivergence | null = null;
  let transcript: PhaseComparison['transcript'] = { lines: 0, stopped: null };
  try {
    const d = await firstDivergence(counted(la, count), lb, { maxLines: bounds.maxLines });
    const cut = la.cut !== null || lb.cut !== null;
    if (d === null) transcript = { lines: count.n, stopped: cut ? 'bytes' : null };
    else if (d.kind === 'bound') transcript = { lines: d.index, stopped: 'lines' };
    else if (d.kind === 'ended' && (d.ended === 'a' ? la : lb).cut !== null) transcript = { lines: d.index, stopped: 'bytes' };
    else {
      transcript = { lines: d.index, stopped: null };
      firstLine = { lineA: d.index + 1, lineB: d.index + 1, a: keptLine(d.a), b: keptLine(d.b) };
    }
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    notes.push(`Phase ${name}: the transcripts could not be compared: ${messageOf(err)}`);
  }
  if (transcript.stopped === 'lines') notes.push(`Phase ${name}: the transcripts agree for their first ${bounds.maxLines} lines; no more were compared.`);
  if (transcript.stopped === 'bytes') notes.push(`Phase ${name}: the transcripts agree as far as the first ${bounds.maxBytes} bytes of each were read; no more were compared.`);
  const suites = suiteDeltas(pa?.suites ?? [], pb?.suites ?? []);
  return {
    name,
    a: pa ? sideOf(pa, ta?.size ?? null) : null,
    b: pb ? sideOf(pb, tb?.size ?? null) : null,
    firstRcDivergence: rcDivergence(pa?.stages ?? [], pb?.stages ?? []),
    firstLineDivergence: firstLine,
    transcript,
    ...(suites.length > 0 ? { suites } : {}),
  };
}

/** The findings a night opened and closed, by the rules Trends counts them with (shared/finding-nights.ts). */
export function nightFindings(loop: string, date: string, ledgers: CompareLedgers): NightFindings {
  const backlog = new Map(ledgers.backlog.filter((b) => b.loop === loop).map((b) => [`${b.loop}\u0000${b.id}`, b]));
  const opened: string[] = [];
  const closed: string[] = [];
  for (const f of ledgers.findings) {
    if (f.loop !== loop) continue;
    if (openedNight(f) === date && !opened.includes(f.id)) opened.push(f.id);
    if (closedNight(f, backlog) === date && !closed.includes(f.id)) closed.push(f.id);
  }
  return { opened: opened.slice(0, COMPARE_MAX_IDS), closed: closed.slice(0, COMPARE_MAX_IDS), openedTotal: opened.length, closedTotal: closed.length };
}

/** The PR URLs a night's deliver verdict or stamp named (the PR list's own rules, on this night alone). */
function prsOf(o: CompareNightsOptions, cycle: Cycle): string[] {
  return derivePullRequests({ loop: o.loop, cycles: [cycle], deliverRecord: null, now: o.now }).map((p) => p.url);
}

/** A night's window: its first phase's start to its last phase's end (now for one still running); null without times. */
export function nightWindow(cycle: Cycle, now: Date): { from: number; to: number } | null {
  let from = Infinity;
  let to = -Infinity;
  for (const p of cycle.phases) {
    const start = p.startedAt ? Date.parse(p.startedAt) : NaN;
    const end = p.endedAt ? Date.parse(p.endedAt) : p.status === 'running' ? now.getTime() : start;
    if (Number.isFinite(start)) from = Math.min(from, start);
    if (Number.isFinite(end)) to = Math.max(to, end);
  }
  return Number.isFinite(from) && Number.isFinite(to) && to >= from ? { from, to } : null;
}
