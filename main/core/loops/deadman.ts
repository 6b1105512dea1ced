import { CronExpressionParser } from 'cron-parser';
import type { Cycle, Deadman, DeadmanState } from '../../../shared/domain';
import type { MaintenanceMark } from '../../../shared/maintenance';
import { ownEntry } from '../config/schema';
import { messageOf } from '../../../shared/errors';

/** What the dead-man needs to know about one loop: its schedule, limits, cycles and the time. */
export interface DeadmanInput {
  /** Five-field cron expression, read in `timezone`. */
  readonly schedule: string;
  /** IANA time zone of the runner, e.g. `America/New_York`. */
  readonly timezone: string;
  readonly graceMs: number;
  readonly capMs: number;
  /** Per-phase caps (`caps`), overriding `capMs` for the phases they name. */
  readonly capsMs?: Readonly<Record<string, number>>;
  /** Newest first, as the loop follower returns them. */
  readonly cycles: readonly Cycle[];
  readonly now: Date;
  /**
   * The maintenance window in the loop's scope a fire time (epoch ms) fell in, or null: a fire
   * inside one that left no cycle is neither late nor missed (see deadmanAt).
   */
  readonly maintenance?: (fireMs: number) => MaintenanceMark | null;
}

/** The fire times around a moment: the last at or before it and the next after it (epoch ms). */
export interface FireTimes {
  readonly last: number | null;
  readonly next: number | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Wall-clock fire times are searched this far either side of now: more than any DST shift.
const MARGIN = 3 * HOUR;
const MAX_STEPS = 5_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch (err) {
      throw new Error(`invalid time zone "${tz}"`, { cause: err });
    }
    formatters.set(tz, f);
  }
  return f;
}

/**
 * Wall-clock times already worked out, by zone and instant: the dead-man asks for the same last
 * fire's date and clock on every poll, and `formatToParts` is the costliest step of that.
 */
const walls = new Map<string, number>();
const WALLS_MAX = 512;

/** The wall-clock time in `tz` at an instant, expressed as if that wall time were UTC (ms). */
function wallOf(ms: number, tz: string): number {
  const key = `${tz}\u0001${ms}`;
  const known = walls.get(key);
  if (known !== undefined) return known;
  const wall = computeWallOf(ms, tz);
  if (walls.size >= WALLS_MAX) walls.clear();
  walls.set(key, wall);
  return wall;
}

function computeWallOf(ms: number, tz: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const at = (k: string): number => parts[k] ?? 0;
  return Date.UTC(at('year'), at('month') - 1, at('day'), at('hour') % 24, at('minute'), at('second')) + (ms % 1000 + 1000) % 1000;
}

/**
 * The instant of a wall-clock time in `tz`, resolved like Temporal's `compatible` (and RFC 5545):
 * a repeated time (fall back) is its first occurrence; a time in a gap (spring forward) is moved
 * forward by the length of the gap (02:30 that does not exist is 03:30 after the jump).
 */
function instantOf(wall: number, tz: string): number {
  const before = wall - wallOf(wall - DAY, tz) + (wall - DAY); // wall minus the offset a day earlier
  const after = wall - wallOf(wall + DAY, tz) + (wall + DAY);
  const valid = [before, after].filter((t) => wallOf(t, tz) === wall);
  if (valid.length > 0) return Math.min(...valid);
  return before;
}

function parseCron(schedule: string, from: number) {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`invalid cron schedule "${schedule}": expected five fields`);
  try {
    return CronExpressionParser.parse(fields.join(' '), { currentDate: new Date(from), tz: 'UTC' });
  } catch (err) {
    throw new Error(`invalid cron schedule "${schedule}": ${messageOf(err)}`, { cause: err });
  }
}

/**
 * The schedule's fire times around `now` in `tz`. The cron is evaluated on wall-clock time, so a
 * fixed time fires once a day across DST changes: never twice when clocks fall back, and still
 * once (later by the gap) when clocks spring forward over it. Throws on an invalid cron or zone.
 */
export function fireTimes(schedule: string, tz: string, now: Date): FireTimes {
  // The answer holds from the last fire up to the next: the engine asks every second, and parsing
  // the cron and walking wall-clock time costs milliseconds, so reuse it while it holds.
  const key = `${tz}\u0001${schedule}`;
  const nowMs = now.getTime();
  const known = fireCache.get(key);
  if (known && known.last !== null && known.last <= nowMs && (known.next === null || nowMs < known.next)) return known;
  const found = computeFireTimes(schedule, tz, now);
  if (fireCache.size > 256) fireCache.clear();
  fireCache.set(key, found);
  return found;
}

const fireCache = new Map<string, FireTimes>();

function computeFireTimes(schedule: string, tz: string, now: Date): FireTimes {
  const nowMs = now.getTime();
  const wallNow = wallOf(nowMs, tz);
  let last: number | null = null;
  const back = parseCron(schedule, wallNow + MARGIN);
  for (let i = 0; i < MAX_STEPS; i++) {
    let wall: number;
    try {
      wall = back.prev().getTime();
    } catch {
      break; // no earlier fire: the schedule has never fired
    }
    const t = instantOf(wall, tz);
    if (t <= nowMs && (last === null || t > last)) last = t;
    if (wall < wallNow - MARGIN && last !== null) break;
  }
  let next: number | null = null;
  const fwd = parseCron(schedule, wallNow - MARGIN);
  for (let i = 0; i < MAX_STEPS; i++) {
    let wall: number;
    try {
      wall = fwd.next().getTime();
    } catch {
      break;
    }
    const t = instantOf(wall, tz);
    if (t > nowMs && (next === null || t < next)) next = t;
    if (wall > wallNow + MARGIN && next !== null) break;
  }
  return { last, next };
}

/** `YYYY-MM-DD` of an instant in `tz`. */
function dateIn(ms: number, tz: string): string {
  return new Date(wallOf(ms, tz)).toISOString().slice(0, 10);
}

/** `HH:MM` of an instant in `tz`. */
function clockIn(ms: number, tz: string): string {
  return new Date(wallOf(ms, tz)).toISOString().slice(11, 16);
}

function duration(ms: number): string {
  const min = Math.max(0, Math.round(ms / MINUTE));
  const h = Math.floor(min / 60);
  if (h === 0) return `${min}m`;
  return min % 60 === 0 ? `${h}h` : `${h}h ${min % 60}m`;
}

function hasEvidence(c: Cycle): boolean {
  return c.phases.some((p) => p.status !== 'pending' || p.startedAt !== null);
}

function earliestStart(c: Cycle): number | null {
  const starts = c.phases.map((p) => Date.parse(p.startedAt ?? '')).filter((t) => !Number.isNaN(t));
  return starts.length === 0 ? null : Math.min(...starts);
}

/** The latest end among a cycle's phases (epoch ms), null when none has one. */
function latestEnd(c: Cycle): number | null {
  const ends = c.phases.map((p) => Date.parse(p.endedAt ?? '')).filter((t) => !Number.isNaN(t));
  return ends.length === 0 ? null : Math.max(...ends);
}

/** A loop's dead-man state at `now` (FORMATS.md §2.5). Throws on an invalid cron or time zone. */
export function deriveDeadman(input: DeadmanInput): Deadman {
  return deadmanAt(input).deadman;
}

/**
 * A loop's dead-man state at `now`, and until when (epoch ms) the clock alone leaves it as it is:
 * the next fire, the grace's end, a running cycle's or phase's cap; a stalled loop's reason says
 * for how long in minutes, so it holds until that figure moves. Only new cycles change it sooner.
 * Throws as deriveDeadman.
 */
export function deadmanAt(input: DeadmanInput): { deadman: Deadman; until: number } {
  const { schedule, timezone: tz, graceMs, capMs, cycles, now } = input;
  const { last, next } = fireTimes(schedule, tz, now);
  const nowMs = now.getTime();
  const expectedAt = next === null ? null : new Date(next).toISOString();
  const nextFire = next ?? Number.POSITIVE_INFINITY;
  const result = (state: DeadmanState, reason: string, until = nextFire, maintenance?: MaintenanceMark): { deadman: Deadman; until: number } => ({
    deadman: { state, expectedAt, lastFireAt: last === null ? null : new Date(last).toISOString(), reason, ...(maintenance ? { maintenance } : {}) },
    until: Math.min(until, nextFire),
  });
  if (last === null) return result('ok', `the schedule "${schedule}" has not fired yet`);

  const date = dateIn(last, tz);
  const fired = `fired ${clockIn(last, tz)} ${tz}`;
  const cycle = cycles.find((c) => c.date === date);
  if (!cycle || !hasEvidence(cycle)) {
    const previous = cycles.filter((c) => c.date < date).reduce<Cycle | null>((a, c) => (a === null || c.date > a.date ? c : a), null);
    if (previous?.status === 'running') {
      return result('overrun', `cycle ${previous.date} is still running past the ${clockIn(last, tz)} ${tz} fire, so ${date} has not started`);
    }
    // One that has finished since swallowed the fire all the same when it was running at T: it
    // began before T and its end came after. An end after now (a host clock ahead, file times
    // from elsewhere) is not believed until the clock reaches it: then it is looked at again.
    const ended = previous === null ? null : latestEnd(previous);
    const swallowed = previous !== null && ended !== null && ended > last && (earliestStart(previous) ?? last) <= last;
    if (swallowed && ended <= nowMs) {
      return result('overrun', `cycle ${previous.date} was still running at the ${clockIn(last, tz)} ${tz} fire (it ended ${dateIn(ended, tz)} ${clockIn(ended, tz)}, ${previous.status}), so ${date} had no cycle`);
    }
    const recheck = swallowed ? ended : Number.POSITIVE_INFINITY;
    // A fire inside a maintenance window in the loop's scope was not expected to run: the state
    // stays `ok` (no new state for every reader of it: the tray, /metrics, the rules), the reason
    // and the mark say why, until the next fire (the window it fell in does not move).
    const maintenance = input.maintenance?.(last) ?? null;
    if (maintenance) {
      const end = Date.parse(maintenance.until);
      return result('ok', `in maintenance (${maintenance.reason}): no cycle for ${date} (${fired}, inside the window until ${dateIn(end, tz)} ${clockIn(end, tz)} ${tz})`, recheck, maintenance);
    }
    const deadline = last + graceMs;
    if (nowMs < deadline) {
      return result('late', `no cycle for ${date} yet (${fired}, grace until ${clockIn(deadline, tz)})`, Math.min(deadline, recheck));
    }
    return result('missed', `no cycle for ${date} by ${clockIn(deadline, tz)} ${tz} (${fired}, grace ${duration(graceMs)})`, recheck);
  }
  // A running cycle turns stalled once an age passes its cap (`age > cap`: the millisecond after).
  let stallsAt = Number.POSITIVE_INFINITY;
  if (cycle.status === 'running') {
    // A running phase named under `caps` is held to its own cap, from its own start; the cycle
    // as a whole (between phases, or in a phase without its own cap) to the loop's `cap`.
    const own = (name: string): number | null => (input.capsMs ? (ownEntry(input.capsMs, name) ?? null) : null);
    // Its reason says for how long in whole minutes (`duration`): it holds until that figure moves,
    // half a minute past a whole one, not a second (a loop stalled for hours was derived again
    // every second, and every such loop of a hundred hosts with it).
    const stalled = (reason: string, from: number) => result('stalled', reason, from + (Math.round((nowMs - from) / MINUTE) + 0.5) * MINUTE);
    const running = cycle.phases.filter((p) => p.status === 'running');
    for (const p of running) {
      const cap = own(p.name);
      if (cap === null) continue;
      const started = Date.parse(p.startedAt ?? '');
      const from = Number.isNaN(started) ? (earliestStart(cycle) ?? last) : started;
      const age = nowMs - from;
      if (age > cap) return stalled(`cycle ${date} ${p.name} is still running after ${duration(age)} (its cap ${duration(cap)})`, from);
      stallsAt = Math.min(stallsAt, from + cap + 1);
    }
    if (running.length === 0 || running.some((p) => own(p.name) === null)) {
      const start = earliestStart(cycle) ?? last;
      const age = nowMs - start;
      if (age > capMs) return stalled(`cycle ${date} is still running after ${duration(age)} (cap ${duration(capMs)})`, start);
      stallsAt = Math.min(stallsAt, start + capMs + 1);
    }
  }
  return result('ok', `cycle ${date} started (${fired}); it is ${cycle.status}`, stallsAt);
}
