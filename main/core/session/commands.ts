import type { CommandOutput, Handlers } from '../../../shared/contract';
import type { Snapshot } from '../../../shared/domain';
import { ledgerRowsOf, type Summary } from '../../../shared/ledger-slice';
import type { CoreServices } from './core';
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
  /** The services of the loaded config's core; throws, naming the config's state, when none is loaded. */
  services(): CoreServices;
  /** Switch to the demo (only from the first-run screen); the demo's config path. */
  startDemo(): Promise<string>;
}

/**
 * Every command of the contract, answered from the session: one line each, each a call of one
 * step of the core's services or the session (never the engine's parts). Validation comes
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
      session.services().hosts.sshHost(host).trust(fingerprint, caller.user);
      return { trusted: true } as const;
    },
    'hosts.untrust': ({ host }, caller) => ({ removed: session.services().hosts.sshHost(host).untrust(caller.user) }),
    'hosts.unlock': ({ host, passphrase }) => ({ unlocked: session.services().hosts.sshHost(host).unlock(passphrase) }),
    'capacity.history': (input) => session.services().capacity.history(input),
    'trends.nights': ({ loop, nights }) => ({ nights: session.services().nights.list(loop, nights) }),
    'nights.compare': (input) => session.services().compare.compare(input),
    'review.mark': (_input, caller) => ({ lastReviewedAt: session.services().markReviewed(caller.user), lastReviewedBy: caller.user }),
    'prs.nextDone': ({ loop, number, step }, caller) => session.services().desk.nextDone(loop, number, step, caller.user),
    'prs.merge': ({ loop, number, sha, method }, caller) => session.services().desk.merge(loop, number, sha, method, caller.user),
    'maintenance.add': ({ window }, caller) => ({ id: session.services().maintenance.add(window, caller.user) }),
    'maintenance.end': ({ id }, caller) => ({ endedAt: session.services().maintenance.end(id, caller.user) }),
    'notices.ack': ({ key }, caller) => ({ acknowledgedAt: session.services().notices.acknowledge(key, caller.user) }),
    'notices.snooze': ({ key, minutes }, caller) => ({ snoozedUntil: session.services().notices.snooze(key, minutes, caller.user) }),
    'drills.run': async (input, caller) => ({ runId: await session.services().drills.run(input, caller.user) }),
    'drills.cancel': async ({ runId }, caller) => ({ cancelled: await session.services().drills.cancel(runId, caller.user) }),
    'drills.output': ({ runId, from }) => session.services().drills.output(runId, from),
    'log.error': (report) => logRendererError(report),
    'transcript.open': (input) => session.services().transcripts.open(input),
    'transcript.lines': (input) => session.services().transcripts.lines(input),
    'transcript.search': (input, caller) => session.services().transcripts.search(input, caller.user),
    'demo.start': async () => ({ configPath: await session.startDemo() }),
  };
}
