import type { BacklogItem, Finding, LoopState, Task } from '../../../shared/domain';

/** What one poll changed, for the notices: loops with their moved cycles, and the ledger rows that moved. */
export interface PollChanges {
  loops: LoopState[];
  findings: Finding[];
  backlog: BacklogItem[];
  tasks: Task[];
}

/** Nothing changed yet. */
export const noChanges = (): PollChanges => ({ loops: [], findings: [], backlog: [], tasks: [] });

/**
 * Run `poll` for every item, the items of one key (a host) one after another and the keys side by
 * side, each item noting its changes apart; resolves with the changes put together in the items'
 * order (as polling them one after another would have) and whether any `poll` returned true.
 */
export async function pollSideBySide<T>(items: readonly T[], keyOf: (item: T) => string, poll: (item: T, changed: PollChanges) => Promise<boolean>): Promise<{ changed: PollChanges; any: boolean }> {
  const parts = new Map(items.map((item) => [item, noChanges()]));
  const byKey = new Map<string, T[]>();
  for (const item of items) byKey.set(keyOf(item), [...(byKey.get(keyOf(item)) ?? []), item]);
  const results = await Promise.all(
    [...byKey.values()].map(async (group) => {
      let any = false;
      for (const item of group) if (await poll(item, parts.get(item) ?? noChanges())) any = true;
      return any;
    }),
  );
  const changed = noChanges();
  for (const p of parts.values()) {
    changed.loops.push(...p.loops);
    changed.findings.push(...p.findings);
    changed.backlog.push(...p.backlog);
    changed.tasks.push(...p.tasks);
  }
  return { changed, any: results.includes(true) };
}
