import type { BacklogItem, Finding, Task } from '../../../shared/domain';
import { messageOf } from '../../../shared/errors';
import type { NoticeGate } from '../notices/notice-gate';
import type { Notifier } from '../notices/notifier';
import type { BudgetNight } from '../notices/rules/budget-rules';
import type { PollChanges } from './poll-changes';
import type { StateParts } from './state-views';

/** What a poll's notice update reads beyond the state's parts. */
export interface NoticeParts extends StateParts {
  readonly notifier: Notifier;
  readonly noticeGate: NoticeGate;
  readonly budget: () => BudgetNight | null;
}

/** The ledger rows the notice rules read. */
const pick = ({ findings, backlog, tasks }: { findings: readonly Finding[]; backlog: readonly BacklogItem[]; tasks: readonly Task[] }) => ({ findings, backlog, tasks });

/**
 * After a poll: derive the notices again when the gate says they are due (something changed, or a
 * clock moved), from what changed and the small slices whole; a failure is the board's problem, and
 * nothing of it is lost (the notifier derives the whole state again at its next update).
 */
export function updateNotices(p: NoticeParts, now: Date, changed: PollChanges, hostsChanged: boolean, caughtUp: boolean): void {
  const prs = p.prTracker.prs;
  const changedSomething = changed.loops.length > 0 || changed.findings.length > 0 || changed.backlog.length > 0 || changed.tasks.length > 0 || hostsChanged;
  if (!p.noticeGate.due(now, { changedSomething, prs, capacity: p.capacityNow(), caughtUp })) return;
  const small = { prs, hosts: p.hosts.states(), capacity: p.capacityNow(), drillRuns: p.drills.runs(), drills: p.drills.list(), preflight: p.preflight.list(), contract: p.contract.list(), desk: p.desk.list(), budget: p.budget(), cyclesOf: (loop: string) => p.loops.get(loop)?.cycles };
  try {
    p.notifier.update(caughtUp, { ...changed, ...small }, () => ({ ...small, loops: [...p.loops.all()], ...pick(p.ledgers.all()) }));
    p.board.errors.set('notices', null);
  } catch (err) {
    p.board.failed('notices', err, () => ({ source: 'notices', line: null, message: `Updating the notices failed: ${messageOf(err)}` }));
  }
}
