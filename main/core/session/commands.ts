import type { CommandOutput, Handlers } from '../../../shared/contract';
import type { Snapshot } from '../../../shared/domain';
import { ledgerRowsOf, type Summary } from '../../../shared/ledger-slice';
import type { Engine } from '../engine';
import { LedgerCursors } from '../ledgers/ledger-cursors';
import { logRendererError } from '../logging/renderer-errors';

/** What the command table needs of the session: its state, its engine, and the demo. */
export interface CommandSession {
  /** What `app.info` answers but its caller (each client's own). */
  info(): Omit<CommandOutput<'app.info'>, 'caller'>;
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
    'app.info': (_input, caller) => ({ ...session.info(), caller }),
    'state.snapshot': () => session.snapshot(),
    'state.summary': () => session.summary(),
    'ledgers.page': (input) => {
      // Not "no rows": none are read yet. The console waits for the `state.reset` that follows.
      const pending = session.rowsPending();
      if (pending && input.cursor === null) return { ready: false, reason: `The ledgers' rows are not read yet: ${pending}; a state.reset follows once they are.` };
      return cursors.page(input, () => ledgerRowsOf(session.snapshot()));
    },
    'hosts.trust': ({ host, fingerprint }, caller) => {
      session.engine().hosts.sshHost(host).trust(fingerprint, caller.user);
      return { trusted: true } as const;
    },
    'hosts.untrust': ({ host }, caller) => ({ removed: session.engine().hosts.sshHost(host).untrust(caller.user) }),
    'hosts.unlock': ({ host, passphrase }) => ({ unlocked: session.engine().hosts.sshHost(host).unlock(passphrase) }),
    'capacity.history': (input) => session.engine().capacity.history(input),
    'trends.nights': ({ loop, nights }) => ({ nights: session.engine().nights.list(loop, nights) }),
    'review.mark': (_input, caller) => ({ lastReviewedAt: session.engine().markReviewed(caller.user), lastReviewedBy: caller.user }),
    'notices.ack': ({ key }, caller) => ({ acknowledgedAt: session.engine().notifier.acknowledge(key, caller.user) }),
    'notices.snooze': ({ key, minutes }, caller) => ({ snoozedUntil: session.engine().notifier.snooze(key, minutes, caller.user) }),
    'drills.run': async (input, caller) => ({ runId: await session.engine().drills.run(input, caller.user) }),
    'drills.cancel': async ({ runId }, caller) => ({ cancelled: await session.engine().drills.cancel(runId, caller.user) }),
    'drills.output': ({ runId, from }) => session.engine().drills.output(runId, from),
    'log.error': (report) => logRendererError(report),
    'transcript.open': (input) => session.engine().transcripts.open(input),
    'transcript.lines': (input) => session.engine().transcripts.lines(input),
    'transcript.search': (input, caller) => session.engine().transcripts.search(input, caller.user),
    'demo.start': async () => ({ configPath: await session.startDemo() }),
  };
}
