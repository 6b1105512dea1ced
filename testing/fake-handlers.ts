import { emptySnapshot } from '../shared/domain';
import { emptyLedgerRows, pageOf, summaryOf } from '../shared/ledger-slice';
import type { Handlers } from '../main/rpc/dispatch';

/** Handlers answering every command with a fixed, valid value: for transport tests. */
export function fakeHandlers(overrides: Partial<Handlers> = {}): Handlers {
  return {
    'app.info': (_input, caller) => ({ version: '0.0.0-test', shell: 'electron', config: { state: 'loaded', path: '/tmp/config.yaml' }, dataDir: '/tmp/data', demo: false, caller }),
    'state.snapshot': async () => emptySnapshot('2025-01-01T06:00:00.000Z'),
    'state.summary': () => summaryOf(emptySnapshot('2025-01-01T06:00:00.000Z')),
    'ledgers.page': ({ cursor }) => pageOf(emptyLedgerRows, cursor ?? 'c1', 0, 1),
    'demo.start': () => ({ configPath: '/tmp/demo.yaml' }),
    'hosts.trust': () => ({ trusted: true }),
    'hosts.untrust': () => ({ removed: 0 }),
    'hosts.unlock': () => ({ unlocked: false }),
    'capacity.history': () => ({ from: '2025-01-01T05:00:00.000Z', to: '2025-01-01T06:00:00.000Z', series: [], warnings: [] }),
    'trends.nights': () => ({ nights: [] }),
    'nights.compare': ({ loop, a, b }) => ({
      loop,
      host: 'runner',
      a: { date: a, status: 'failed' },
      b: { date: b ?? '2024-12-31', status: 'ok' },
      picked: b === undefined ? 'last-good' : 'given',
      phases: [],
      findings: null,
      prs: { a: [], b: [] },
      fleet: { a: null, b: null },
      bounds: { maxLines: 200_000, maxBytes: 64 * 1024 * 1024 },
      notes: [],
    }),
    'review.mark': (_input, caller) => ({ lastReviewedAt: '2025-01-01T06:00:00.000Z', lastReviewedBy: caller.user }),
    'prs.nextDone': (_input, caller) => ({ doneBy: caller.user, doneAt: '2025-01-01T06:00:00.000Z' }),
    'prs.merge': ({ sha, method }, caller) => ({ by: caller.user, at: '2025-01-01T06:00:00.000Z', sha, method: method ?? 'merge' }),
    'maintenance.add': () => ({ id: 'c000000000001' }),
    'maintenance.end': () => ({ endedAt: '2025-01-01T06:00:00.000Z' }),
    'notices.ack': () => ({ acknowledgedAt: '2025-01-01T06:00:00.000Z' }),
    'notices.snooze': () => ({ snoozedUntil: '2025-01-01T07:00:00.000Z' }),
    'drills.run': () => ({ runId: 'run-1' }),
    'drills.cancel': () => ({ cancelled: false }),
    'drills.output': () => ({ text: '', next: 0 }),
    'log.error': () => ({ logged: true }),
    'transcript.open': () => ({ host: 'runner', path: '/runs/2025-01-01/audit.log', size: 0, ino: '1', lines: 0, running: false, marks: [] }),
    'transcript.lines': () => ({ host: 'runner', path: '/runs/2025-01-01/audit.log', size: 0, ino: '1', lines: 0, rows: [], bytesRead: 0 }),
    'transcript.search': () => ({ hits: [], total: 0, truncated: false, timedOut: false }),
    ...overrides,
  };
}
