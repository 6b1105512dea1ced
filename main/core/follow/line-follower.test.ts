import { appendFileSync, mkdtempSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LineParser, PhaseRecord } from '../text/line-parser';
import type { FileSource } from '../sources/file-source';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { followOnce } from './line-follower';

/** Every line becomes a detail record; the state counts lines so resumption can be checked. */
const echo: LineParser<{ n: number }> = {
  initial: () => ({ n: 0 }),
  line: (state, text, line) => ({
    state: { n: state.n + 1 },
    result: { records: [{ kind: 'detail', line, text }], problems: text === 'bad' ? [{ source: 'x', line, message: 'bad line' }] : [] },
  }),
};

const texts = (rs: readonly PhaseRecord[]): string[] => rs.map((r) => (r.kind === 'detail' ? r.text : `?${r.kind}`));

describe('followOnce on a local file', () => {
  let dir: string;
  let dbPath: string;
  let store: Store;
  let file: string;
  const src = new LocalSource('local');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ld-follow-'));
    dbPath = join(dir, 'db.sqlite');
    store = Store.open(dbPath);
    file = join(dir, 'audit.status');
  });

  const recordsOf = (): string[] => texts(store.records(store.file('local', file).id));

  it('waits for a file that does not exist yet, then reads it', async () => {
    expect((await followOnce(src, store, file, echo)).presence).toBe('absent');
    writeFileSync(file, 'a\nb\n');
    const out = await followOnce(src, store, file, echo);
    expect(out).toMatchObject({ presence: 'present', changed: true, lines: 2 });
    expect(recordsOf()).toEqual(['a', 'b']);
  });

  it('holds a torn last line until its newline arrives', async () => {
    writeFileSync(file, 'one\ntw');
    await followOnce(src, store, file, echo);
    expect(recordsOf()).toEqual(['one']);
    appendFileSync(file, 'o\nthree');
    await followOnce(src, store, file, echo);
    expect(recordsOf()).toEqual(['one', 'two']);
    appendFileSync(file, '\n');
    await followOnce(src, store, file, echo);
    expect(recordsOf()).toEqual(['one', 'two', 'three']);
  });

  it('reads only what was appended, and nothing when nothing was', async () => {
    writeFileSync(file, 'x'.repeat(99) + '\n');
    expect((await followOnce(src, store, file, echo)).bytesRead).toBe(100);
    appendFileSync(file, 'tail\n');
    expect((await followOnce(src, store, file, echo)).bytesRead).toBe(5);
    const idle = await followOnce(src, store, file, echo);
    expect(idle).toMatchObject({ changed: false, bytesRead: 0 });
  });

  it('restarts at 0 after truncation and forgets what it read', async () => {
    writeFileSync(file, 'old1\nold2\nold3\n');
    await followOnce(src, store, file, echo);
    truncateSync(file, 0);
    appendFileSync(file, 'new\n');
    const out = await followOnce(src, store, file, echo);
    expect(out.reset).toBe('truncated');
    expect(recordsOf()).toEqual(['new']);
  });

  it('reads a replacement (new inode) from 0', async () => {
    writeFileSync(file, 'first\nsecond\nthird\n');
    await followOnce(src, store, file, echo);
    const tmp = join(dir, 'audit.status.tmp');
    writeFileSync(tmp, 'replaced-but-longer-content\nmore\nand more\nand more\n');
    renameSync(tmp, file);
    const out = await followOnce(src, store, file, echo);
    expect(out.reset).toBe('replaced');
    expect(recordsOf()).toEqual(['replaced-but-longer-content', 'more', 'and more', 'and more']);
  });

  it('resumes after a restart without duplicating or dropping a line', async () => {
    writeFileSync(file, 'l1\nl2\n');
    await followOnce(src, store, file, echo);
    store.close();
    appendFileSync(file, 'l3\nbad\n');
    store = Store.open(dbPath);
    await followOnce(src, store, file, echo);
    expect(recordsOf()).toEqual(['l1', 'l2', 'l3', 'bad']);
    expect(store.file('local', file).parserState).toEqual({ n: 4 });
    expect(store.problems()).toEqual([{ source: file, line: 4, message: 'bad line' }]);
  });

  it('takes a large backlog in bounded reads without losing a line', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line-${i}`);
    writeFileSync(file, lines.join('\n') + '\n');
    let polls = 0;
    for (;;) {
      const out = await followOnce(src, store, file, echo, { maxBytes: 64 });
      polls++;
      if (!out.changed) break;
    }
    expect(polls).toBeGreaterThan(50);
    expect(recordsOf()).toEqual(lines);
  });
});

describe('followOnce with a line longer than the read window', () => {
  it('widens the window instead of stalling', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-follow-long-'));
    const store = Store.open(join(dir, 'db.sqlite'));
    const file = join(dir, 'x.log');
    const long = 'y'.repeat(1000);
    writeFileSync(file, `${long}\nshort\n`);
    const src = new LocalSource('local');
    await followOnce(src, store, file, echo, { maxBytes: 16 });
    await followOnce(src, store, file, echo, { maxBytes: 16 });
    expect(texts(store.records(store.file('local', file).id))).toEqual([long, 'short']);
  });
});

describe('followOnce with verifyTail (documents edited in place)', () => {
  it('notices a rewrite that keeps the inode and grows the file, and reads it again from 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-follow-tail-'));
    const store = Store.open(join(dir, 'db.sqlite'));
    const file = join(dir, 'RELIABILITY_AUDIT.md');
    const src = new LocalSource('local');
    writeFileSync(file, 'row 1\nrow 2\n');
    await followOnce(src, store, file, echo, { verifyTail: true });
    appendFileSync(file, 'row 3\n');
    expect((await followOnce(src, store, file, echo, { verifyTail: true })).reset).toBeNull();
    // An editor rewrites the file in place (same inode): an earlier row changed, and it grew.
    writeFileSync(file, 'row 1\nROW 2 (edited)\nrow 3\nrow 4\n');
    const out = await followOnce(src, store, file, echo, { verifyTail: true });
    expect(out.reset).toBe('rewritten');
    expect(texts(store.records(store.file('local', file).id))).toEqual(['row 1', 'ROW 2 (edited)', 'row 3', 'row 4']);
  });

  it('costs only the tail bytes on a plain append, in one read (one request over SSH)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-follow-tail-'));
    const store = Store.open(join(dir, 'db.sqlite'));
    const file = join(dir, 'LOG.md');
    const reads: [number, number][] = [];
    const local = new LocalSource('local');
    const src: FileSource = {
      host: 'local',
      stat: (p) => local.stat(p),
      list: (p) => local.list(p),
      read: (p, offset, length) => (reads.push([offset, length]), local.read(p, offset, length)),
    };
    writeFileSync(file, 'x'.repeat(1000) + '\n');
    await followOnce(src, store, file, echo, { verifyTail: true });
    appendFileSync(file, 'appended\n');
    reads.length = 0;
    const out = await followOnce(src, store, file, echo, { verifyTail: true });
    expect(out.bytesRead).toBe(9 + 32);
    expect(reads).toEqual([[1001 - 32, 32 + 9]]);
    expect(texts(store.records(store.file('local', file).id)).slice(-1)).toEqual(['appended']);
  });

  it('is not behind after a read that met the file\'s end short of a stat that claimed more (stale, or another file\'s)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-follow-short-'));
    const store = Store.open(join(dir, 'db.sqlite'));
    const file = join(dir, 'audit.status');
    const local = new LocalSource('local');
    // A listing that gave this file the stat of a larger one, as a forged name once did over SSH.
    const src: FileSource = {
      host: 'local',
      stat: async (p) => {
        const st = await local.stat(p);
        return st && { ...st, size: st.size + 4000 };
      },
      list: (p) => local.list(p),
      read: (p, offset, length) => local.read(p, offset, length),
    };
    writeFileSync(file, 'a\nb\n');
    const first = await followOnce(src, store, file, echo);
    expect(first.more).toBe(false);
    expect(texts(store.records(store.file('local', file).id))).toEqual(['a', 'b']);
    const again = await followOnce(src, store, file, echo);
    expect(again).toMatchObject({ changed: false, more: false });
    expect(texts(store.records(store.file('local', file).id))).toEqual(['a', 'b']);
  });
});
