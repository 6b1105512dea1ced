// The transcript rows the view holds: blocks of BLOCK_ROWS lines, fetched when a block comes into
// view (with the block after it, as margin) and dropped least recently used past MAX_BLOCKS, so a
// view of a 1 GB file holds a few hundred kilobytes and asks main only for what is shown.

/** One line of a transcript as main sends it. */
export interface TranscriptRow {
  /** 1-based line number. */
  readonly n: number;
  readonly text: string;
  /** The line was longer than main keeps (1 MiB) and is cut. */
  readonly cut: boolean;
}

/** Lines per block: one request each. */
export const BLOCK_ROWS = 200;

/** Blocks held at most (80,000 lines of a few hundred bytes: well under the page's budget). */
export const MAX_BLOCKS = 40;

/** The block that holds a line. */
export const blockOf = (line: number): number => Math.floor((line - 1) / BLOCK_ROWS);

/** Fetch `count` rows from line `from` (1-based). */
export type FetchRows = (from: number, count: number) => Promise<readonly TranscriptRow[]>;

/** Blocks of rows, fetched on demand, one request in flight per block. */
export class RowCache {
  private readonly blocks = new Map<number, readonly TranscriptRow[]>();
  private readonly pending = new Map<number, Promise<void>>();
  private generation = 0;
  /** The file's line count as last asked for: a block that came back shorter while it grew is read again. */
  private lines = 0;

  constructor(
    private readonly fetch: FetchRows,
    private readonly changed: () => void,
  ) {}

  /** The rows of lines from..from+count-1 held now (a hole where a block is not here yet). */
  rows(from: number, count: number): (TranscriptRow | undefined)[] {
    const out: (TranscriptRow | undefined)[] = [];
    for (let n = from; n < from + count; n++) {
      const block = this.blocks.get(blockOf(n));
      out.push(block?.[(n - 1) % BLOCK_ROWS]);
    }
    return out;
  }

  /** Ask for what lines from..from+count-1 need (and the block after, as margin) within `lines`. */
  want(from: number, count: number, lines: number): void {
    this.lines = lines;
    if (lines <= 0) return;
    const first = blockOf(Math.max(1, from));
    const last = Math.min(blockOf(Math.max(1, Math.min(lines, from + count - 1))) + 1, blockOf(lines));
    for (let b = first; b <= last; b++) {
      const held = this.blocks.get(b);
      if (held) {
        // Touched: most recently used last.
        this.blocks.delete(b);
        this.blocks.set(b, held);
        // A block that was the file's end when fetched, and the file has grown since.
        if (held.length < BLOCK_ROWS && b * BLOCK_ROWS + held.length < lines) this.load(b);
        continue;
      }
      this.load(b);
    }
  }

  /** The file was truncated or replaced: nothing held is its text any more. */
  reset(): void {
    this.generation += 1;
    this.blocks.clear();
    this.pending.clear();
    this.changed();
  }

  /** How many blocks are held (for tests and the view's budget). */
  get size(): number {
    return this.blocks.size;
  }

  private load(b: number): void {
    if (this.pending.has(b)) return;
    const generation = this.generation;
    const p = this.fetch(b * BLOCK_ROWS + 1, BLOCK_ROWS)
      .then((rows) => {
        if (generation !== this.generation) return;
        this.blocks.set(b, rows);
        while (this.blocks.size > MAX_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
        this.changed();
        // The file grew while this block was read (follow): its new lines are read now, not at the next scroll.
        if (rows.length < BLOCK_ROWS && b * BLOCK_ROWS + rows.length < this.lines) {
          this.pending.delete(b);
          this.load(b);
        }
      })
      .catch(() => undefined)
      .finally(() => {
        if (this.pending.get(b) === p) this.pending.delete(b);
      });
    this.pending.set(b, p);
  }
}
