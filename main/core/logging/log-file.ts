import { appendFileSync, closeSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeFolder } from '../config/data-folder';
import { rotateLogFiles } from './rotate';

/** How long a log file that could not be written is left alone before it is tried again (ms). */
export const LOG_RETRY_MS = 60_000;

/** How a log file is kept. */
export interface LogFileOptions {
  /** Rotate before a line that would start past this many bytes. */
  readonly maxBytes: number;
  /** Files kept, the live one included. */
  readonly files: number;
  /** Says, once each time, that the file could not be written and that it can be again (one line each). */
  readonly report: (line: string) => void;
  readonly now?: () => number;
}

const errorText = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e.code && !e.message.startsWith(e.code) ? `${e.code}: ${e.message}` : e.message;
};

/**
 * One log file, appended line by line synchronously (a crash leaves the lines before it) and
 * rotated past `maxBytes`. A file that cannot be written — a read-only or full data folder — is
 * reported once, not once a line; `append` then answers false at once (the caller sends the line
 * elsewhere) until LOG_RETRY_MS have passed, when the next line tries the file again, so writing
 * resumes on its own once the folder has room.
 */
export class LogFile {
  /** The file's size as last known; null until looked at (and after a failure). */
  private size: number | null = null;
  private failing = false;
  private retryAt = 0;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    private readonly options: LogFileOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Append `text` (one or more whole lines); false when it could not be written. */
  append(text: string): boolean {
    if (this.failing && this.now() < this.retryAt) return false;
    try {
      if (this.size === null) this.size = this.open();
      if (this.size > this.options.maxBytes) {
        this.rotate();
        this.size = 0;
      }
      appendFileSync(this.path, text);
      this.size += Buffer.byteLength(text);
    } catch (err) {
      this.size = null;
      this.retryAt = this.now() + LOG_RETRY_MS;
      if (!this.failing) {
        this.failing = true;
        this.options.report(`cannot write ${this.path}: ${errorText(err)}; logging warnings and errors to stderr only, and trying the file again every ${LOG_RETRY_MS / 1000} s.`);
      }
      return false;
    }
    if (this.failing) {
      this.failing = false;
      this.options.report(`writing ${this.path} again.`);
    }
    return true;
  }

  /** The size of the file (created with its folder if need be), ending a line torn by an earlier failure. */
  private open(): number {
    makeFolder(dirname(this.path));
    let size = 0;
    try {
      size = statSync(this.path).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (size > 0 && this.failing && this.lastByte(size) !== 0x0a) {
      appendFileSync(this.path, '\n');
      size += 1;
    }
    return size;
  }

  private lastByte(size: number): number {
    const fd = openSync(this.path, 'r');
    try {
      const one = Buffer.alloc(1);
      readSync(fd, one, 0, 1, size - 1);
      return one[0] ?? 0x0a;
    } finally {
      closeSync(fd);
    }
  }

  private rotate(): void {
    try {
      rotateLogFiles(this.path, this.options.files);
    } catch (err) {
      // Cannot rename (another process holds it open on Windows): start it afresh rather than grow.
      this.options.report(`could not rotate ${this.path}, so it was emptied: ${errorText(err)}`);
      writeFileSync(this.path, '');
    }
  }
}
