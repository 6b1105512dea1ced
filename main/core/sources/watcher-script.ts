import { shellQuote, STAT_FN } from './remote-shell';

/** How often the watcher lists the folders when `tail -F` cannot wake it (ms). */
export const FALLBACK_STAT_MS = 50;

/**
 * The watcher that runs on the host while folders are watched; it prints `changed` when a poll
 * should start, and `.` as a heartbeat. Two paths, both stock tools only:
 *
 * - **Events**: `tail -n0 -F` over the files in the folders (inotify on Linux, kqueue on BSD and
 *   macOS) wakes at once when one grows; `head -c1` takes the first byte, so no file content
 *   crosses the link, and the tail is started again (a tail exits when its reader is gone; an
 *   older one at the latest on its next write, and every tail follows the kick file below).
 * - **Listing**: every `statMs` the folders are stat-ed; a difference prints `changed`, and a new or
 *   vanished name also appends to a private kick file the tails follow, so the next tail follows
 *   the new file. Where `tail -F` cannot run this path alone remains, every FALLBACK_STAT_MS.
 *   (Listing is what costs: every 50 ms it takes ~11% of a core here, every 250 ms ~3%, while a
 *   tail restarted on each of 50 appends a second adds ~2%.)
 *
 * The heartbeat (about once a second) is what ends it once the link is gone: writing fails, the
 * loop exits, and the exit kicks every tail so they end too. Nothing is left running on the host.
 */
export function watcherScript(dirs: readonly string[], statMs: number): string {
  const each = dirs.map(shellQuote).join(' ');
  const beats = Math.max(1, Math.round(1000 / statMs));
  return [
    STAT_FN,
    "trap '' PIPE",
    `k=$(mktemp 2>/dev/null || echo "\${TMPDIR:-/tmp}/loopdeck-kick.$$"); : >"$k"`,
    `trap 'echo >>"$k"; rm -f "$k" "$k.off"' EXIT`,
    'events() {',
    '  while :; do',
    `    set -- "$k"; for d in ${each}; do for f in "$d"/*; do [ -f "$f" ] && set -- "$@" "$f"; done; done`,
    // `changed` is printed as soon as the first byte comes, not once the tail has exited (that
    // takes up to ~20 ms more); the group's status says what happened: 3 no tail, 4 link gone.
    '    tail -n0 -q -F -- "$@" 2>/dev/null | { n=$(head -c1 | wc -c); [ "$n" -gt 0 ] 2>/dev/null || exit 3; echo changed || exit 4; }',
    '    case $? in 3) : >"$k.off"; return 0 ;; 4) return 0 ;; esac',
    '  done',
    '}',
    'events &',
    'prev=; names=; n=0',
    'while :; do',
    `  cur=$(for d in ${each}; do (cd "$d" 2>/dev/null && set -- * && [ -e "$1" ] && { echo "N $d/$*"; st "$@"; }); done 2>/dev/null)`,
    '  if [ "$cur" != "$prev" ]; then',
    '    echo changed || exit 0',
    `    nm=$(printf '%s\\n' "$cur" | grep '^N ')`,
    '    if [ "$nm" != "$names" ]; then names=$nm; echo >>"$k"; fi',
    '    prev=$cur',
    '  fi',
    `  n=$((n + 1)); if [ $n -ge ${beats} ]; then echo . || exit 0; n=0; fi`,
    `  if [ -e "$k.off" ]; then sleep ${(Math.min(statMs, FALLBACK_STAT_MS) / 1000).toFixed(3)} 2>/dev/null || sleep 1; else sleep ${(statMs / 1000).toFixed(3)} 2>/dev/null || sleep 1; fi`,
    'done',
  ].join('\n');
}
