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

/**
 * Files on a host reached over SSH, through the host's one connection: `stat` and `tail | head`
 * over exec channels, so only appended bytes cross the link. Works on Linux and macOS runners.
 */
export class SshSource implements FileSource {
  private watching: { key: string; stop: (() => void) | null } | null = null;

  constructor(
    readonly host: string,
    private readonly connection: SshConnection,
  ) {}

  /**
   * One watcher channel on the host: a shell loop that stats these folders every 50 ms and prints
   * a line when anything in them changed, so a poll starts at once instead of on the next tick.
   */
  watch(dirs: readonly string[], onChange: () => void): void {
    const key = [...dirs].sort().join('\0');
    if (this.watching?.key === key) return;
    this.unwatch();
    if (dirs.length === 0) return;
    const state: { key: string; stop: (() => void) | null } = { key, stop: null };
    this.watching = state;
    const each = dirs.map(shellQuote).join(' ');
    // The `.` every ~20 rounds is a heartbeat: once the link is gone, writing it fails (SIGPIPE)
    // and the loop ends, so a dropped connection never leaves a watcher running on the host.
    const script =
      `${STAT_FN}; prev=; n=0; while :; do ` +
      `cur=$(for d in ${each}; do (cd "$d" 2>/dev/null && set -- * && [ -e "$1" ] && st "$@"); done 2>/dev/null | cksum); ` +
      'if [ "$cur" != "$prev" ]; then echo changed || exit 0; prev=$cur; fi; ' +
      'n=$((n + 1)); if [ $n -ge 20 ]; then echo . || exit 0; n=0; fi; sleep 0.05 2>/dev/null || sleep 1; done';
    this.connection
      .stream(script, (line) => line === 'changed' && onChange(), () => {
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
