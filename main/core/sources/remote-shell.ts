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
  "if stat -c %i / >/dev/null 2>&1; then st() { stat -L -c '%i|%s|%Y|%W|%F|%n' -- \"$@\"; }; sn() { stat -L -c '%i|%s|%Y|%W|%F|' -- \"$1\"; }; " +
  "else st() { stat -L -f '%i|%z|%m|%B|%HT|%N' -- \"$@\"; }; sn() { stat -L -f '%i|%z|%m|%B|%HT|' -- \"$1\"; }; fi";

/**
 * How names cross the link unambiguously (see file-names.ts): the C locale, so `[:print:]` means
 * printable ASCII byte by byte (and stat's type names are not translated), and `hx`, a name's
 * bytes in hex. A name of printable ASCII only is sent as it is; any other name (a newline in it
 * could forge a line of another file) is sent as `hx` gives it, and decided on this side.
 */
export const NAMES_FN = "LC_ALL=C; export LC_ALL; hx() { printf %s \"$1\" | od -An -v -tx1 | tr -d ' \\n'; }";

/** The `case` pattern of a name that is not printable ASCII only (in the C locale NAMES_FN sets). */
export const ODD_NAME = '*[![:print:]]*';

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
