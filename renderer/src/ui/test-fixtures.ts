import { emptySnapshot } from '../../../shared/domain';
import type { BacklogItem, Cycle, Finding, HostState, LoopState, Phase, PullRequest, Snapshot } from '../../../shared/domain';

// Test data only (imported by *.test.ts): small but realistic contract values.

/** A phase with defaults a test can override. */
export function phase(name: string, over: Partial<Phase> = {}): Phase {
  return {
    name,
    status: 'ok',
    startedAt: '2026-08-23T00:00:04-04:00',
    endedAt: '2026-08-23T00:41:12-04:00',
    timesFrom: 'stamps',
    detail: [],
    stages: [],
    verdict: null,
    reason: 'The wrapper stamped OK.',
    ...over,
  };
}

/** A cycle of the three reliability phases. */
export function cycle(date: string, status: Cycle['status'] = 'ok', phases?: Phase[]): Cycle {
  return { date, status, phases: phases ?? [phase('audit'), phase('remediate'), phase('deliver')] };
}

/** A loop with the given cycles. */
export function loop(name: string, cycles: Cycle[] = [cycle('2026-08-23')], host = 'runner'): LoopState {
  return { name, host, cycles, deadman: null };
}

/** A host with defaults (a connected local host) a test can override. */
export function host(name: string, over: Partial<HostState> = {}): HostState {
  return {
    name,
    kind: 'local',
    state: 'connected',
    error: null,
    since: '2026-08-24T06:58:00.000Z',
    attempt: 0,
    fingerprint: null,
    needsPassphrase: null,
    trustedInLoopdeck: false,
    ...over,
  };
}

/** A snapshot with two loops, one host and no problems. */
export function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return {
    ...emptySnapshot('2026-08-24T07:00:00.000Z'),
    hosts: [host('runner')],
    loops: [loop('reliability'), loop('testing')],
    ...over,
  };
}

/** An open P1 audit finding a test can override. */
export function finding(id: string, over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: 'Delta audit 2026-08-23',
    severity: 'P1',
    category: 'error-handling',
    where: 'src/sync/queue.ts:88',
    text: 'Retry loop swallows the last error.',
    status: 'open',
    backlog: [],
    firstSeenAt: '2026-08-23T04:10:00.000Z',
    line: 12,
    ...over,
  };
}

/** A backlog item covering the given findings. */
export function backlogItem(id: string, findings: string[], over: Partial<BacklogItem> = {}): BacklogItem {
  return {
    id,
    loop: 'reliability',
    section: 'Delta audit 2026-08-23',
    findings,
    severity: 'P1',
    acceptance: 'A failing retry surfaces its last error.',
    status: 'open',
    red: null,
    green: null,
    outcomes: [],
    ...over,
  };
}

/** A ready pull request. */
export function pullRequest(n: number, over: Partial<PullRequest> = {}): PullRequest {
  return {
    loop: 'reliability',
    url: `https://github.com/acme/radon/pull/${n}`,
    number: n,
    branch: `nightly/2026-08-23-${n}`,
    status: 'ready',
    check: null,
    since: '2026-08-24T04:31:00.000Z',
    cycle: '2026-08-24',
    ...over,
  };
}
