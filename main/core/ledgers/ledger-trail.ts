import type { LineParser } from '../text/line-parser';
import { cleanLine } from '../text/lines';
import { headingOf } from './ledger-lines';
import { ledgerParser } from './ledger-parser';
import type { LedgerRecord, LedgerState } from './ledger-records';

// What Loopdeck read of a ledger, line by line, as a hash a line: enough to tell where a ledger
// read again after a rewrite first differs from what was read before (FORMATS.md §3: the log is
// append-only, an audit section is frozen once written), at a cost of one hash per line read.

/** How a ledger may change: RELIABILITY_LOG.md only grows; RELIABILITY_AUDIT.md grows in its last section (and its audit ledger). */
export type LedgerRule = 'append-only' | 'frozen-sections';

/** Where a ledger read again first differs from the read before: a line of the new text. */
export interface FirstChange {
  /** 1-based, in the text as it is now (for `removed`, where the removed line was). */
  readonly line: number;
  /** `changed`: the line's text differs; `removed`: a line read before is gone; `added`: a frozen section gained a line. */
  readonly how: 'changed' | 'removed' | 'added';
  /** The `#`/`##` heading the line is under now (null before the first). */
  readonly section: string | null;
}

/** A `#` or `##` heading of what was read: where a section starts. */
interface Head {
  readonly line: number;
  readonly text: string;
}

/** Lines 1..n as hashes (0 for a blank line), and where the sections start. */
interface Read {
  readonly lines: number[];
  readonly heads: Head[];
}

interface Block {
  readonly heading: string | null;
  /** First and last line (1-based, inclusive). */
  readonly start: number;
  readonly end: number;
}

/** A 53-bit hash of a line's text (cyrb53); 0 only for a blank line. */
export function lineHash(text: string): number {
  if (text.trim() === '') return 0;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) || 1;
}

/** The sections of the first `upTo` lines: a block a heading (and one before the first heading). */
function blocksOf(read: Read, upTo: number): Block[] {
  const out: Block[] = [];
  const heads = read.heads.filter((h) => h.line <= upTo);
  const first = heads[0]?.line ?? upTo + 1;
  if (first > 1) out.push({ heading: null, start: 1, end: first - 1 });
  heads.forEach((h, i) => out.push({ heading: h.text, start: h.line, end: (heads[i + 1]?.line ?? upTo + 1) - 1 }));
  return out;
}

/** A block's length without its trailing blank lines. */
function trimmed(lines: readonly number[], b: Block): number {
  let end = b.end;
  while (end >= b.start && lines[end - 1] === 0) end -= 1;
  return end - b.start + 1;
}

/** Compares a ledger read again, block by block as its sections complete, with the read before. */
class Comparison {
  private readonly before: Block[];
  /** The next section read before still to be found, the sections of the new text compared so far. */
  private next = 0;
  private compared = 0;
  /** The first line of a section the new text has that the old one did not, since the last match. */
  private inserted: number | null = null;

  constructor(
    private readonly old: Read,
    private readonly rule: LedgerRule,
  ) {
    this.before = blocksOf(old, old.lines.length);
  }

  restart(): void {
    this.next = 0;
    this.compared = 0;
    this.inserted = null;
  }

  /** A section read before may grow at its end: every one of the log's, the audit's last and its audit ledger. */
  private open(i: number): boolean {
    if (this.rule === 'append-only' || i === this.before.length - 1) return true;
    return /^audit ledger\b/i.test(this.before[i]?.heading ?? '');
  }

  /** Compare the sections of `now` complete so far (all of them once `ended`); the first change, if any. */
  step(now: Read, ended: boolean): Omit<FirstChange, 'section'> | null {
    const blocks = blocksOf(now, now.lines.length);
    const complete = ended ? blocks.length : blocks.length - 1;
    for (; this.compared < complete; this.compared++) {
      const b = blocks[this.compared];
      if (b === undefined) break;
      const o = this.before[this.next];
      if (o !== undefined && o.heading === b.heading) {
        const change = this.compare(o, b, now.lines, this.open(this.next));
        if (change) return change;
        this.next += 1;
        this.inserted = null;
      } else if (this.before.slice(this.next + 1).some((later) => later.heading === b.heading)) {
        // A section read before is missing here (removed, or its heading changed).
        return { line: this.inserted ?? b.start, how: o !== undefined && this.inserted !== null ? 'changed' : 'removed' };
      } else {
        // A section the earlier read did not have: new text, no byte read before changed.
        this.inserted ??= b.start;
      }
    }
    if (ended && this.next < this.before.length) return { line: this.inserted ?? now.lines.length + 1, how: this.inserted === null ? 'removed' : 'changed' };
    return null;
  }

  private compare(o: Block, b: Block, lines: readonly number[], open: boolean): Omit<FirstChange, 'section'> | null {
    const had = trimmed(this.old.lines, o);
    const has = trimmed(lines, b);
    for (let i = 0; i < had; i++) {
      if (i >= has) return { line: b.start + i, how: 'removed' };
      if (this.old.lines[o.start - 1 + i] !== lines[b.start - 1 + i]) return { line: b.start + i, how: 'changed' };
    }
    if (!open && has > had) return { line: b.start + had, how: 'added' };
    return null;
  }
}

/**
 * One ledger's lines as read in this process. `parser` is the ledger parser noting each line it
 * is given; after each poll of the file, `settle` says whether what it read was appended or read
 * again from the start (a rewrite, a truncation, a replaced file), and once a read again has
 * reached the end of the file (or differs), where it first differs from what was read before.
 * Lines read before this process started are not known: a rewrite of those is read again
 * without naming a line (null), as a restart cannot say what the bytes were.
 */
export class LedgerTrail {
  /** The first line known (1 when everything read is). */
  private first: number;
  private read: Read = { lines: [], heads: [] };
  private incoming: { lineNo: number; hash: number; head: string | null }[] = [];
  private comparison: Comparison | null = null;

  /** The ledger parser, noting each line as it parses it. */
  readonly parser: LineParser<LedgerState, LedgerRecord>;

  /** `known`: how many lines were read before this process (not known here). */
  constructor(
    private readonly rule: LedgerRule,
    known = 0,
  ) {
    this.first = known + 1;
    this.parser = {
      initial: ledgerParser.initial,
      line: (state, raw, lineNo, source) => {
        const text = cleanLine(raw, lineNo);
        const heading = state.fence === null ? headingOf(text) : null;
        this.incoming.push({ lineNo, hash: lineHash(text), head: heading && heading.level <= 2 ? heading.text : null });
        return ledgerParser.line(state, raw, lineNo, source);
      },
    };
  }

  /** The `#`/`##` heading over a line of what was read last (null before the first, or not known). */
  sectionAt(line: number): string | null {
    let out: string | null = null;
    for (const h of this.read.heads) {
      if (h.line > line) break;
      out = h.text;
    }
    return out;
  }

  /**
   * After a poll: the lines parsed were appended (`reset` false) or start a read from the top
   * (`reset` true); `more` says the read has not reached the end of the file yet. Returns the
   * first change once a read again shows one, else null.
   */
  settle(reset: boolean, more: boolean): FirstChange | null {
    const got = this.incoming;
    this.incoming = [];
    if (reset) {
      // A read again while one is being compared is compared with the same read before.
      if (this.comparison) this.comparison.restart();
      else if (this.first === 1 && this.read.lines.length > 0) this.comparison = new Comparison(this.read, this.rule);
      this.first = 1;
      this.read = { lines: [], heads: [] };
    }
    for (const l of got) {
      if (l.lineNo !== this.first + this.read.lines.length) {
        // Not the next line (cannot happen with the follower): what was read before is no longer known.
        this.first = l.lineNo;
        this.read = { lines: [], heads: [] };
        this.comparison = null;
      }
      this.read.lines.push(l.hash);
      if (l.head !== null) this.read.heads.push({ line: l.lineNo, text: l.head });
    }
    const comparison = this.comparison;
    if (!comparison || this.first !== 1) return null;
    const change = comparison.step(this.read, !more);
    if (change || !more) this.comparison = null;
    return change ? { ...change, section: this.sectionAt(change.line) } : null;
  }

  /** Forget the lines parsed by a poll that did not finish (an error after some were parsed). */
  drop(): void {
    this.incoming = [];
  }
}
