import { emptySnapshot, type Capacity, type Snapshot } from '../../../shared/domain';
import type { Summary } from '../../../shared/ledger-slice';
import type { DrillService } from '../drills/drill-service';
import type { HostTable } from '../hosts/host-table';
import type { LedgerBook } from '../ledgers/ledger-book';
import type { Notifier } from '../notices/notifier';
import type { ReviewMark } from '../notices/review-mark';
import type { PreflightService } from '../preflight/preflight-service';
import type { MaintenanceWindows } from '../maintenance/maintenance-windows';
import type { PrTracker } from '../prs/pr-tracker';
import type { LiveState } from '../state/live-state';
import type { ContractWatch } from './contract-watch';
import type { DeskFacade } from './engine-services';
import type { LoopStates } from './loop-states';
import type { ProblemBoard } from './problem-board';

/** The engine's parts its read views are made of (the engine's own objects, read as they are). */
export interface StateParts {
  readonly now: () => Date;
  readonly loops: LoopStates;
  readonly ledgers: LedgerBook;
  readonly prTracker: PrTracker;
  readonly hosts: HostTable;
  readonly board: ProblemBoard;
  readonly contract: ContractWatch;
  readonly capacityNow: () => readonly Capacity[];
  readonly notifier: Pick<Notifier, 'list'>;
  readonly reviewMark: ReviewMark;
  readonly drills: Pick<DrillService, 'list' | 'runs'>;
  readonly preflight: Pick<PreflightService, 'list'>;
  readonly desk: Pick<DeskFacade, 'list'>;
  readonly maintenance: Pick<MaintenanceWindows, 'list'>;
}

/** The live state, without copying findings or building a snapshot: what /metrics counts and the tray shows. */
export function liveStateOf(p: StateParts): LiveState {
  return {
    loops: [...p.loops.all()],
    findingsOf: (loop) => p.ledgers.get(loop)?.findings ?? [],
    prs: p.prTracker.prs,
    hosts: p.hosts.states(),
    sourceErrors: p.board.errors.list().length,
    contract: p.contract.list(),
    notices: () => p.notifier.list(),
  };
}

/** The state without the ledger rows (their counts instead): what the console paints first. */
export function summaryOf(p: StateParts): Summary {
  const { findings: _f, backlog: _b, tasks: _t, lessons: _l, audits: _a, ...empty } = emptySnapshot(p.now().toISOString());
  const live = { hosts: p.hosts.states(), loops: [...p.loops.all()], problems: p.board.list(), prs: p.prTracker.prs, capacity: p.capacityNow() };
  const ops = { notices: p.notifier.list(), ...p.reviewMark.reviewed(), drills: p.drills.list(), drillRuns: p.drills.runs() };
  // Only while a pre-flight has run: a snapshot without one prints what it printed before.
  const preflight = p.preflight.list();
  const desk = p.desk.list();
  const maintenance = p.maintenance.list();
  return { ...empty, ...live, ...ops, ...(preflight.length ? { preflight } : {}), contract: p.contract.list(), ...(desk.length ? { desk } : {}), ...(maintenance.length ? { maintenance } : {}), ledgerRows: p.ledgers.counts() };
}

/** The whole state, as `snapshot --json` prints it. */
export function snapshotOf(p: StateParts): Snapshot {
  const { ledgerRows: _counts, ...rest } = summaryOf(p);
  // emptySnapshot first: it fixes the order of the keys `snapshot --json` prints.
  return { ...emptySnapshot(rest.takenAt), ...rest, ...p.ledgers.all() };
}
