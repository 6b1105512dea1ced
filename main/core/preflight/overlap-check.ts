import type { Cycle } from '../../../shared/domain';
import { preflightCheck, type PreflightCheck } from '../../../shared/preflight';
import { formatDuration } from '../config/duration';
import type { LoopConfig } from '../config/schema';
import { fireTimes } from '../loops/deadman';

// Another loop on the same runner over tonight's window (issue "Night against night", item 3):
// two loops whose windows overlap share the host's cores and memory, and a phase starved of them
// fails for the runner, not the agent. Each loop's window is its fire plus how long it usually
// takes: the median of its last finished cycles, else its last one, else its cap.

/** Finished cycles the typical duration is the median of (the newest). */
export const TYPICAL_OF = 7;
/** Finished cycles needed for a median; with fewer, the last one's duration is used. */
export const TYPICAL_MIN = 3;
/** Fires of another loop looked at inside one window, at most (a loop firing every minute says so at the first). */
const MAX_FIRES = 500;

/** How long a loop's cycle is taken to run, and what that comes from. */
export interface LoopDuration {
  readonly ms: number;
  readonly from: 'typical' | 'last' | 'cap';
  /** Finished cycles it was worked out from (0 for the cap). */
  readonly cycles: number;
}

/** Another loop configured on the same host, as the check needs it. */
export interface Neighbour {
  readonly loop: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly capMs: number;
  readonly duration: LoopDuration;
  /** When its cycle running now started (ms); null when none is running. */
  readonly runningSince: number | null;
}

/** What the check reads: this loop's fire and duration, and the other loops on its host. */
export interface OverlapInput {
  readonly duration: LoopDuration;
  readonly neighbours: readonly Neighbour[];
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** A cycle's span: its earliest phase start to its latest phase end (ms); null unless it finished with both known. */
function cycleSpan(c: Cycle): { start: number; end: number } | null {
  if (c.status === 'running' || c.status === 'pending') return null;
  const starts = c.phases.map((p) => Date.parse(p.startedAt ?? '')).filter((t) => !Number.isNaN(t));
  const ends = c.phases.map((p) => Date.parse(p.endedAt ?? '')).filter((t) => !Number.isNaN(t));
  if (starts.length === 0 || ends.length === 0) return null;
  const start = Math.min(...starts);
  const end = Math.max(...ends);
  return end > start ? { start, end } : null;
}

/** How long a loop's cycle takes: the median of its last TYPICAL_OF finished cycles, else its last one, else its cap. */
export function loopDuration(cycles: readonly Cycle[], capMs: number): LoopDuration {
  const spans = cycles
    .map(cycleSpan)
    .filter((s): s is { start: number; end: number } => s !== null)
    .sort((a, b) => b.start - a.start)
    .slice(0, TYPICAL_OF)
    .map((s) => s.end - s.start);
  if (spans.length === 0) return { ms: capMs, from: 'cap', cycles: 0 };
  if (spans.length < TYPICAL_MIN) return { ms: spans[0] ?? capMs, from: 'last', cycles: spans.length };
  const sorted = [...spans].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { ms: Math.round(median), from: 'typical', cycles: spans.length };
}

/** How a duration was found, for a person: `typically 3h (median of its last 5 cycles)`. */
function durationText(d: LoopDuration): string {
  if (d.from === 'typical') return `typically ${formatDuration(d.ms)} (median of its last ${d.cycles} cycles)`;
  if (d.from === 'last') return `${formatDuration(d.ms)} as its last cycle took`;
  return `up to its cap of ${formatDuration(d.ms)} (no finished cycle to go by)`;
}

/** The start of a cycle of `loop` running now (its earliest phase start, ms), or null. */
export function runningSince(cycles: readonly Cycle[]): number | null {
  const running = cycles.find((c) => c.status === 'running');
  if (!running) return null;
  const starts = running.phases.map((p) => Date.parse(p.startedAt ?? '')).filter((t) => !Number.isNaN(t));
  return starts.length ? Math.min(...starts) : null;
}

/** The other loops configured on `loop`'s host, with how long each takes and whether one runs now. */
export function neighboursOf(loop: string, loops: Readonly<Record<string, LoopConfig>>, cyclesOf: (loop: string) => readonly Cycle[]): Neighbour[] {
  const host = loops[loop]?.host;
  return Object.entries(loops)
    .filter(([name, l]) => name !== loop && l.host === host)
    .map(([name, l]) => {
      const cycles = cyclesOf(name);
      return { loop: name, schedule: l.schedule, timezone: l.timezone, capMs: l.cap, duration: loopDuration(cycles, l.cap), runningSince: runningSince(cycles) };
    });
}

/** The first fire of another loop whose window (the fire plus its duration) overlaps `from`–`to`, or null. */
function firstOverlap(n: Neighbour, from: number, to: number): number | null {
  let t = from - n.duration.ms;
  for (let i = 0; i < MAX_FIRES; i++) {
    let next: number | null;
    try {
      next = fireTimes(n.schedule, n.timezone, new Date(t)).next;
    } catch {
      return null; // an invalid schedule is the config's to report
    }
    if (next === null || next >= to) return null;
    if (next + n.duration.ms > from) return next;
    t = next;
  }
  return null;
}

/**
 * Warn when another loop on the same host is scheduled (or already running and expected) to run
 * during tonight's fire of this loop, naming it, when and for how long; ok when none is; null when
 * the loop has the host to itself (no check is shown, as `deliver-record` without a record).
 */
export function overlapCheck(input: { readonly loop: string; readonly hostName: string; readonly fireAt: number; readonly now: Date; readonly overlap?: OverlapInput | undefined }): PreflightCheck | null {
  const o = input.overlap;
  if (!o || o.neighbours.length === 0) return null;
  const { loop, hostName: host, fireAt } = input;
  const end = fireAt + o.duration.ms;
  const ours = `tonight's window of ${loop} (${clock(fireAt)} to about ${clock(end)}, ${durationText(o.duration)})`;
  const hits: string[] = [];
  for (const n of o.neighbours) {
    if (n.runningSince !== null) {
      // Past its usual length it can run until its cap: the end it could reach is what matters.
      const expected = n.runningSince + n.duration.ms > input.now.getTime() ? n.runningSince + n.duration.ms : n.runningSince + n.capMs;
      if (expected > fireAt) {
        hits.push(`loop ${n.loop} (also on host ${host}) is running now, since ${clock(n.runningSince)}, and, ${durationText(n.duration)}, may run until about ${clock(expected)}, into ${ours}`);
        continue;
      }
    }
    const at = firstOverlap(n, fireAt, end);
    if (at !== null) hits.push(`loop ${n.loop} (also on host ${host}) fires at ${clock(at)} and, ${durationText(n.duration)}, runs until about ${clock(at + n.duration.ms)}, inside ${ours}`);
  }
  if (hits.length > 0) return preflightCheck('overlap', 'warn', `${hits.join('; ')}: they share ${host}'s cores and memory, so move one schedule apart`);
  return preflightCheck('overlap', 'ok', `no other loop on host ${host} (${o.neighbours.map((n) => n.loop).join(', ')}) is scheduled inside ${ours}`);
}
