import type { Cycle, FailureCause, LoopState, Phase, PhaseStatus, Stage, Step, Verdict } from '../../../shared/domain';
import type { PhaseRecord } from '../text/line-parser';
import { combineSuites, type SuiteLineAt, type SuiteResult } from '../../../shared/suite-summary';

/** Everything read about one phase of one cycle: the records of its files and the files' times. */
export interface PhaseEvidence {
  /** The loop's name (verdicts must name it). */
  readonly loop: string;
  /** The phase's name, e.g. `audit`. */
  readonly phase: string;
  /** Records of `<phase>.status`, in file order ([] when there is no file). */
  readonly statusRecords: readonly PhaseRecord[];
  /** Records of `<phase>.log` ([] when there is no file). */
  readonly logRecords: readonly PhaseRecord[];
  /** One entry per `<phase>.<stage>.rc`, sorted by stage. */
  /** Each rc file's records and its time (ms; null when not known): a done stage ended then. */
  readonly stages: readonly { readonly stage: string; readonly records: readonly PhaseRecord[]; readonly mtimeMs?: number | null }[];
  readonly hasLog: boolean;
  readonly hasStatus: boolean;
  /** ISO: the earliest time among this phase's files (null when there are none). */
  readonly firstFileTime: string | null;
  /** ISO: the latest mtime among this phase's files. */
  readonly lastFileTime: string | null;
}

/** What a wrapper stamp's STATUS means: a start, an outcome, or text we do not know. */
export type StampMeaning =
  | { readonly kind: 'started' }
  | { readonly kind: 'final'; readonly status: PhaseStatus; readonly resumable?: true }
  | { readonly kind: 'unknown' };

/** Statuses that are an outcome (the phase is over), as opposed to pending or running. */
export const FINAL_STATUSES: ReadonlySet<PhaseStatus> = new Set<PhaseStatus>(['ok', 'no-op', 'ready', 'incomplete', 'failed']);

// Urgency order of FORMATS.md §2.4; ok outranks no-op so that a tie between them reads `ok`.
const URGENCY: Readonly<Record<PhaseStatus, number>> = { failed: 6, incomplete: 5, running: 4, ready: 3, ok: 2, 'no-op': 1, pending: 0 };

/**
 * Classify a stamp's STATUS text (FORMATS.md §2.1): exit code 75 is resumable, so incomplete, and
 * marked `resumable` (the next fire resumes it) to tell it from a plain `INCOMPLETE`.
 */
export function readStamp(status: string): StampMeaning {
  const s = status.trim();
  if (/^STARTED\b/i.test(s)) return { kind: 'started' };
  if (/^OK\b/i.test(s)) return { kind: 'final', status: 'ok' };
  if (/^NO-OP\b/i.test(s)) return { kind: 'final', status: 'no-op' };
  if (/^INCOMPLETE\b/i.test(s)) return { kind: 'final', status: 'incomplete' };
  const failed = /^FAILED\b(?:[\s:]*(-?\d+))?/i.exec(s);
  if (failed) return failed[1] !== undefined && Number(failed[1]) === 75 ? { kind: 'final', status: 'incomplete', resumable: true } : { kind: 'final', status: 'failed' };
  const green = /^(\d+)\s*PR\(s\)\s+green\b/i.exec(s);
  if (green) return { kind: 'final', status: Number(green[1]) >= 1 ? 'ready' : 'ok' };
  if (/^\d+\s*PR\(s\),\s*nothing to merge\b/i.test(s)) return { kind: 'final', status: 'ok' };
  return { kind: 'unknown' };
}

interface OwnStamp {
  readonly at: string;
  readonly status: string;
  readonly detail: string[];
}

/** This phase's stamps in order, each with the detail lines under it. */
function ownStamps(records: readonly PhaseRecord[], phase: string): OwnStamp[] {
  const out: OwnStamp[] = [];
  let cur: OwnStamp | null = null;
  for (const r of records) {
    if (r.kind === 'stamp') {
      cur = r.phase === phase ? { at: r.at, status: r.status, detail: [] } : null;
      if (cur) out.push(cur);
    } else if (r.kind === 'detail' && cur) {
      cur.detail.push(r.text);
    }
  }
  return out;
}

function toIso(s: string): string | null {
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function duration(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  const h = Math.floor(min / 60);
  if (h === 0) return `${min}m`;
  return min % 60 === 0 ? `${h}h` : `${h}h ${min % 60}m`;
}

/**
 * Whether a verdict counts for this phase: it names this loop, a NO-OP names this phase, and a
 * deliver verdict only ever counts in the deliver phase (FORMATS.md §2.2).
 */
function counts(v: Verdict, ev: PhaseEvidence): boolean {
  if (v.loop !== ev.loop) return false;
  return v.kind === 'no-op' ? v.phase === ev.phase : ev.phase === DELIVER_PHASE;
}

/**
 * The transcript's declaration: its last verdict-shaped line, if that is its last non-blank line
 * and counts for this phase; with notes on what was seen and not counted (a verdict for another
 * loop or phase, a malformed last line, verdict-shaped lines with output after them: prose).
 */
function declaration(ev: PhaseEvidence): { readonly verdict: Verdict | null; readonly notes: readonly string[] } {
  let last: PhaseRecord | undefined;
  let withdrawn = 0;
  for (const r of ev.logRecords) {
    if (r.kind === 'after-verdict') withdrawn += 1;
    if (r.kind === 'verdict' || r.kind === 'not-verdict' || r.kind === 'after-verdict') last = r;
  }
  const notes: string[] = [];
  if (withdrawn > 0) notes.push(`${withdrawn} verdict-shaped line(s) had output after them (prose, not a declaration)`);
  if (last?.kind === 'not-verdict') notes.push(`the transcript's last line ${last.text} ${last.why}; not counted`);
  if (last?.kind !== 'verdict') return { verdict: null, notes };
  const v = last.verdict;
  if (counts(v, ev)) return { verdict: v, notes: [] };
  const names = v.kind === 'no-op' ? `loop ${v.loop}, phase ${v.phase ?? '?'}` : `loop ${v.loop}'s deliver`;
  notes.push(`the transcript's last line is a verdict for ${names}, not this phase's; not counted`);
  return { verdict: null, notes };
}

function verdictStatus(v: Verdict): { status: PhaseStatus; reason: string } {
  if (v.kind === 'no-op') return { status: 'no-op', reason: `NO-OP verdict in the transcript${v.reason ? `: ${v.reason}` : ''}` };
  if (v.kind === 'deliver-ready') {
    const n = v.prs ?? v.urls.length;
    return { status: 'ready', reason: `deliver READY verdict in the transcript (${n} PR(s))` };
  }
  return { status: 'incomplete', reason: `deliver INCOMPLETE verdict in the transcript${v.check ? ` (check ${v.check})` : ''}` };
}

/** A stage from its rc file: steps in first-planned order, the last assignment of a name wins. */
export function deriveStage(stage: string, records: readonly PhaseRecord[], mtimeMs: number | null = null): Stage {
  const order: string[] = [];
  const values = new Map<string, number | null>();
  let done = false;
  for (const r of records) {
    if (r.kind === 'rc') {
      if (!values.has(r.name)) order.push(r.name);
      values.set(r.name, r.rc);
      // A placeholder after DONE means the stage was started again and has not finished yet.
      if (r.rc === null) done = false;
    } else if (r.kind === 'done') {
      done = true;
    }
  }
  const steps: Step[] = order.map((name) => ({ name, rc: values.get(name) ?? null }));
  const stoppedAt = done ? null : (steps.find((s) => s.rc === null)?.name ?? null);
  // A done stage's rc file was last written by its DONE: the file's time is when the stage ended,
  // to the second (an SSH host's `stat` gives whole seconds; the same tree read locally must agree).
  return { name: stage, done, stoppedAt, steps, ...(done && mtimeMs !== null && Number.isFinite(mtimeMs) ? { endedAt: new Date(Math.floor(mtimeMs / 1000) * 1000).toISOString() } : {}) };
}

interface Decision {
  readonly status: PhaseStatus;
  readonly reason: string;
  readonly detail: readonly string[];
  readonly endStamp: OwnStamp | null;
  /** Decided by the phase's cap: no outcome by then. */
  readonly capHit?: boolean;
  /** Decided by a `FAILED 75` stamp: the next fire resumes the phase (see PhaseSchema.resumable). */
  readonly resumable?: true;
  /** A deliver stamped OK without a verdict line (see PhaseSchema.noVerdict). */
  readonly noVerdict?: boolean;
}

/** The phase whose verdict is READY or INCOMPLETE (FORMATS.md §2.2). */
export const DELIVER_PHASE = 'deliver';

/** A phase's status from its evidence, strongest first (FORMATS.md §2.4). */
/**
 * What a bad phase's own files tell of its cause (see FailureCauseSchema): the disk was full (the
 * transcript or the wrapper said so), or its cap was hit; else the agent. The engine may put it
 * down to the runner's host or the fleet instead (main/core/loops/attribution.ts).
 */
function runnerCause(ev: PhaseEvidence, decision: Decision, capMs: number): FailureCause {
  const full = ev.logRecords.find((r) => r.kind === 'disk-full');
  const fullDetail = decision.detail.find((d) => /No space left on device|ENOSPC/.test(d));
  if (full?.kind === 'disk-full' || fullDetail) {
    const where = full?.kind === 'disk-full' ? `line ${full.line} of ${ev.phase}.log` : 'the wrapper';
    const text = full?.kind === 'disk-full' ? full.text : (fullDetail ?? '');
    return { kind: 'runner', what: 'disk-full', subject: null, since: null, until: null, detail: `the runner's disk was full: ${where} says "${text}"` };
  }
  if (decision.capHit) return { kind: 'runner', what: 'cap', subject: null, since: null, until: null, detail: `the phase ran into its ${duration(capMs)} cap with no outcome` };
  return AGENT_CAUSE;
}

/** No fault of the runner or the fleet was found: the agent's own doing. */
export const AGENT_CAUSE: FailureCause = { kind: 'agent', what: null, subject: null, since: null, until: null, detail: 'the runner and the fleet it uses showed no fault: the agent stopped short' };

export function derivePhase(ev: PhaseEvidence, now: Date, capMs: number): Phase {
  const stamps = ownStamps(ev.statusRecords, ev.phase);
  const stages = ev.stages.map((s) => deriveStage(s.stage, s.records, s.mtimeMs ?? null));
  const declared = declaration(ev);
  const verdict = declared.verdict;
  const firstStarted = stamps.find((s) => readStamp(s.status).kind === 'started') ?? null;
  // Continuation rounds: the wrapper stamps STARTED again when it resumes a phase (exit 75).
  const rounds = stamps.filter((s) => readStamp(s.status).kind === 'started').length;
  const startMs = Date.parse(firstStarted?.at ?? ev.firstFileTime ?? '');
  const ageMs = now.getTime() - startMs; // NaN when the start is unknown: treated as young
  const young = !(ageMs >= capMs);

  const decision = decide();
  const final = FINAL_STATUSES.has(decision.status);
  let startedAt: string | null = null;
  let startFrom: 'stamps' | 'files' | null = null;
  if (decision.status !== 'pending') {
    if (firstStarted) [startedAt, startFrom] = [toIso(firstStarted.at), 'stamps'];
    else if (ev.firstFileTime) [startedAt, startFrom] = [toIso(ev.firstFileTime), 'files'];
  }
  let endedAt: string | null = null;
  let endFrom: 'stamps' | 'files' | null = null;
  if (final) {
    if (decision.endStamp) [endedAt, endFrom] = [toIso(decision.endStamp.at), 'stamps'];
    else if (ev.lastFileTime) [endedAt, endFrom] = [toIso(ev.lastFileTime), 'files'];
  }
  // Any time read from a file marks the pair as file times: the UI must not present them as stamps.
  const timesFrom = startFrom === 'files' || endFrom === 'files' ? 'files' : (startFrom ?? endFrom);
  return {
    name: ev.phase,
    status: decision.status,
    startedAt,
    endedAt,
    timesFrom: startedAt === null && endedAt === null ? null : timesFrom,
    detail: decision.detail,
    stages,
    verdict,
    reason: decision.reason,
    ...(rounds > 1 ? { rounds } : {}),
    ...(decision.resumable ? { resumable: true as const } : {}),
    ...(decision.noVerdict ? { noVerdict: true as const } : {}),
    ...(decision.status === 'failed' || decision.status === 'incomplete' ? { cause: runnerCause(ev, decision, capMs) } : {}),
    ...suitesOf(ev.logRecords),
  };

  function decide(): Decision {
    const last = stamps.at(-1);
    const meaning = last ? readStamp(last.status) : null;
    if (last && meaning?.kind === 'final') {
      // "An exit-0 deliver phase without the line is INCOMPLETE": OK is the wrapper's exit 0, not a verdict.
      if (ev.phase === DELIVER_PHASE && /^OK\b/i.test(last.status.trim()) && verdict?.kind !== 'deliver-ready' && verdict?.kind !== 'deliver-incomplete') {
        return { status: 'incomplete', reason: `wrapper stamp ${last.status}, but the transcript does not end with a READY or INCOMPLETE verdict line (an exit-0 deliver without it is INCOMPLETE)`, detail: last.detail, endStamp: last, noVerdict: true };
      }
      return { status: meaning.status, reason: `wrapper stamp ${last.status}`, detail: last.detail, endStamp: last, ...(meaning.resumable ? { resumable: true as const } : {}) };
    }
    if (verdict) return { ...verdictStatus(verdict), detail: [], endStamp: null };
    const notes: string[] = [];
    if (last && meaning?.kind === 'unknown') notes.push(`unrecognised wrapper stamp "${last.status}" (not decisive)`);
    notes.push(...declared.notes);
    const withNotes = (status: PhaseStatus, reason: string): Decision => ({
      status,
      reason: [reason, ...notes].join('; '),
      detail: [],
      endStamp: null,
    });

    const open = stages.find((s) => !s.done);
    if (open) {
      const where = open.stoppedAt ? `at ${open.stoppedAt}` : 'after the last step';
      if (young) return withNotes('running', `stage ${open.name} ${where}, no DONE yet`);
      return { ...withNotes('incomplete', `stage ${open.name} stopped ${where} (no DONE) past the ${duration(capMs)} cap`), capHit: true };
    }
    for (const s of stages) {
      const bad = s.steps.find((step) => step.rc !== null && step.rc !== 0);
      if (bad) return withNotes('failed', `stage ${s.name} DONE with ${bad.name}_rc=${bad.rc}`);
    }

    const what: string[] = [];
    if (firstStarted) what.push('STARTED stamp');
    else if (stamps.length > 0 || ev.hasStatus) what.push('status file');
    if (ev.hasLog) what.push('transcript');
    if (stages.length > 0) what.push('rc file');
    if (what.length === 0) return withNotes('pending', 'no evidence yet');
    const evidence = what.join(', ');
    if (young) return withNotes('running', `${evidence}, no outcome yet${Number.isNaN(ageMs) ? '' : ` (${duration(ageMs)} in)`}`);
    return { ...withNotes('incomplete', `${evidence} but no outcome after ${duration(ageMs)} (cap ${duration(capMs)})`), capHit: true };
  }
}

/** A cycle's status: the most urgent of its phases', except that an unfinished cycle is not ok. */
export function deriveCycle(date: string, phases: readonly Phase[], now: Date, capMs: number): Cycle {
  let status: PhaseStatus = 'pending';
  for (const p of phases) if (URGENCY[p.status] > URGENCY[status]) status = p.status;
  // All finished phases so far read well, but a later phase has not started: the cycle is still
  // going (the wrapper runs phases in order) until the cap says it never will.
  if (URGENCY[status] < URGENCY.running && status !== 'pending') {
    const firstFinished = phases.findIndex((p) => FINAL_STATUSES.has(p.status));
    const laterPending = phases.some((p, i) => i > firstFinished && p.status === 'pending');
    if (firstFinished !== -1 && laterPending) {
      const starts = phases.map((p) => Date.parse(p.startedAt ?? '')).filter((t) => !Number.isNaN(t));
      const ageMs = starts.length === 0 ? NaN : now.getTime() - Math.min(...starts);
      status = ageMs >= capMs ? 'incomplete' : 'running';
    }
  }
  return { date, status, phases };
}

/** A running phase of a loop on `host`, described for a person (a drill asks before it runs), or null. */
export function runningPhaseOn(loops: Iterable<LoopState>, host: string): string | null {
  for (const loop of loops) {
    if (loop.host !== host) continue;
    for (const cycle of loop.cycles) {
      const phase = cycle.phases.find((p) => p.status === 'running');
      if (phase) return `${loop.name} ${cycle.date} ${phase.name}`;
    }
  }
  return null;
}

/** The suites a transcript's suite records make (shared/suite-summary.ts), as a field to spread: none, no field. */
function suitesOf(records: readonly PhaseRecord[]): { suites?: SuiteResult[] } {
  const lines: SuiteLineAt[] = [];
  for (const r of records) if (r.kind === 'suite') lines.push({ line: r.line, parsed: r.suite });
  const suites = lines.length === 0 ? [] : combineSuites(lines);
  return suites.length === 0 ? {} : { suites };
}
