import type { CommandOutput, Handlers } from '../../../shared/contract';
import type { Snapshot } from '../../../shared/domain';
import { ledgerRowsOf, type Summary } from '../../../shared/ledger-slice';
import type { Engine } from '../engine';
import { LedgerCursors } from '../ledgers/ledger-cursors';
import { logRendererError } from '../logging/renderer-errors';

/** What the command table needs of the session: its state, its engine, and the demo. */
export interface CommandSession {
  info(): CommandOutput<'app.info'>;
  snapshot(): Snapshot;
  /** What `state.summary` answers (the saved summary while the first read runs). */
  summary(): Summary;
  /** Why there are no ledger rows to page yet, or null when there are. */
  rowsPending(): string | null;
  /** The engine of the loaded config; throws, naming the config's state, when none is loaded. */
  engine(): Engine;
  /** Switch to the demo (only from the first-run screen); the demo's config path. */
  startDemo(): Promise<string>;
}

/**
 * Every command of the contract, answered from the session: one line each, each a call of one
 * step of the engine or the session (no reaching into the engine's parts). Validation comes
 * before (main/rpc's dispatch), the start gate around (StartGate).
 */
export function sessionCommands(session: CommandSession): Handlers {
  // The renderer reads the ledgers' rows in pages of one frozen copy after its summary.
  const cursors = new LedgerCursors();
  return {
    'app.info': () => session.info(),
    'state.snapshot': () => session.snapshot(),
    'state.summary': () => session.summary(),
    'ledgers.page': (input) => {
      // Not "no rows": none are read yet. The console waits for the `state.reset` that follows.
      const pending = session.rowsPending();
      if (pending && input.cursor === null) return { ready: false, reason: `The ledgers' rows are not read yet: ${pending}; a state.reset follows once they are.` };
      return cursors.page(input, () => ledgerRowsOf(session.snapshot()));
    },
    'hosts.trust': ({ host, fingerprint }) => {
      session.engine().hosts.sshHost(host).trust(fingerprint);
      return { trusted: true } as const;
    },
    'hosts.untrust': ({ host }) => ({ removed: session.engine().hosts.sshHost(host).untrust() }),
    'hosts.unlock': ({ host, passphrase }) => ({ unlocked: session.engine().hosts.sshHost(host).unlock(passphrase) }),
    'capacity.history': (input) => session.engine().capacity.history(input),
    'trends.nights': ({ loop, nights }) => ({ nights: session.engine().history.list(loop, nights) }),
    'review.mark': () => ({ lastReviewedAt: session.engine().markReviewed() }),
    'notices.ack': ({ key }) => ({ acknowledgedAt: session.engine().notifier.acknowledge(key) }),
    'notices.snooze': ({ key, minutes }) => ({ snoozedUntil: session.engine().notifier.snooze(key, minutes) }),
    'drills.run': async (input) => ({ runId: await session.engine().drills.run(input) }),
    'drills.cancel': async ({ runId }) => ({ cancelled: await session.engine().drills.cancel(runId) }),
    'drills.output': ({ runId, from }) => session.engine().drills.output(runId, from),
    'log.error': (report) => logRendererError(report),
    'transcript.open': (input) => session.engine().transcripts.open(input),
    'transcript.lines': (input) => session.engine().transcripts.lines(input),
    'transcript.search': (input) => session.engine().transcripts.search(input),
    'demo.start': async () => ({ configPath: await session.startDemo() }),
  };
}
