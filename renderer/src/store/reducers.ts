import type { CommandOutput, EventName, EventPayload } from '../../../shared/contract';
import type {
  AuditMark,
  BacklogItem,
  Capacity,
  Finding,
  HostState,
  Lesson,
  LoopState,
  Problem,
  PullRequest,
  Snapshot,
  Task,
} from '../../../shared/domain';
import { applyCycleDelta, applyKeyedDelta, auditKey, backlogKey, findingKey, lessonKey, taskKey } from '../../../shared/deltas';
import type { NightSummary } from '../../../shared/night-summary';
import { ledgerRowsOf, summaryOf, type LedgerCounts, type LedgerRows, type Summary } from '../../../shared/ledger-slice';
import type { ContractBreach } from '../../../shared/contract-breach';
import type { DeskPr } from '../../../shared/pr-desk';
import type { MaintenanceWindow } from '../../../shared/maintenance';
import type { Preflight } from '../../../shared/preflight';
import { emptyOpsData, opsFromSnapshot, withChangedNotices, withDrillOutput, withRaisedNotice, type OpsData } from './ops';

/** What `app.info` answers. */
export type AppInfo = CommandOutput<'app.info'>;

/**
 * How far the data shown has come, one state at a time:
 * - `empty`: no summary applied yet; nothing to show.
 * - `summary`: a summary is painted; the ledger rows main holds are being read in pages (until
 *   they arrive the lists are empty and `ledgers.changed` deltas wait in the store's buffer).
 * - `restored`: what is shown is the state saved when the app last ran (as of `takenAt`), while
 *   main's first read after its start catches up; a `state.reset` then loads it afresh.
 * - `reading`: what is shown is main's live state while its first read after a start (with no
 *   saved state) has not caught up: possibly incomplete or empty; a `state.reset` follows.
 * - `ready`: the summary and the ledger rows main holds.
 * While `restored` or `reading` no rows are asked for; `rows` says whether those of an earlier
 * load are still held (they stay shown, and deltas apply to them, until new pages replace them).
 */
export type DeckStage =
  | { readonly state: 'empty' }
  | { readonly state: 'summary' }
  | { readonly state: 'restored'; readonly rows: boolean }
  | { readonly state: 'reading'; readonly rows: boolean }
  | { readonly state: 'ready' };

/** A summary has been applied at least once: the views can paint. */
export function summaryShown(stage: DeckStage): boolean {
  return stage.state !== 'empty';
}

/** The ledger rows shown are ones main holds (read in pages after a summary), not the empty lists before the first pages. */
export function ledgersHeld(stage: DeckStage): boolean {
  return stage.state === 'ready' || ((stage.state === 'restored' || stage.state === 'reading') && stage.rows);
}

/** The observable state the console shows, as plain data (no actions). */
export interface DeckData extends OpsData {
  readonly info: AppInfo | null;
  /** `takenAt` of the last snapshot loaded; null before the first. */
  readonly takenAt: string | null;
  /** When the data last changed (snapshot or event), as an ISO time. */
  readonly updatedAt: string | null;
  readonly hosts: readonly HostState[];
  /** Loop names in configured order (the snapshot's), then loops first seen in events. */
  readonly loopNames: readonly string[];
  readonly loops: Readonly<Record<string, LoopState>>;
  readonly problems: readonly Problem[];
  /** Ledger contents: the snapshot's arrays, then changed by deltas (findings can be 60,000 rows). */
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  readonly tasks: readonly Task[];
  readonly lessons: readonly Lesson[];
  readonly audits: readonly AuditMark[];
  /** Delivered pull requests, in main's order (ready, incomplete, pending). */
  readonly prs: readonly PullRequest[];
  /** Inference hosts as last polled, in main's order (grouped by proxy there). */
  readonly capacity: readonly Capacity[];
  /** Each loop's pre-flight before its next fire, while one has run. */
  readonly preflight: readonly Preflight[];
  /** Where the loops broke their manual's rules, in main's order (shared/contract-breach.ts). */
  readonly contract: readonly ContractBreach[];
  /** The merge desk: every open PR of every loop as GitHub has it (shared/pr-desk.ts); empty without GitHub. */
  readonly desk: readonly DeskPr[];
  /** The maintenance windows not over, the config's and the console's (shared/maintenance.ts). */
  readonly maintenance: readonly MaintenanceWindow[];
  /** When the operator last reviewed; findings first seen after it are new. Null: never reviewed. */
  readonly lastReviewedAt: string | null;
  /** Who marked it (null: never, or not known). */
  readonly lastReviewedBy: string | null;
  /** How far the data shown has come (see DeckStage). */
  readonly stage: DeckStage;
  /** The rows each ledger list held at the last summary: what is being loaded. */
  readonly ledgerRows: LedgerCounts | null;
  /** The nights main keeps for Trends (`trends.nights`, then `nights.changed`), by nightKey. */
  readonly nights: Readonly<Record<string, NightSummary>>;
  /** The transcripts open in a view, as main last said they are (`transcript.changed`), by transcriptKey. */
  readonly transcriptTails: Readonly<Record<string, EventPayload<'transcript.changed'>>>;
}

/** The key of a transcript in `transcriptTails`. */
export function transcriptKey(ref: { readonly loop: string; readonly date: string; readonly phase: string }): string {
  return JSON.stringify([ref.loop, ref.date, ref.phase]);
}

/** The key of a kept night in `nights`. */
export const nightKey = (n: { readonly loop: string; readonly date: string }): string => `${n.loop}\u0000${n.date}`;

/** Kept nights added to (or replacing) those known. */
export function withNights(data: DeckData, nights: readonly NightSummary[], over = true): DeckData {
  if (nights.length === 0) return data;
  const added = Object.fromEntries(nights.map((n) => [nightKey(n), n]));
  return { ...data, nights: over ? { ...data.nights, ...added } : { ...added, ...data.nights } };
}

/** Main's first read after its start has not caught up: what is shown waits for its `state.reset`. */
export function awaitingFirstRead(data: Pick<DeckData, 'stage'>): boolean {
  return data.stage.state === 'restored' || data.stage.state === 'reading';
}

/** Main said its first read has not caught up after all (a page answered not ready): shown as reading, with no row counts. */
export function withReading(data: DeckData): DeckData {
  return { ...data, stage: { state: 'reading', rows: ledgersHeld(data.stage) }, ledgerRows: null };
}

/** Nothing loaded yet. */
export const emptyDeckData: DeckData = {
  info: null,
  takenAt: null,
  updatedAt: null,
  hosts: [],
  loopNames: [],
  loops: {},
  problems: [],
  findings: [],
  backlog: [],
  tasks: [],
  lessons: [],
  audits: [],
  prs: [],
  capacity: [],
  preflight: [],
  contract: [],
  desk: [],
  maintenance: [],
  lastReviewedAt: null,
  lastReviewedBy: null,
  stage: { state: 'empty' },
  ledgerRows: null,
  transcriptTails: {},
  nights: {},
  ...emptyOpsData,
};

/** An event that changed the data, and whether the whole state must be fetched again. */
export interface EventEffect {
  readonly data: DeckData;
  readonly refetch: boolean;
  /** A view to show (a location hash, `#/…`): the shell asked for it. */
  readonly navigate?: string;
}

/**
 * Replace everything a summary carries; keeps `info` and the ledger rows held (empty before the
 * first pages; after a resync the old rows stay shown until the new pages replace them).
 */
export function withSummary(data: DeckData, summary: Summary): DeckData {
  return {
    ...data,
    takenAt: summary.takenAt,
    updatedAt: summary.takenAt,
    hosts: summary.hosts,
    loopNames: summary.loops.map((l) => l.name),
    loops: Object.fromEntries(summary.loops.map((l) => [l.name, l])),
    problems: summary.problems,
    prs: summary.prs,
    capacity: summary.capacity,
    preflight: summary.preflight ?? [],
    contract: summary.contract ?? [],
    desk: summary.desk ?? [],
    maintenance: summary.maintenance ?? [],
    lastReviewedAt: summary.lastReviewedAt,
    lastReviewedBy: summary.lastReviewedBy ?? null,
    stage: stageAfterSummary(data.stage, summary),
    // A half-read summary's counts are not what will be loaded: no count rather than a wrong one.
    ledgerRows: summary.reading ? null : summary.ledgerRows,
    ...opsFromSnapshot(data, summary),
  };
}

/** The stage once a summary is applied: the rows held (if any) stay held until new pages replace them. */
function stageAfterSummary(stage: DeckStage, summary: Summary): DeckStage {
  const rows = ledgersHeld(stage);
  if (summary.restored === true) return { state: 'restored', rows };
  if (summary.reading === true) return { state: 'reading', rows };
  return rows ? { state: 'ready' } : { state: 'summary' };
}

/** Replace the ledger rows with those main holds (the pages read after a summary). */
export function withLedgers(data: DeckData, rows: LedgerRows): DeckData {
  const stage: DeckStage = data.stage.state === 'restored' || data.stage.state === 'reading' ? { ...data.stage, rows: true } : { state: 'ready' };
  return { ...data, ...ledgerRowsOf(rows), stage };
}

/** Replace everything a snapshot carries; keeps `info`. */
export function withSnapshot(data: DeckData, snapshot: Snapshot): DeckData {
  return withLedgers(withSummary(data, summaryOf(snapshot)), snapshot);
}

/** Replace (or add) one loop, keeping the others and their order. */
export function withLoop(data: DeckData, loop: LoopState): DeckData {
  const known = Object.prototype.hasOwnProperty.call(data.loops, loop.name);
  return {
    ...data,
    loops: { ...data.loops, [loop.name]: loop },
    loopNames: known ? data.loopNames : [...data.loopNames, loop.name],
  };
}

/** How one event changes the data: from the data, the event's payload and the time now (ISO). */
export type EventReducer<E extends EventName> = (data: DeckData, payload: EventPayload<E>, now: string) => EventEffect;

/** The data changed by an event: `updatedAt` moves to `now`. */
const changed = (data: DeckData, now: string): EventEffect => ({ data: { ...data, updatedAt: now }, refetch: false });

/**
 * One reducer for each event of the contract (shared/contract.ts `events`), and only those: the
 * type makes an event without a reducer, or a reducer for no event, a compile error.
 */
const REDUCERS: { readonly [E in EventName]: EventReducer<E> } = {
  'loop.changed': (data, { loop: name, host, upserted, removed, deadman }, now) => {
    const before = data.loops[name] ?? { name, host, cycles: [], deadman: null };
    const loop = { ...before, host, cycles: applyCycleDelta(before.cycles, upserted, removed), deadman: deadman === undefined ? before.deadman : deadman };
    return changed(withLoop(data, loop), now);
  },
  'hosts.changed': (data, { hosts }, now) => changed({ ...data, hosts }, now),
  'problems.changed': (data, { problems }, now) => changed({ ...data, problems }, now),
  'config.changed': (data, { config, demo }, now) => {
    const info = data.info ? { ...data.info, config, demo } : null;
    return { data: { ...data, info, updatedAt: now }, refetch: true };
  },
  // Deltas of one loop's ledgers: only the rows that changed are touched (20,000 findings stay).
  // Before the rows are loaded there is nothing to apply them to: the store replays them over
  // the pages when those arrive.
  'ledgers.changed': (data, d, now) => {
    if (!ledgersHeld(data.stage)) return { data, refetch: false };
    return changed(
      {
        ...data,
        findings: applyKeyedDelta(data.findings, d.findings, findingKey),
        backlog: applyKeyedDelta(data.backlog, d.backlog, backlogKey),
        tasks: applyKeyedDelta(data.tasks, d.tasks, taskKey),
        lessons: applyKeyedDelta(data.lessons, d.lessons, lessonKey),
        audits: applyKeyedDelta(data.audits, d.audits, auditKey),
      },
      now,
    );
  },
  // Too many rows changed for a delta: the rows are read again (summary, then pages). Not while
  // main's first read runs: it sends this for every ledger it reports, and the `state.reset`
  // that ends that read loads everything once.
  'ledgers.reset': (data) => ({ data, refetch: !awaitingFirstRead(data) }),
  // Main's first read after its start has caught up (what was shown was the saved state, or a
  // partly read one).
  'state.reset': (data) => ({ data, refetch: true }),
  'prs.changed': (data, { prs }, now) => changed({ ...data, prs }, now),
  'nights.changed': (data, { upserted }, now) => changed(withNights(data, upserted), now),
  'capacity.changed': (data, { capacity }, now) => changed({ ...data, capacity }, now),
  'preflight.changed': (data, { preflight }, now) => changed({ ...data, preflight }, now),
  'contract.changed': (data, { contract }, now) => changed({ ...data, contract }, now),
  'desk.changed': (data, { desk }, now) => changed({ ...data, desk }, now),
  'maintenance.changed': (data, { maintenance }, now) => changed({ ...data, maintenance }, now),
  'notices.changed': (data, { notices, lastReviewedAt, lastReviewedBy }, now) =>
    changed({ ...data, ...withChangedNotices(data, notices), lastReviewedAt, lastReviewedBy: lastReviewedBy ?? null }, now),
  'notice.raised': (data, payload, now) => changed({ ...data, ...withRaisedNotice(data, payload) }, now),
  'drills.changed': (data, { runs }, now) => changed({ ...data, drillRuns: runs }, now),
  // Output is not a change of the state: `updatedAt` stays.
  'drill.output': (data, payload) => ({ data: { ...data, ...withDrillOutput(data, payload) }, refetch: false }),
  // The desktop shell asks to show a view (a notification was clicked); nothing in the data changes.
  'app.navigate': (data, { hash }) => ({ data, refetch: false, navigate: hash }),
  // A transcript open in a view grew, shrank or was replaced: the view reads what it shows.
  'transcript.changed': (data, payload) => ({ data: { ...data, transcriptTails: { ...data.transcriptTails, [transcriptKey(payload)]: payload } }, refetch: false }),
};

/** Apply one validated event. `now` stamps `updatedAt`. */
export function reduceEvent<E extends EventName>(data: DeckData, event: E, payload: EventPayload<E>, now: string): EventEffect {
  const reduce: EventReducer<E> = REDUCERS[event];
  return reduce(data, payload, now);
}
