import type { FileStat } from './file-source';

/** Quote a value for a POSIX shell: one single-quoted word, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `st` shell function that stats its arguments on GNU (Linux) or BSD (macOS) userlands alike,
 * printing `inode|size|mtime|birth|type|name` a line. Only stock tools: nothing is installed.
 */
export const STAT_FN =
  "if stat -c %i / >/dev/null 2>&1; then st() { stat -c '%i|%s|%Y|%W|%F|%n' -- \"$@\"; }; " +
  "else st() { stat -f '%i|%z|%m|%B|%HT|%N' -- \"$@\"; }; fi";

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
