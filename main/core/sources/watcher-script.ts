import { NAMES_FN, ODD_FN, ODD_NAME, shellQuote, STAT_FN } from './remote-shell';

/**
 * How often an idle watcher says it is alive (ms). A watcher ends when its input ends (sshd closes
 * it with the channel, or when the connection is gone); the line is the backstop that ends one
 * whose input stays open once its link is gone (the write fails). Nothing on Loopdeck's side
 * waits for it (the link's keepalive finds a dead link). Once a minute: every line is an SSH
 * packet to decrypt, and a fleet of a hundred idle hosts sending one a second, then every 5 s,
 * was most of its idle CPU (figure 6d).
 */
export const HEARTBEAT_MS = 60_000;

/** How often the watcher lists the folders when `tail -F` cannot wake it (ms). */
export const FALLBACK_STAT_MS = 50;

/** The most appended bytes one frame carries; a file that grew more is read by requests. */
export const MAX_FRAME_BYTES = 256 * 1024;

/**
 * Bytes before the previous end that a frame repeats, so a follower that checks the bytes before
 * its offset (a ledger, `verifyTail`) is answered from the frame too, and a rewrite is seen.
 */
export const FRAME_OVERLAP = 64;

/**
 * Compares the previous listing (the file it is given, `t=P`) with the new one (its input, `t=C`), each a `D
 * <dir>` line per folder that exists and then `st` lines of their entries by full path, and prints what the watcher should send: `+ <from> <to> <st line
 * with the full path>` for a file that only grew (by at most `cap` bytes, with base64 at hand),
 * `~ <st line>` for a file that changed otherwise in place (grew more, or its time moved), and
 * `changed` once for anything else: a name or folder that came or went, a new inode, a shrink.
 */
const DIFF_AWK = [
  '{ s = $0 }',
  's ~ /^D / { d = substr(s, 3); if (t == "P") pd[d] = 1; else cd[d] = 1; next }',
  // A file whose name is not plain (its name in hex, and its stat): came, went or changed.
  's ~ /^O / { if (t == "P") po[s] = 1; else co[s] = 1; next }',
  '{',
  '  key = s; for (i = 1; i <= 5; i++) sub(/^[^|]*[|]/, "", key)',
  '  split(s, a, "|"); ty = a[5]; if (ty == "regular empty file") ty = "regular file"',
  '  if (t == "P") { pk[key] = 1; pi[key] = a[1]; ps[key] = a[2]; pm[key] = a[3]; pt[key] = ty; next }',
  '  ck[key] = 1',
  '  if (!(key in pk) || pi[key] != a[1] || pt[key] != ty) { big = 1; next }',
  '  if (a[2] == ps[key] && a[3] == pm[key]) next',
  '  if (ty == "directory" || ty == "Directory" || a[2] + 0 < ps[key] + 0) { big = 1; next }',
  '  line = s',
  '  if (b64 && a[2] + 0 > ps[key] + 0 && a[2] - ps[key] <= cap) {',
  '    from = ps[key] - overlap; if (from < 0) from = 0; print "+ " from " " a[2] " " line',
  '  } else print "~ " line',
  '}',
  'END {',
  '  for (k in pk) if (!(k in ck)) big = 1',
  '  for (x in pd) if (!(x in cd)) big = 1',
  '  for (x in cd) if (!(x in pd)) big = 1',
  '  for (x in po) if (!(x in co)) big = 1',
  '  for (x in co) if (!(x in po)) big = 1',
  '  if (big) print "changed"',
  '}',
].join('\n');

/**
 * The watcher that runs on the host while folders are watched. It prints, a line each:
 *
 * - `+<from> <base64> <st line>`: a file grew, with its bytes from `from` to its new size (the
 *   last FRAME_OVERLAP bytes before its previous end included) and its stat, so the poll it wakes
 *   reads that file from the frame, with no request to the host;
 * - `~<st line>`: a file changed in place beyond what a frame carries: read it by requests;
 * - `changed`: something else changed (a file or folder came or went, was replaced or truncated):
 *   anything may have changed, the poll reads the folders again;
 * - `.`: a heartbeat, every `heartbeatMs` (HEARTBEAT_MS).
 *
 * Its first report is `changed` (what changed before it started is not known). The Perl one's
 * (watcher-perl.ts) is its listing instead, `@<st line>` an entry, then `listed`: the reader
 * compares it with what it last saw and asks only for what differs (see FirstListing).
 *
 * Two parts, both stock tools only (sh, stat, awk, tail, head, base64, tr):
 *
 * - **Events**: `tail -n0 -F` over the files in the folders (inotify on Linux, kqueue on BSD and
 *   macOS) wakes at once when one grows; `head -c1` takes the first byte, so no file content
 *   crosses the link that way, and the tail is started again. It cuts the listing's sleep short
 *   (a `wake` file, then the sleep's pid). Each tail writes its pid first (it is `exec`ed by a tiny
 *   `sh`), so the one that woke is ended at once, not on its next write. The loop starts after
 *   the first listing (as the Perl watcher's tail does), so its first tail follows the names that
 *   listing saw and no kick ends it.
 * - **Listing**: every `statMs`, or at once when woken, the folders are stat-ed and compared with
 *   the previous listing (awk); the one writer of the output. A listing also catches what was
 *   appended while no tail ran. A new or vanished name appends to a private kick file the tails
 *   follow, so the next tail follows the new file. Where `tail -F` cannot run this part alone
 *   remains, every FALLBACK_STAT_MS.
 *
 * It ends once the link is gone: its input (the channel's) ends, and a reader of it ends the
 * watcher at once; a write that fails ends it too (the heartbeat tries one every HEARTBEAT_MS, for
 * a host whose sshd keeps the input open), and HUP, INT and TERM. On exit it kills the events
 * loop, the input's reader and the current tail by pid, never by a kick a tail may miss. A tail started while it exits finds the `go` file gone and does
 * not start; the events loop also stops once the watcher's pid is gone. Only `kill`, `read` and
 * files: it works where `set -m` needs a terminal (dash) and where there is no `setsid` or `tail
 * --pid` (macOS). Nothing is left running on the host.
 */
export function watcherScript(dirs: readonly string[], statMs: number, heartbeatMs = HEARTBEAT_MS): string {
  const each = dirs.map(shellQuote).join(' ');
  const beats = Math.max(1, Math.round(heartbeatMs / statMs));
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  // The tail's own sh: record its pid, then become the tail unless the watcher is ending.
  const tail = shellQuote('echo $$ >"$0/tp" && [ -e "$0/go" ] && exec tail -n0 -q -F -- "$@"');
  return [
    STAT_FN,
    NAMES_FN,
    ODD_FN,
    "trap '' PIPE",
    'me=$$; rpid=',
    'w=$(mktemp -d 2>/dev/null) || { w="${TMPDIR:-/tmp}/loopdeck-watch.$$"; mkdir "$w"; } || exit 1',
    'k="$w/kick"; : >"$k"; : >"$w/go"; : >"$w/prev"',
    // Frames need a working base64 (GNU, BSD and busybox have one); without it, `~` lines.
    // `enc` is base64 on one line: `-w0` where it is known (GNU, busybox), else with `tr`.
    'b64=0; enc() { base64 | tr -d \'\\n\'; }; [ "$(printf ab | enc 2>/dev/null)" = YWI= ] && b64=1',
    '[ "$(printf ab | base64 -w0 2>/dev/null)" = YWI= ] && enc() { base64 -w0; }',
    // A sleep that takes fractions, or whole seconds where it does not.
    `short=${seconds(statMs)}; fast=${seconds(Math.min(statMs, FALLBACK_STAT_MS))}`,
    'sleep 0.001 2>/dev/null || { short=1; fast=1; }',
    'events() {',
    '  while [ -e "$w/go" ] && kill -0 "$me" 2>/dev/null; do',
    `    set -- "$k"; for d in ${each}; do for f in "$d"/*; do [ -f "$f" ] && set -- "$@" "$f"; done; done`,
    // On the first byte: mark the wake and cut the listing's sleep short. Status 3: no tail ran.
    `    sh -c ${tail} "$w" "$@" 2>/dev/null | { n=$(head -c1 | wc -c); [ "$n" -gt 0 ] 2>/dev/null || exit 3; : >"$w/wake"; read -r sp 2>/dev/null <"$w/sp" && kill "$sp" 2>/dev/null; exit 0; }`,
    '    r=$?; read -r tp 2>/dev/null <"$w/tp" && kill "$tp" 2>/dev/null',
    '    [ $r -eq 3 ] && { [ -e "$w/go" ] && : >"$k.off"; return 0; }',
    '  done',
    '}',
    // The events loop starts after the first listing (below), so its first tail follows the names
    // that listing saw and needs no kick: a kick would end it at once, and an append while the
    // next one started would wait for a listing.
    'epid=',
    // Stop new tails, end the loop, then the tail it may have started (its pid is written first).
    `trap 'rm -f "$w/go"; kill $epid $rpid 2>/dev/null; [ -n "$epid" ] && wait "$epid" 2>/dev/null; read -r tp 2>/dev/null <"$w/tp" && kill "$tp" 2>/dev/null; rm -rf "$w"' EXIT`,
    "trap 'exit 0' HUP INT TERM",
    // Its input is the link's (an asynchronous list reads /dev/null, hence fd 3): at its end (the
    // channel closed, sshd gone) the watcher ends at once, with no heartbeat needed to find out.
    'exec 3<&0',
    '{ while IFS= read -r x <&3; do :; done; kill "$me" 2>/dev/null; } &',
    'rpid=$!',
    'prev=; n=0',
    'while :; do',
    // Woken: list again FALLBACK_STAT_MS later too, for what came while the next tail was starting.
    '  if [ -e "$w/wake" ]; then rm -f "$w/wake"; woke=1; else woke=0; fi',
    // One stat for every entry of every folder, by full path (no subshell, no cd).
    // Only a plain name travels in a line (see NAMES_FN); any other, as `O <dir> =<stat><hex>`, only
    // says that something changed: the names of a folder in one batch (ODD_FN), not three programs each.
    `  cur=$(for d in ${each}; do [ -d "$d" ] || continue; echo "D $d"; set --; for f in "$d"/*; do [ -e "$f" ] || continue; case \${f##*/} in ${ODD_NAME}) set -- "$@" "\${f##*/}" ;; esac; done; [ $# -gt 0 ] && (cd "$d" 2>/dev/null && ox_p="O $d " && export ox_p && ox "$@"); done; ` +
      `set --; for d in ${each}; do [ -d "$d" ] || continue; for f in "$d"/*; do [ -e "$f" ] || continue; case \${f##*/} in ${ODD_NAME}) ;; *) set -- "$@" "$f" ;; esac; done; done; [ $# -gt 0 ] && st "$@" 2>/dev/null)`,
    '  if [ "$cur" != "$prev" ]; then',
    `    acts=$(printf '%s\\n' "$cur" | awk -v b64=$b64 -v cap=${MAX_FRAME_BYTES} -v overlap=${FRAME_OVERLAP} ${shellQuote(DIFF_AWK)} t=P "$w/prev" t=C -)`,
    `    printf '%s\\n' "$cur" >"$w/prev"; prev=$cur`,
    '    while IFS= read -r a; do',
    '      case $a in',
    '        changed) echo changed || exit 0; [ -n "$epid" ] && echo >>"$k" ;;',
    // `+ from to st-line`: the st line's last field is the path (after five `|`).
    '        "+ "*) r=${a#+ }; s0=${r%% *}; r=${r#* }; t0=${r%% *}; l=${r#* }; p=${l#*|*|*|*|*|}',
    `          printf '+%s %s %s\\n' "$s0" "$(tail -c +$((s0 + 1)) -- "$p" 2>/dev/null | head -c $((t0 - s0)) | enc)" "$l" || exit 0 ;;`,
    '        "~ "*) echo "~${a#~ }" || exit 0 ;;',
    '      esac',
    '    done <<EOF',
    '$acts',
    'EOF',
    '  fi',
    // (Then list again FALLBACK_STAT_MS later, as after a wake: where the tail cannot run, the
    // fallback's fast listing starts from there, not a whole interval later.)
    '  [ -n "$epid" ] || { events & epid=$!; woke=1; }',
    `  n=$((n + 1)); if [ $n -ge ${beats} ]; then echo . || exit 0; n=0; fi`,
    '  [ -e "$w/wake" ] && continue',
    '  if [ -e "$k.off" ] || [ $woke = 1 ]; then sleep "$fast" & else sleep "$short" & fi',
    // A wake between the check above and this pid's file found no sleep to cut short: look again
    // once the file is there (a wake after this look reads it and ends the sleep itself).
    '  echo $! >"$w/sp"; [ -e "$w/wake" ] && kill $! 2>/dev/null; wait $! 2>/dev/null; rm -f "$w/sp"',
    'done',
  ].join('\n');
}
