import type { CommandInput, CommandOutput } from '../../../shared/contract';
import type { Caller } from '../../../shared/roles';
import type { LoopdeckClient } from '../client';
import { appendOutput, withNoticeChange, withoutToast, type OpsData } from './ops';

/** The store's actions for review, notices, drills, the merge desk and maintenance windows. Failures throw for the caller to show. */
export interface OpsActions {
  /** Move the review watermark to now. */
  markReviewed(): Promise<void>;
  ackNotice(key: string): Promise<void>;
  snoozeNotice(key: string, minutes: number): Promise<void>;
  /** Take a toast off the screen (the notice itself is untouched). */
  dismissToast(key: string): void;
  /** Start a drill; resolves with the run id. */
  runDrill(input: CommandInput<'drills.run'>): Promise<string>;
  cancelDrill(runId: string): Promise<boolean>;
  /** Fetch a run's output from where the held text ends (from 0 the first time) and merge it. */
  fetchDrillOutput(runId: string): Promise<void>;
  /** Tick a Next step of a desk PR done (`desk.changed` brings it to every console); resolves who and when. */
  tickNextStep(input: CommandInput<'prs.nextDone'>): Promise<CommandOutput<'prs.nextDone'>>;
  /** Merge a desk PR of the head the operator saw (`input.sha`); resolves the merge as recorded. */
  mergePr(input: CommandInput<'prs.merge'>): Promise<CommandOutput<'prs.merge'>>;
  /** Plan a maintenance window (`maintenance.changed` brings the list to every console); resolves its id. */
  addMaintenance(input: CommandInput<'maintenance.add'>): Promise<CommandOutput<'maintenance.add'>>;
  /** End a window the console added (`maintenance.changed` takes it off the list); resolves when it ended. */
  endMaintenance(input: CommandInput<'maintenance.end'>): Promise<CommandOutput<'maintenance.end'>>;
}

type OpsSet = (partial: Partial<OpsData> & { lastReviewedAt?: string | null; lastReviewedBy?: string | null }) => void;

/** Build the actions over a client and the store's `set`/`get` (its `info` names who acts, shown until main's change arrives). */
export function createOpsActions(client: LoopdeckClient, set: OpsSet, get: () => OpsData & { readonly info: { readonly caller: Caller } | null }): OpsActions {
  const who = (): string | null => get().info?.caller.user ?? null;
  const inFlight = new Set<string>();
  return {
    async markReviewed() {
      const { lastReviewedAt, lastReviewedBy } = await client.invoke('review.mark', {});
      set({ lastReviewedAt, lastReviewedBy });
    },
    async ackNotice(key) {
      const { acknowledgedAt } = await client.invoke('notices.ack', { key });
      set(withNoticeChange(get(), key, { acknowledgedAt, acknowledgedBy: who() }));
    },
    async snoozeNotice(key, minutes) {
      const { snoozedUntil } = await client.invoke('notices.snooze', { key, minutes });
      set(withNoticeChange(get(), key, { snoozedUntil, snoozedBy: who() }));
    },
    dismissToast(key) {
      set(withoutToast(get(), key));
    },
    async runDrill(input) {
      const { runId } = await client.invoke('drills.run', input);
      return runId;
    },
    async cancelDrill(runId) {
      const { cancelled } = await client.invoke('drills.cancel', { runId });
      return cancelled;
    },
    async fetchDrillOutput(runId) {
      if (inFlight.has(runId)) return;
      inFlight.add(runId);
      try {
        const from = get().drillOutput[runId]?.next ?? 0;
        const { text, next } = await client.invoke('drills.output', { runId, from });
        const before = get().drillOutput[runId];
        const after = appendOutput(before, from, text, next);
        if (after !== before) set({ drillOutput: { ...get().drillOutput, [runId]: after } });
      } finally {
        inFlight.delete(runId);
      }
    },
    tickNextStep: (input) => client.invoke('prs.nextDone', input),
    mergePr: (input) => client.invoke('prs.merge', input),
    addMaintenance: (input) => client.invoke('maintenance.add', input),
    endMaintenance: (input) => client.invoke('maintenance.end', input),
  };
}
