import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LineParser, PhaseRecord } from '../text/line-parser';
import { FileReadError } from '../sources/file-source';
import { LocalSource } from '../sources/local-source';
import { MAX_PROBLEMS_PER_FILE, Store } from '../store/store';
import { followOnce, MAX_LINE_BYTES } from './line-follower';

/** Every line becomes a detail record; a line `bad` is also a problem. */
const echo: LineParser<{ n: number }> = {
  initial: () => ({ n: 0 }),
  line: (state, text, line, source) => ({
    state: { n: state.n + 1 },
    result: { records: [{ kind: 'detail', line, text }], problems: text === 'bad' ? [{ source, line, message: 'bad line' }] : [] },
  }),
};

const texts = (rs: readonly PhaseRecord[]): string[] => rs.map((r) => (r.kind === 'detail' ? r.text : `?${r.kind}`));

describe('followOnce keeps what a file can cost bounded', () => {
  let dir: string;
  let store: Store;
  const src = new LocalSource('local');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ld-bounds-'));
    store = Store.open(join(dir, 'db.sqlite'));
  });

  const recordsOf = (file: string): string[] => texts(store.records(store.file('local', file).id));

  it('refuses a named pipe as a problem naming it, without blocking, and reads the file that replaces it', async () => {
    const file = join(dir, 'deliver.log');
    execFileSync('mkfifo', [file]);
    const out = await followOnce(src, store, file, echo);
    expect(out).toMatchObject({ presence: 'refused', changed: false, bytesRead: 0 });
    expect(store.problems()).toEqual([{ source: file, line: null, message: `${file} is a named pipe (FIFO), not a regular file; not read.` }]);
    // The second guard: a read that reaches a pipe (replaced after the stat) fails at once.
    await expect(src.read(file, 0, 10)).rejects.toBeInstanceOf(FileReadError);
    rmSync(file);
    writeFileSync(file, 'a\n');
    expect(await followOnce(src, store, file, echo)).toMatchObject({ presence: 'present', lines: 1 });
    expect(store.problems()).toEqual([]);
  });

  it('refuses a symbolic link that loops, as a problem naming it', async () => {
    const file = join(dir, 'audit.status');
    execFileSync('ln', ['-s', 'audit.status', file]);
    const out = await followOnce(src, store, file, echo);
    expect(out.presence).toBe('refused');
    expect(store.problems()[0]?.message).toMatch(/audit\.status is a symbolic link that cannot be followed, not a regular file; not read/);
  });

  it('parses the first MiB of a 3 MiB line, skips the rest as one problem, and reads the lines around it', async () => {
    const file = join(dir, 'remediate.log');
    const huge = 'y'.repeat(3 * MAX_LINE_BYTES);
    writeFileSync(file, `before\n${huge}\nafter\n`);
    let polls = 0;
    while ((await followOnce(src, store, file, echo)).changed) polls++;
    expect(polls).toBe(1);
    const got = recordsOf(file);
    expect(got.map((t) => t.length)).toEqual([6, MAX_LINE_BYTES, 5]);
    expect([got[0], got[2]]).toEqual(['before', 'after']);
    const problems = store.problems();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ source: file, line: 2 });
    expect(problems[0]?.message).toMatch(/3145728 bytes, longer than the 1048576 \(1 MiB\)/);
  });

  it('skips the rest of an over-long line that arrives in pieces without widening its window', async () => {
    const file = join(dir, 'audit.log');
    writeFileSync(file, `a\n${'z'.repeat(MAX_LINE_BYTES + 10)}`);
    const reads: number[] = [];
    /** Poll until the file is drained, as the engine does while a follower is behind. */
    const drain = async (): Promise<void> => {
      for (;;) {
        const out = await followOnce(src, store, file, echo, { maxBytes: 4096 });
        reads.push(out.bytesRead);
        if (!out.more) return;
      }
    };
    await drain();
    for (let i = 0; i < 3; i++) {
      appendFileSync(file, 'z'.repeat(MAX_LINE_BYTES));
      await drain();
    }
    appendFileSync(file, 'zz\nb\n');
    await drain();
    const got = recordsOf(file);
    expect(got.map((t) => t.length)).toEqual([1, MAX_LINE_BYTES, 1]);
    expect(got[2]).toBe('b');
    expect(store.problems().map((p) => p.line)).toEqual([2]);
    expect(Math.max(...reads)).toBeLessThanOrEqual(MAX_LINE_BYTES + 1);
    // Every byte was read about once (the partial line after `a` again, within one 4 KiB window):
    // the line's first MiB, then the rest only as it arrived.
    const total = 2 + (MAX_LINE_BYTES + 10) + 3 * MAX_LINE_BYTES + 5;
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(total + 4096);
  });

  it.each([
    ['2 MiB', 2 * MAX_LINE_BYTES],
    ['512 KiB', MAX_LINE_BYTES / 2],
  ])('reads a torn %s tail that does not grow at most once over 5 polls', async (_label, size) => {
    const file = join(dir, 'deliver.log');
    writeFileSync(file, `done\n${'t'.repeat(size)}`);
    let bytes = 0;
    for (let i = 0; i < 5; i++) bytes += (await followOnce(src, store, file, echo)).bytesRead;
    expect(bytes).toBeLessThanOrEqual(5 + size);
    appendFileSync(file, '\nnext\n');
    await followOnce(src, store, file, echo);
    expect(recordsOf(file).at(-1)).toBe('next');
  });

  it('keeps the first 20 problems of a junk file and a count, and forgets them when it is fixed or gone', async () => {
    const file = join(dir, 'remediate.gates.rc');
    writeFileSync(file, 'bad\n'.repeat(10_000));
    await followOnce(src, store, file, echo);
    let problems = store.problems();
    expect(problems).toHaveLength(MAX_PROBLEMS_PER_FILE + 1);
    expect(problems.at(-1)).toEqual({ source: file, line: null, message: '… and 9980 more problems in this file' });
    appendFileSync(file, 'bad\nbad\n');
    await followOnce(src, store, file, echo);
    expect(store.problems().at(-1)?.message).toBe('… and 9982 more problems in this file');
    expect(store.sql.prepare('SELECT COUNT(*) AS n FROM problems').get()).toEqual({ n: MAX_PROBLEMS_PER_FILE });

    // Fixed: truncated and written again without a problem.
    writeFileSync(file, 'ok\n');
    await followOnce(src, store, file, echo);
    expect(store.problems()).toEqual([]);

    writeFileSync(file, 'ok\nbad\n');
    await followOnce(src, store, file, echo);
    problems = store.problems();
    expect(problems).toEqual([{ source: file, line: 2, message: 'bad line' }]);
    // Gone: deleted, its problems go with it.
    rmSync(file);
    expect((await followOnce(src, store, file, echo)).presence).toBe('absent');
    expect(store.problems()).toEqual([]);
  });

  it('answers problems() from memory while nothing changed', async () => {
    const file = join(dir, 'x.log');
    writeFileSync(file, 'bad\n');
    await followOnce(src, store, file, echo);
    expect(store.problems()).toHaveLength(1);
    // A row written behind the store's back is not seen: problems() did not go back to SQLite.
    store.sql.prepare('INSERT INTO problems (file_id, line, message) VALUES (?, 9, ?)').run(store.file('local', file).id, 'sneaked in');
    expect(store.problems()).toHaveLength(1);
    appendFileSync(file, 'bad\n');
    await followOnce(src, store, file, echo);
    expect(store.problems()).toHaveLength(3);
  });
});
