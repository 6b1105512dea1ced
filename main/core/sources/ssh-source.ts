import type { SshConnection } from '../ssh/connection';
import type { DirEntry, FileSource, FileStat } from './file-source';

/** Quote a value for a POSIX shell: one single-quoted word, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `st` shell function that stats its arguments on GNU (Linux) or BSD (macOS) userlands alike,
 * printing `inode|size|mtime|birth|type|name` a line. Only stock tools: nothing is installed.
 */
const STAT_FN =
  "if stat -c %i / >/dev/null 2>&1; then st() { stat -c '%i|%s|%Y|%W|%F|%n' -- \"$@\"; }; " +
  "else st() { stat -f '%i|%z|%m|%B|%HT|%N' -- \"$@\"; }; fi";

/** Exit code our scripts use for "no such file or folder". */
const MISSING = 3;

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
      isDirectory: /^directory$/i.test(type ?? ''),
    },
  };
}

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

/** Options of an SshSource. */
export interface SshSourceOptions {
  /**
   * How often the watcher lists the watched folders (ms), for new files and folders; a file that
   * grows wakes it at once anyway. Default 250 (FALLBACK_STAT_MS where `tail -F` does not run).
   */
  readonly watchStatMs?: number;
}

/**
 * Files on a host reached over SSH, through the host's one connection: `stat` and `tail | head`
 * over exec channels, so only appended bytes cross the link. Works on Linux and macOS runners.
 */
export class SshSource implements FileSource {
  private watching: { key: string; stop: (() => void) | null } | null = null;

  constructor(
    readonly host: string,
    private readonly connection: SshConnection,
    private readonly options: SshSourceOptions = {},
  ) {}

  /**
   * One watcher channel on the host (see watcherScript), so a poll starts as soon as a watched
   * file grows or a folder changes instead of on the next tick.
   */
  watch(dirs: readonly string[], onChange: () => void): void {
    const key = [...dirs].sort().join('\0');
    if (this.watching?.key === key) return;
    this.unwatch();
    if (dirs.length === 0) return;
    const state: { key: string; stop: (() => void) | null } = { key, stop: null };
    this.watching = state;
    const script = watcherScript(dirs, this.options.watchStatMs ?? 250);
    this.connection
      .stream(`exec sh -c ${shellQuote(script)}`, (line) => line === 'changed' && onChange(), () => {
        // The link dropped or the watcher was replaced: the next watch() call starts a new one.
        if (this.watching === state) this.watching = null;
      })
      .then(
        (stop) => {
          if (this.watching === state) state.stop = stop;
          else stop();
        },
        () => {
          if (this.watching === state) this.watching = null;
        },
      );
  }

  unwatch(): void {
    this.watching?.stop?.();
    this.watching = null;
  }

  async stat(path: string): Promise<FileStat | null> {
    const q = shellQuote(path);
    const out = await this.connection.run(`${STAT_FN}; [ -e ${q} ] || exit ${MISSING}; st ${q}`);
    if (out.code === MISSING) return null;
    const parsed = parseStatLine(out.stdout.toString('utf8').split('\n')[0] ?? '');
    if (out.code !== 0 || !parsed) {
      throw new Error(`Host ${this.host}: cannot stat ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    }
    return parsed.stat;
  }

  async read(path: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    const out = await this.connection.run(`tail -c +${offset + 1} -- ${shellQuote(path)} | head -c ${length}`);
    if (out.code !== 0 && out.stdout.length === 0) {
      throw new Error(`Host ${this.host}: cannot read ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    }
    return out.stdout.subarray(0, length);
  }

  async list(path: string): Promise<DirEntry[] | null> {
    const script = `${STAT_FN}; cd ${shellQuote(path)} 2>/dev/null || exit ${MISSING}; set -- *; [ -e "$1" ] || exit 0; st "$@" 2>/dev/null; exit 0`;
    const out = await this.connection.run(script);
    if (out.code === MISSING) return null;
    if (out.code !== 0) throw new Error(`Host ${this.host}: cannot list ${path}: ${out.stderr.trim() || `exit ${out.code}`}`);
    const entries: DirEntry[] = [];
    for (const line of out.stdout.toString('utf8').split('\n')) {
      const parsed = parseStatLine(line);
      if (parsed) entries.push({ name: parsed.name, isDirectory: parsed.stat.isDirectory, stat: parsed.stat });
    }
    return entries;
  }
}
