import { shellQuote, STAT_FN } from './remote-shell';

/** How often the watcher lists the folders when `tail -F` cannot wake it (ms). */
export const FALLBACK_STAT_MS = 50;

/**
 * The watcher that runs on the host while folders are watched; it prints `changed` when a poll
 * should start, and `.` as a heartbeat. Two paths, both stock tools only:
 *
 * - **Events**: `tail -n0 -F` over the files in the folders (inotify on Linux, kqueue on BSD and
 *   macOS) wakes at once when one grows; `head -c1` takes the first byte, so no file content
 *   crosses the link, and the tail is started again. Each tail writes its pid first (it is
 *   `exec`ed by a tiny `sh`), so the one that woke is ended at once, not on its next write.
 * - **Listing**: every `statMs` the folders are stat-ed; a difference prints `changed`, and a new or
 *   vanished name also appends to a private kick file the tails follow, so the next tail follows
 *   the new file. Where `tail -F` cannot run this path alone remains, every FALLBACK_STAT_MS.
 *   (Listing is what costs: every 50 ms it takes ~11% of a core here, every 250 ms ~3%, while a
 *   tail restarted on each of 50 appends a second adds ~2%.)
 *
 * The heartbeat (about once a second) is what ends it once the link is gone: writing fails and
 * the loop exits (HUP, INT and TERM end it the same way). On exit it kills the events loop and
 * the current tail by pid, never by a kick a tail may miss: a tail could otherwise block `head`
 * and the loop forever on a folder nobody writes to again. A tail started while it exits finds
 * the `go` file gone and does not start; the events loop also stops once the watcher's pid is
 * gone. Only `kill`, `read` and files: it works where `set -m` needs a terminal (dash) and where
 * there is no `setsid` or `tail --pid` (macOS). Nothing is left running on the host.
 */
export function watcherScript(dirs: readonly string[], statMs: number): string {
  const each = dirs.map(shellQuote).join(' ');
  const beats = Math.max(1, Math.round(1000 / statMs));
  // The tail's own sh: record its pid, then become the tail unless the watcher is ending.
  const tail = shellQuote('echo $$ >"$0/tp" && [ -e "$0/go" ] && exec tail -n0 -q -F -- "$@"');
  return [
    STAT_FN,
    "trap '' PIPE",
    'me=$$',
    `w=$(mktemp -d 2>/dev/null) || { w="\${TMPDIR:-/tmp}/loopdeck-watch.$$"; mkdir "$w"; } || exit 1`,
    'k="$w/kick"; : >"$k"; : >"$w/go"',
    'events() {',
    '  while [ -e "$w/go" ] && kill -0 "$me" 2>/dev/null; do',
    `    set -- "$k"; for d in ${each}; do for f in "$d"/*; do [ -f "$f" ] && set -- "$@" "$f"; done; done`,
    // `changed` is printed as soon as the first byte comes, not once the tail has exited (that
    // takes up to ~20 ms more); the group's status says what happened: 3 no tail, 4 link gone.
    `    sh -c ${tail} "$w" "$@" 2>/dev/null | { n=$(head -c1 | wc -c); [ "$n" -gt 0 ] 2>/dev/null || exit 3; echo changed || exit 4; }`,
    '    r=$?; read -r tp 2>/dev/null <"$w/tp" && kill "$tp" 2>/dev/null',
    '    case $r in 3) [ -e "$w/go" ] && : >"$k.off"; return 0 ;; 4) return 0 ;; esac',
    '  done',
    '}',
    'events &',
    'epid=$!',
    // Stop new tails, end the loop, then the tail it may have started (its pid is written first).
    `trap 'rm -f "$w/go"; kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; read -r tp 2>/dev/null <"$w/tp" && kill "$tp" 2>/dev/null; rm -rf "$w"' EXIT`,
    "trap 'exit 0' HUP INT TERM",
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
