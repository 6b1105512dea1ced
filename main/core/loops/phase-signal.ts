import type { PhaseSignal, PhaseStatus } from '../../../shared/domain';
import { stripEscapes } from '../../../shared/transcript-text';

// What a running phase's files tell (issue 28, item 6): hung, spinning, the watchdog's kill; hung
// also for a phase without a transcript, from its stamps and rc files (issue 43, item 12).
// Everything here is computed from what the follower already keeps — every phase file's mtime,
// the transcript's line count, the marks and a small window of line hashes fed while the file is
// read — never by reading the file again.

/** How many of a transcript's newest lines the repetition window holds. */
export const REPEAT_WINDOW = 64;
/** The fewest lines in the window before it says anything (a transcript's first lines are not a loop). */
export const REPEAT_MIN_LINES = 32;
/** Share of the window's lines that repeat one before it (1 − distinct/lines) from which it is spinning. */
export const REPEAT_ON = 0.75;
/** ... and below which it stops (hysteresis, so a window on the edge does not flap). */
export const REPEAT_OFF = 0.5;
/** The characters of a line hashed: a line is known by its start. */
const HASH_CHARS = 256;
/** A watchdog kill counts while it is among the transcript's last this many lines (the agent died there). */
export const WATCHDOG_TAIL = 50;

/**
 * FNV-1a over a line's first HASH_CHARS characters, digits left out: a retry printing its attempt
 * number or a clock is still the same line.
 */
export function lineHash(text: string): number {
  let h = 0x811c9dc5;
  const n = Math.min(text.length, HASH_CHARS);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) continue;
    h ^= c;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The window's verdict while it repeats: at which line, since when, how much, and a sample. */
export interface Repetition {
  /** The newest line when the window was first seen repeating (one of the repeats). */
  readonly line: number;
  /** When (ms, the file's mtime as followed) it was first seen repeating. */
  readonly sinceMs: number;
  /** Share of the window's lines that repeat an earlier one, then. */
  readonly share: number;
  /** How many lines the window held then. */
  readonly lines: number;
  /** That newest line, escape sequences stripped, cut short. */
  readonly sample: string;
}

/**
 * The newest REPEAT_WINDOW lines of one transcript, fed line by line as the follower reads it and
 * judged once per read (`settle`): a line costs one array store, and only the window's newest
 * lines are hashed (a backlog of millions of lines hashes 64), so following is not slowed. Memory
 * is bounded (64 hashes; between feed and settle, references to the read's last 64 lines). Kept
 * in memory only: after a restart it fills again from the lines that follow.
 */
export class RepeatTracker {
  private readonly texts: (string | null)[] = new Array<string | null>(REPEAT_WINDOW).fill(null);
  private readonly hashes = new Uint32Array(REPEAT_WINDOW);
  private filled = 0;
  private next = 0;
  /** Lines fed since the last settle (at most the window). */
  private pending = 0;
  private lastLine = 0;
  private current: Repetition | null = null;
  /** Whether `current` turned on or off since the last `takeChanged`. */
  private changed = false;

  /** One line read from the transcript. A line number not after the last one is a reread from 0 (truncated or replaced). */
  feed(text: string, lineNo: number): void {
    if (lineNo <= this.lastLine) this.clear();
    this.lastLine = lineNo;
    this.texts[this.next] = text;
    this.next = (this.next + 1) % REPEAT_WINDOW;
    if (this.filled < REPEAT_WINDOW) this.filled += 1;
    if (this.pending < REPEAT_WINDOW) this.pending += 1;
  }

  /** After a read: hash its newest lines and judge the window, `atMs` being the file's mtime as followed. */
  settle(atMs: number): void {
    if (this.pending === 0) return;
    const newest = this.texts[(this.next + REPEAT_WINDOW - 1) % REPEAT_WINDOW] ?? '';
    for (let k = 1; k <= this.pending; k++) {
      const i = (this.next + REPEAT_WINDOW - k) % REPEAT_WINDOW;
      this.hashes[i] = lineHash(this.texts[i] ?? '');
      this.texts[i] = null;
    }
    this.pending = 0;
    if (this.filled < REPEAT_MIN_LINES) return;
    // Before the ring wraps its lines are 0..filled-1; after, all of it.
    const share = 1 - new Set(this.hashes.subarray(0, this.filled)).size / this.filled;
    if (this.current === null && share >= REPEAT_ON) {
      const sample = stripEscapes(newest.slice(0, 400)).slice(0, 120);
      this.current = { line: this.lastLine, sinceMs: atMs, share, lines: this.filled, sample };
      this.changed = true;
    } else if (this.current !== null && share < REPEAT_OFF) {
      this.current = null;
      this.changed = true;
    }
  }

  /** The repetition going on now, or null. */
  repeating(): Repetition | null {
    return this.current;
  }

  /** Whether it started or stopped repeating since the last call. */
  takeChanged(): boolean {
    const c = this.changed;
    this.changed = false;
    return c;
  }

  private clear(): void {
    if (this.current !== null) this.changed = true;
    this.current = null;
    this.texts.fill(null);
    this.filled = 0;
    this.next = 0;
    this.pending = 0;
  }
}

/** The last watchdog kill line seen in a transcript. */
export interface WatchdogKill {
  readonly line: number;
  readonly text: string;
  /** When (ms) it was seen: the transcript's mtime when that line was read. */
  readonly atMs: number;
}

/** One file of a phase as followed (its stamps, an rc file, its transcript) and when it last grew. */
export interface SeenFile {
  /** The file's name in its cycle folder, e.g. `remediate.gates.rc`. */
  readonly name: string;
  /** Its mtime as followed (ms; null: not known). */
  readonly mtimeMs: number | null;
}

/** The most files a hung signal's detail names one by one (a phase has a few). */
const FILES_NAMED = 8;

/** What the signals of one phase are computed from. */
export interface SignalEvidence {
  readonly status: PhaseStatus;
  /** Every file of the phase read so far, transcript and rc files included: a phase is hung only when none grew for `silence`. */
  readonly files: readonly SeenFile[];
  /** The transcript as followed (null: there is none yet). */
  readonly transcript: { readonly lines: number; readonly mtimeMs: number | null } | null;
  /** The newest mtime among the phase's rc files (null: none): an rc step written. */
  readonly rcChangedMs: number | null;
  /** The phase's start (ms), if known: without an rc file, no step advanced since then. */
  readonly startedMs: number | null;
  readonly repetition: Repetition | null;
  readonly watchdog: WatchdogKill | null;
  /** The loop's `silence` (ms). */
  readonly silenceMs: number;
  readonly nowMs: number;
}

/** A phase's signal now, and the next moment (ms) the clock alone can change it (Infinity: none). */
export interface SignalOutcome {
  readonly signal: PhaseSignal | null;
  readonly dueMs: number;
}

const NONE: SignalOutcome = { signal: null, dueMs: Infinity };

function minutes(ms: number): string {
  const min = Math.max(0, Math.floor(ms / 60_000));
  const h = Math.floor(min / 60);
  if (h === 0) return `${min}m`;
  return min % 60 === 0 ? `${h}h` : `${h}h ${min % 60}m`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The files seen and when each last grew, newest first, for a hung signal's detail. */
function filesSaid(files: readonly SeenFile[], transcript: boolean): string {
  const newest = [...files].sort((a, b) => (b.mtimeMs ?? Number.NEGATIVE_INFINITY) - (a.mtimeMs ?? Number.NEGATIVE_INFINITY) || a.name.localeCompare(b.name));
  const named = newest.slice(0, FILES_NAMED).map((f) => `${f.name} (last grew ${f.mtimeMs === null ? 'at an unknown time' : iso(f.mtimeMs)})`);
  if (files.length > FILES_NAMED) named.push(`${files.length - FILES_NAMED} more`);
  const seen = named.length > 0 ? `files seen: ${named.join(', ')}` : 'no file of it read yet';
  return transcript ? seen : `${seen}; no transcript`;
}

/**
 * A running phase's signal, strongest first: the watchdog killed the agent (its kill line among
 * the last WATCHDOG_TAIL lines); hung (none of the phase's files — stamps, rc files, transcript —
 * grew for `silence`, with or without a transcript); spinning (the transcript grew within
 * `silence`, no rc step for `silence`, and its newest lines repeat). Null for any other status.
 * Times are the host's (file mtimes) against `now`.
 */
export function phaseSignal(ev: SignalEvidence): SignalOutcome {
  if (ev.status !== 'running') return NONE;
  const t = ev.transcript;
  const lines = t?.lines ?? 0;
  const lastLine = lines > 0 ? lines : null;
  const wd = ev.watchdog;
  if (t !== null && wd && lines - wd.line < WATCHDOG_TAIL) {
    return { signal: { kind: 'watchdog', line: wd.line, since: iso(wd.atMs), detail: `the stream watchdog killed the agent at line ${wd.line}: ${wd.text}` }, dueMs: Infinity };
  }
  const outputMs = t?.mtimeMs ?? null;
  // No rc step advanced since the newest rc write, or (without one) since the phase started.
  const rcFrom = Math.max(ev.rcChangedMs ?? Number.NEGATIVE_INFINITY, ev.startedMs ?? Number.NEGATIVE_INFINITY);
  const rcQuiet = Number.isFinite(rcFrom) ? ev.nowMs - rcFrom >= ev.silenceMs : true;
  const rcSaid = Number.isFinite(rcFrom) ? `no rc step since ${iso(rcFrom)}` : 'no rc step';
  // The newest growth of any of its files (or its start): nothing moved since.
  const grew = [outputMs, rcFrom, ...ev.files.map((f) => f.mtimeMs)].filter((x): x is number => x !== null && Number.isFinite(x));
  if (grew.length === 0) return NONE;
  const quietFrom = Math.max(...grew);
  const silence = `past the loop's silence of ${minutes(ev.silenceMs)}`;
  if (ev.nowMs - quietFrom >= ev.silenceMs) {
    const seen = filesSaid(ev.files, t !== null);
    if (outputMs === null) {
      const at = t === null ? '' : lastLine === null ? '; the transcript has no line yet' : `; last line ${lastLine}`;
      return { signal: { kind: 'hung', line: lastLine, since: iso(quietFrom), detail: `nothing grew in any file of the phase since ${iso(quietFrom)}, ${silence}${at}; ${seen}` }, dueMs: Infinity };
    }
    const at = lastLine === null ? 'it has no line yet' : `last line ${lastLine}`;
    return {
      signal: { kind: 'hung', line: lastLine, since: iso(outputMs), detail: `no new output since ${iso(outputMs)} and ${rcSaid}, ${silence}; ${at}; nothing grew in any file of the phase since ${iso(quietFrom)}; ${seen}` },
      dueMs: Infinity,
    };
  }
  // Not hung: it turns hung at quietFrom + silence unless something moves first.
  const hungAt = quietFrom + ev.silenceMs;
  const rep = ev.repetition;
  if (outputMs === null || rep === null) return { signal: null, dueMs: hungAt };
  if (!rcQuiet) return { signal: null, dueMs: Math.min(hungAt, rcFrom + ev.silenceMs) };
  const pct = Math.round(rep.share * 100);
  return {
    signal: { kind: 'spinning', line: rep.line, since: iso(rep.sinceMs), detail: `the same lines repeat (${pct}% of the last ${rep.lines} lines at line ${rep.line}) and ${rcSaid}: "${rep.sample}"` },
    dueMs: hungAt,
  };
}
