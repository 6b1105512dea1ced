import { latestTasks, taskStatus, type BacklogItem, type Drill, type DrillRun, type Finding, type LogOutcome, type LoopState, type PullRequest, type Task } from './domain';
import { daysText as day, drillCadence } from './drill-due';
import { findingHash } from './links';

// "Waiting on you": everything the loops hand to a human, from the state the renderer's store
// and a snapshot both hold. One pure derivation for the Review screen, the Markdown summary
// (`## Waiting on you`) and the notices (`waiting:<kind>:<loop>:<id>`), so the three agree.

/** Kinds of item, in the order the list shows them; `drill-due` is a drill whose cadence (`every`) says run it. */
export const WAITING_KINDS = ['blocked', 'operator-only', 'stopped', 'uncovered', 'pr', 'drill-due'] as const;
/** What kind of thing waits. */
export type WaitingKind = (typeof WAITING_KINDS)[number];

/** How each kind is named, in the Review and the Markdown alike. */
export const WAITING_LABEL: Readonly<Record<WaitingKind, string>> = {
  blocked: 'blocked',
  'operator-only': 'operator-only',
  stopped: 'stopped task',
  uncovered: 'uncovered finding',
  pr: 'ready to merge',
  'drill-due': 'drill due',
};

/** One thing a person must do, identified by its loop and its id (two loops can share an id). */
export interface WaitingItem {
  readonly kind: WaitingKind;
  /** The loop; for a due drill (which belongs to no loop), the drill's host. */
  readonly loop: string;
  /** `REL-051`, a task name, `R-104`, or a PR's number (its URL when it has none). */
  readonly id: string;
  /** What the human must do, one sentence. */
  readonly action: string;
  /** The evidence's own words (the log's note, the task's notes), or null. */
  readonly detail: string | null;
  /** Actions the loop asked for before the merge (ready PRs only; else empty). */
  readonly before: readonly string[];
  /** Since when it has waited (ISO or a ledger date): when its evidence was first read, else the date it carries. */
  readonly since: string | null;
  /** Where to look, as a console hash. */
  readonly href: string;
}

/** The parts of the state the list reads. */
export interface WaitingInput {
  readonly loops: readonly LoopState[];
  readonly findings: readonly Finding[];
  readonly backlog: readonly BacklogItem[];
  readonly tasks: readonly Task[];
  readonly prs: readonly PullRequest[];
  readonly drillRuns: readonly DrillRun[];
  /** The declared drills: those with a cadence (`everyMs`) are due when their last success is older. */
  readonly drills?: readonly Drill[];
}

/** One source of items. */
type WaitingSource = (input: WaitingInput, now: number) => WaitingItem[];

/** Which final outcome a log row states: DONE, BLOCKED or operator-only (any case, leading markup ignored), else null. */
export function finalOutcome(outcome: string): 'done' | 'blocked' | 'operator-only' | null {
  const s = outcome.replace(/^[^A-Za-z]+/, '').toLowerCase();
  if (/^done\b/.test(s)) return 'done';
  if (/^blocked\b/.test(s)) return 'blocked';
  if (/^operator[\s_-]*only\b/.test(s)) return 'operator-only';
  return null;
}

const clean = (s: string | null | undefined): string | null => (s && s.trim() && s.trim() !== '?' && s.trim() !== '—' ? s.trim() : null);

/**
 * Since when a row has stood: when Loopdeck first read it, or the date the row carries when that
 * is an earlier day (history read at a first start has waited longer than Loopdeck has known it).
 */
const seen = (row: { readonly firstSeenAt?: string | undefined; readonly date: string | null }): string | null => {
  const day = row.date ? (/\d{4}-\d{2}-\d{2}/.exec(row.date)?.[0] ?? null) : null;
  if (row.firstSeenAt && day && day < row.firstSeenAt.slice(0, 10)) return day;
  return row.firstSeenAt ?? row.date;
};

/** The item's latest outcome and the first row of the run of that same outcome it ends (since when it has stood). */
function latestRun(outcomes: readonly LogOutcome[]): { latest: LogOutcome; first: LogOutcome } | null {
  const latest = outcomes.at(-1);
  if (!latest) return null;
  const status = finalOutcome(latest.outcome);
  let first = latest;
  for (let i = outcomes.length - 2; i >= 0; i -= 1) {
    const o = outcomes[i];
    if (!o || finalOutcome(o.outcome) !== status) break;
    first = o;
  }
  return { latest, first };
}

const backlogItems: WaitingSource = (input) => {
  const out: WaitingItem[] = [];
  for (const item of input.backlog) {
    const run = latestRun(item.outcomes);
    const status = run && finalOutcome(run.latest.outcome);
    if (!run || (status !== 'blocked' && status !== 'operator-only')) continue;
    const note = clean(run.latest.note);
    const href = findingHash({ loop: item.loop, id: item.findings[0] ?? item.id });
    const action =
      status === 'blocked'
        ? note
          ? `Unblock ${item.id}: the loop gave up after three attempts; ${/^root[\s-]*cause\b/i.test(note) ? note : `root cause: ${note}`}`
          : `Unblock ${item.id}: the loop gave up after three attempts and logged no root cause`
        : note
          ? `Do by hand: ${note}`
          : `Do ${item.id} by hand: the log names no action (ask for one in the PR's Next section)`;
    out.push({ kind: status, loop: item.loop, id: item.id, action, detail: note, before: [], since: seen(run.first), href });
  }
  return out;
};

/**
 * Tasks whose latest row is `stopped`. Implementer logs are not in time order (the reference
 * log is newest first, with older rows appended below), so "latest" is the newest date, and a
 * `done` row of that date wins over a `stopped` one (a task is not stopped again once done).
 */
const stoppedTasks: WaitingSource = (input) => {
  const out: WaitingItem[] = [];
  for (const { task: stopped } of latestTasks(input.tasks)) {
    if (taskStatus(stopped) !== 'stopped') continue;
    const notes = clean(stopped.notes);
    out.push({
      kind: 'stopped',
      loop: stopped.loop,
      id: stopped.task,
      action: `Look at task ${stopped.task}: the implementer stopped${notes ? '' : ' without notes'}`,
      detail: notes,
      before: [],
      since: seen(stopped),
      // The implementer tasks table, stopped first (the Ledgers view).
      href: '#/ledgers',
    });
  }
  return out;
};

/**
 * Audit findings (`R-###`) no backlog item covers: the contract requires every one to be. Only in
 * a section whose backlog table has been written (some item of that section exists): the audit
 * writes its findings table before its backlog table, and a ledger without backlog tables at all
 * is not following this contract.
 */
const uncoveredFindings: WaitingSource = (input) => {
  const sections = new Set(input.backlog.map((b) => `${b.loop}\u0000${b.section}`));
  return input.findings
    .filter((f) => /^R-\d+$/i.test(f.id.trim()) && f.backlog.length === 0 && sections.has(`${f.loop}\u0000${f.section}`))
    .map((f) => ({
      kind: 'uncovered' as const,
      loop: f.loop,
      id: f.id,
      action: `Have ${f.loop} file a backlog item for ${f.id}: no backlog item covers it, and the contract requires every finding to be covered`,
      detail: f.text,
      before: [],
      // Its section's date when that is older (a ledger read at a first start), as for log rows.
      since: seen({ firstSeenAt: f.firstSeenAt, date: f.section }),
      href: findingHash(f),
    }));
};

/** What GitHub says of a ready PR's checks now, for its action (the loop's word is "green"). */
function ciText(pr: PullRequest): string {
  const checks = pr.github?.checks;
  const names = pr.github?.checkNames.length ? ` (${pr.github.checkNames.join(', ')})` : '';
  if (checks === 'failing') return `the loop reported CI green, but GitHub now shows checks failing${names}`;
  if (checks === 'pending') return `the loop reported CI green; GitHub shows checks still running${names}`;
  return 'CI is green';
}

/**
 * PRs ready to merge. Before the merge: the PR body's Next section as GitHub has it (with a
 * `github:` section), else the operator-only actions the loop logged in the PR's cycle, which the
 * contract puts in that section.
 */
const readyPrs: WaitingSource = (input) => {
  const out: WaitingItem[] = [];
  for (const pr of input.prs) {
    if (pr.status !== 'ready') continue;
    const before =
      pr.github?.next ??
      input.backlog
        .filter((b) => b.loop === pr.loop && pr.cycle !== null)
        .flatMap((b) => {
          const latest = b.outcomes.at(-1);
          const note = latest && finalOutcome(latest.outcome) === 'operator-only' && latest.date === pr.cycle ? clean(latest.note) : null;
          return note ? [`${b.id}: ${note}`] : [];
        });
    const name = pr.number !== null ? `#${pr.number}` : pr.url;
    out.push({
      kind: 'pr',
      loop: pr.loop,
      id: pr.number !== null ? String(pr.number) : pr.url,
      action: `Merge ${name}: ${ciText(pr)}${pr.branch ? ` on ${pr.branch}` : ''}${before.length ? '; first do what the loop asked for below' : ''}`,
      detail: pr.url,
      before,
      since: pr.since,
      href: '#/prs',
    });
  }
  return out;
};

/** Drills whose cadence says they are due: never succeeded, or `every` has passed since the last success. */
const dueDrills: WaitingSource = (input, now) => {
  const out: WaitingItem[] = [];
  for (const d of input.drills ?? []) {
    const c = drillCadence(d, input.drillRuns, now);
    if (!c?.due) continue;
    const every = day(c.everyMs);
    out.push({
      kind: 'drill-due',
      loop: d.host,
      id: d.name,
      action:
        c.lastOkAt === null
          ? `Run drill ${d.name} on ${d.host}: it is to run every ${every} and has no successful run`
          : `Run drill ${d.name} on ${d.host}: it is to run every ${every}; the last successful run was ${c.lastOkAt}${c.overdueMs >= 3_600_000 ? `, overdue by ${day(c.overdueMs)}` : ''}`,
      detail: null,
      before: [],
      since: c.dueAt,
      href: '#/drills',
    });
  }
  return out;
};

const SOURCES: readonly WaitingSource[] = [backlogItems, stoppedTasks, uncoveredFindings, readyPrs, dueDrills];

const asc = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Everything waiting on a person, by kind (as WAITING_KINDS orders them), then oldest first, then loop and id. */
export function waitingOnYou(input: WaitingInput, now: number): WaitingItem[] {
  const items = SOURCES.flatMap((source) => source(input, now));
  const rank = (k: WaitingKind): number => WAITING_KINDS.indexOf(k);
  return items.sort((a, b) => rank(a.kind) - rank(b.kind) || asc(a.since ?? '', b.since ?? '') || asc(a.loop, b.loop) || asc(a.id, b.id));
}

/** The notice key of an item: its kind, loop and id, never its text or time. */
export function waitingKey(item: Pick<WaitingItem, 'kind' | 'loop' | 'id'>): string {
  return `waiting:${item.kind}:${item.loop}:${item.id}`;
}
