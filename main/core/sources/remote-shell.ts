import type { FileKind, FileStat } from './file-source';

/** Quote a value for a POSIX shell: one single-quoted word, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `st` shell function that stats its arguments on GNU (Linux) or BSD (macOS) userlands alike,
 * printing `inode|size|mtime|birth|type|name` a line. Only stock tools: nothing is installed.
 * Symbolic links are followed (`-L`), as on a local host: a link to a named pipe is a named pipe.
 */
export const STAT_FN =
  "if stat -c %i / >/dev/null 2>&1; then st() { stat -L -c '%i|%s|%Y|%W|%F|%n' -- \"$@\"; }; sn() { stat -L -c '%i|%s|%Y|%W|%F|' -- \"$@\"; }; " +
  "else st() { stat -L -f '%i|%z|%m|%B|%HT|%N' -- \"$@\"; }; sn() { stat -L -f '%i|%z|%m|%B|%HT|' -- \"$@\"; }; fi";

/**
 * How names cross the link unambiguously (see file-names.ts): the C locale, so `[:print:]` means
 * printable ASCII byte by byte (and stat's type names are not translated), and `hx`, a name's
 * bytes in hex. A name of printable ASCII only is sent as it is; any other name (a newline in it
 * could forge a line of another file) is sent as `hx` gives it, and decided on this side.
 */
export const NAMES_FN = "LC_ALL=C; export LC_ALL; hx() { printf %s \"$1\" | od -An -v -tx1 | tr -d ' \\n'; }";

/** awk: the names' hex on its line (each name's ended by `00`: a name holds no NUL) into `h[1..k]`. */
const SPLIT_HEX = 'k = 0; c = ""; n = length($0); for (i = 1; i < n; i += 2) { b = substr($0, i, 2); if (b == "00") { h[++k] = c; c = "" } else c = c b }';

/**
 * Names that are not plain, in batches (after STAT_FN and NAMES_FN), in the order given:
 *
 * - `oh NAME...`: a line each, `x` + its hex;
 * - `ox NAME...` (names in the current folder): a listing line each, `=` + its `sn` line + its hex
 *   (parseListingLine), each line led by `$ox_p` when that is exported; with no stat part for one
 *   that was gone by the stat, the names asked one by one then (their stat lines no longer line up).
 *
 * One od, one stat and one awk for all the names: a subshell and three programs a name made a
 * folder of 300 such names cost seconds a listing, and the sh watcher lists every 250 ms.
 */
export const ODD_FN = [
  "oh() { [ $# -gt 0 ] || return 0; printf '%s\\000' \"$@\" | od -An -v -tx1 | tr -d ' \\n' | awk '{ " + SPLIT_HEX + ' } END { for (i = 1; i <= k; i++) print "x" h[i] }\'; }',
  "ox() { [ $# -gt 0 ] || return 0; ox_o=$({ printf '%s\\000' \"$@\" | od -An -v -tx1 | tr -d ' \\n'; echo; sn \"$@\" 2>/dev/null; } | awk 'NR == 1 { " +
    SPLIT_HEX +
    '; next } $0 != "" { s[++m] = $0 } END { if (m != k) { print "?"; exit } for (i = 1; i <= k; i++) print ENVIRON["ox_p"] "=" s[i] h[i] }\'); ' +
    'if [ "$ox_o" = "?" ]; then for f; do printf \'%s=%s%s\\n\' "${ox_p-}" "$(sn "$f" 2>/dev/null)" "$(hx "$f")"; done; else printf \'%s\\n\' "$ox_o"; fi; }',
].join('; ');

/** The `case` pattern of a name that is not printable ASCII only (in the C locale NAMES_FN sets). */
export const ODD_NAME = '*[![:print:]]*';

/** Exit code our scripts use for "no such file or folder". */
export const MISSING = 3;

/**
 * The script that lists a folder's sub-folders: `p` + a plain name, `x` + any other's hex (see
 * NAMES_FN), a line each. Shell builtins only for plain names, no stat: one request, and a fixed
 * number of programs (ODD_FN's) whatever the folder holds. Exit MISSING when it is not there.
 */
export function dirsScript(path: string): string {
  return `${STAT_FN}; ${NAMES_FN}; ${ODD_FN}; cd ${shellQuote(path)} 2>/dev/null || exit ${MISSING}; set --; for f in *; do [ -d "$f" ] || continue; case $f in ${ODD_NAME}) set -- "$@" "$f" ;; *) printf 'p%s\\n' "$f" ;; esac; done; oh "$@"; exit 0`;
}

/**
 * The script that lists a folder's entries with their stats (parseListingLine a line): plain
 * names stat-ed in one batch, any other names in another, sent in hex (ODD_FN): a fixed number
 * of programs whatever the folder holds. Exit MISSING when it is not there.
 */
export function listScript(path: string): string {
  return (
    `${STAT_FN}; ${NAMES_FN}; ${ODD_FN}; cd ${shellQuote(path)} 2>/dev/null || exit ${MISSING}; set --; ` +
    `for f in *; do [ -e "$f" ] || [ -L "$f" ] || continue; case $f in ${ODD_NAME}) set -- "$@" "$f" ;; esac; done; ox "$@"; set --; ` +
    `for f in *; do [ -e "$f" ] || [ -L "$f" ] || continue; case $f in ${ODD_NAME}) ;; *) set -- "$@" "$f" ;; esac; done; ` +
    `[ $# -gt 0 ] && st "$@" 2>/dev/null; exit 0`
  );
}

/**
 * The kind of file from GNU `%F` ("regular file", "regular empty file", "fifo", "character special
 * file") or BSD `%HT` ("Regular File", "FIFO File", "Character Device"); anything unknown is `other`.
 */
export function parseFileType(type: string): FileKind {
  const t = type.trim().toLowerCase();
  if (t === 'regular file' || t === 'regular empty file') return 'file';
  if (t === 'directory') return 'directory';
  if (t === 'fifo' || t === 'fifo file') return 'fifo';
  if (t === 'socket') return 'socket';
  if (/^(character|block) (special file|device)$/.test(t)) return 'device';
  if (t === 'symbolic link') return 'broken-link';
  return 'other';
}

/**
 * Parse one line of a listing: an `st` line of a plain name, or `=` + an `sn` line + the name's
 * hex for any other name (the stat part empty when it could not be stat-ed). Null when it is
 * neither; the name's bytes for an encoded one, so the caller can decide it.
 */
export function parseListingLine(line: string): { name: string; stat: FileStat } | { bytes: Buffer; stat: FileStat | null } | null {
  if (!line.startsWith('=')) return parseStatLine(line);
  const cut = line.lastIndexOf('|');
  const hex = line.slice(cut < 0 ? 1 : cut + 1);
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return null;
  return { bytes: Buffer.from(hex, 'hex'), stat: cut < 0 ? null : (parseStatLine(`${line.slice(1, cut + 1)}x`)?.stat ?? null) };
}

/** Parse one `st` line; null when it is not one. */
export function parseStatLine(line: string): { name: string; stat: FileStat } | null {
  const parts = line.split('|');
  if (parts.length < 6) return null;
  const [ino, size, mtime, birth, type] = parts;
  const name = parts.slice(5).join('|');
  const sizeN = Number(size);
  const mtimeN = Number(mtime);
  if (!/^\d+$/.test(ino ?? '') || !Number.isFinite(sizeN) || !Number.isFinite(mtimeN)) return null;
  const birthN = Number(birth);
  return {
    name,
    stat: {
      ino: ino ?? '',
      size: sizeN,
      mtimeMs: mtimeN * 1000,
      birthtimeMs: Number.isFinite(birthN) && birthN > 0 ? birthN * 1000 : null,
      kind: parseFileType(type ?? ''),
      isDirectory: parseFileType(type ?? '') === 'directory',
    },
  };
}
