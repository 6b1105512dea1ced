/** The longest line a long-lived stream (the watcher) may print; a longer one is cut there. */
export const MAX_STREAM_LINE_BYTES = 1024 * 1024;

/**
 * Splits a byte stream into UTF-8 lines, bounded: a line longer than `maxBytes` is handed on cut
 * to its first `maxBytes` (its reader finds it malformed) and the rest of it, up to its newline,
 * is skipped, so a runaway writer cannot grow the buffer. Bytes are joined before decoding, so a
 * character split across chunks stays whole.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Take the next chunk and hand on every line it completes. */
  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl < 0 ? chunk.length : nl;
      if (!this.skipping) {
        const room = this.maxBytes - this.held;
        const take = Math.min(end - pos, room);
        if (take > 0) {
          this.parts.push(chunk.subarray(pos, pos + take));
          this.held += take;
        }
        if (nl < 0 && end - pos > room) this.cut();
      }
      if (nl < 0) return;
      if (this.skipping) this.skipping = false;
      else this.emit();
      pos = nl + 1;
    }
  }

  private cut(): void {
    this.emit();
    this.skipping = true;
  }

  private emit(): void {
    const line = Buffer.concat(this.parts, this.held).toString('utf8');
    this.parts = [];
    this.held = 0;
    this.onLine(line);
  }
}
