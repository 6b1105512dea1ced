/** A loop's parts that name folders to watch. */
export interface WatchedLoop {
  readonly name: string;
  readonly host: string;
  /** The runs folder and its hot cycles. */
  hotDirs(): readonly string[];
}

/**
 * The folders each reachable host watches: every loop's runs folder and hot cycles, its ledgers'
 * folders and its nightly branch's reflog folder (`more`), so an append anywhere a poll would read
 * wakes one.
 */
export function watchedDirs(loops: readonly WatchedLoop[], reachable: (host: string) => boolean, more: (loop: string) => readonly string[]): Map<string, Set<string>> {
  const byHost = new Map<string, Set<string>>();
  for (const f of loops) {
    if (!reachable(f.host)) continue;
    const dirs = byHost.get(f.host) ?? new Set<string>();
    for (const d of [...f.hotDirs(), ...more(f.name)]) dirs.add(d);
    byHost.set(f.host, dirs);
  }
  return byHost;
}
