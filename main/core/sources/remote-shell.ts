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
  "if stat -c %i / >/dev/null 2>&1; then st() { stat -L -c '%i|%s|%Y|%W|%F|%n' -- \"$@\"; }; " +
  "else st() { stat -L -f '%i|%z|%m|%B|%HT|%N' -- \"$@\"; }; fi";

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
