import type { Cycle, HostState, LoopState, Phase, Snapshot } from '../../../shared/domain';

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
    ...over,
  };
}

/** A snapshot with two loops, one host and no problems. */
export function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return {
    schema: 1,
    takenAt: '2026-08-24T07:00:00.000Z',
    hosts: [host('runner')],
    loops: [loop('reliability'), loop('testing')],
    problems: [],
    findings: [],
    backlog: [],
    prs: [],
    tasks: [],
    lessons: [],
    audits: [],
    ...over,
  };
}
