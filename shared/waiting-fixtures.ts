import type { BacklogItem, Finding, LogOutcome, PullRequest, Task } from './domain';
import type { WaitingInput } from './waiting';

// Test-only (kept in shared so the shared, main and renderer tests can all import it). Ledger rows written from the reference ledgers (RELIABILITY_AUDIT.md's backlog, RELIABILITY_LOG.md's
// outcomes, the proxy's implementer log) for the "Waiting on you" and hollow-remediate tests.

/** A log row, `| REL-051 | 2026-08-23 | BLOCKED | 1/0 | root cause: … |`. */
export function outcome(date: string, text: string, note: string | null, line = 10, firstSeenAt?: string): LogOutcome {
  return { date, outcome: text, red: null, green: null, note, line, ...(firstSeenAt ? { firstSeenAt } : {}) };
}

/** A backlog item of the given audit section, covering the given findings, with its log rows. */
export function item(id: string, outcomes: LogOutcome[], over: Partial<BacklogItem> = {}): BacklogItem {
  return {
    id,
    loop: 'reliability',
    section: 'Delta audit 2026-08-23',
    findings: ['R-104'],
    severity: 'P1',
    acceptance: 'a stalled broker keeps the queue under 1000',
    status: 'open',
    red: null,
    green: null,
    outcomes,
    ...over,
  };
}

/** An audit finding covered by the given backlog items. */
export function auditFinding(id: string, backlog: string[], over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: 'Delta audit 2026-08-23',
    severity: 'P1',
    category: 'resources',
    where: 'scripts/daemon.py:210',
    text: 'unbounded queue under a slow broker',
    status: 'open',
    backlog,
    firstSeenAt: '2026-08-23T05:00:00.000Z',
    line: 30,
    ...over,
  };
}

/** An implementer-log row, as the proxy's log writes them. */
export function task(name: string, status: string, over: Partial<Task> = {}): Task {
  return {
    loop: 'proxy',
    source: 'docs/implementer-log.md',
    task: name,
    date: '2026-09-25',
    status,
    gateRuns: '2',
    firstGate: 'fail',
    deviations: 'none',
    notes: null,
    model: 'llama.cpp/ornith-1.5-35b-a3b',
    line: 12,
    ...over,
  };
}

/** A ready PR the deliver phase reported. */
export function readyPr(over: Partial<PullRequest> = {}): PullRequest {
  return {
    loop: 'reliability',
    url: 'https://github.com/acme/radon/pull/88',
    number: 88,
    branch: 'reliability/2026-08-23',
    status: 'ready',
    check: null,
    since: '2026-08-23T14:02:11.000Z',
    cycle: '2026-08-23',
    ...over,
  };
}

/** A state with nothing waiting, overridden. */
export function waitingInput(over: Partial<WaitingInput> = {}): WaitingInput {
  return { loops: [], findings: [], backlog: [], tasks: [], prs: [], drillRuns: [], ...over };
}
