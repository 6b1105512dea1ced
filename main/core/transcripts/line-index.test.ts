import { appendFileSync, mkdtempSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followOnce, MAX_LINE_BYTES } from '../follow/line-follower';
import { transcriptParser } from './transcript-parser';
import { LocalSource } from '../sources/local-source';
import { INDEX_EVERY, MAX_MARKS_PER_FILE } from '../store/line-index';
import { Store } from '../store/store';
import { transcriptMark } from './transcript-marks';

const OPTIONS = { indexEvery: INDEX_EVERY, marker: transcriptMark } as const;

function setup(): { dir: string; path: string; store: Store; source: LocalSource; ino: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-index-'));
  const path = join(dir, 'remediate.log');
  return { dir, path, store: Store.open(join(dir, 'loopdeck.db')), source: new LocalSource('runner'), ino: () => String(statSync(path).ino) };
}

const lines = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join('\n') + '\n';

describe('the sparse line index and marks kept while following a transcript', () => {
  it('records where every INDEX_EVERY-th line starts, durably, with the position', async () => {
    const { dir, path, store, source, ino } = setup();
    writeFileSync(path, lines(1, 1000));
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    appendFileSync(path, lines(1001, 1250));
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.close();
    // Another process (the CLI) opening the same data folder finds the index.
    const again = Store.open(join(dir, 'loopdeck.db'));
    const text = lines(1, 1250);
    for (const n of [1, 101, 901, 1001, 1201]) {
      const p = again.lineIndex.pointAt('runner', path, ino(), n);
      expect(p?.offset).toBe(Buffer.byteLength(text.split('\n').slice(0, n - 1).map((l) => `${l}\n`).join('')));
    }
    expect(again.lineIndex.pointAt('runner', path, ino(), 50)).toBeNull();
    expect(again.lineIndex.pointAtOrBefore('runner', path, ino(), 1234)?.line).toBe(1201);
    again.close();
  });

  it('indexes the line after one cut at 1 MiB, so a reader can jump over the rest', async () => {
    const { path, store, source, ino } = setup();
    writeFileSync(path, `first\n${'x'.repeat(MAX_LINE_BYTES * 2)}\nafter\n`);
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    expect(store.lineIndex.pointAt('runner', path, ino(), 3)?.offset).toBe(6 + MAX_LINE_BYTES * 2 + 1);
  });

  it('marks verdicts, failures, the watchdog kill and refusals, not their prose', async () => {
    const { path, store, source, ino } = setup();
    writeFileSync(
      path,
      [
        'working: a subagent died to the stream watchdog at 600s with no progress, last week',
        'Traceback (most recent call last):',
        '  File "x.py", line 3',
        'ValueError: bad input',
        'tests: 3 FAILED, 200 passed',
        '[stream watchdog] no output for 600s; killing the agent process group',
        'Permission to use Bash has been denied',
        '\x1b[31mError:\x1b[0m connection refused',
        'make: *** [gate] exit code 2',
        '    NIGHTLY PHASE NO-OP: loop=reliability phase=remediate indented prose',
        'NIGHTLY PHASE NO-OP: loop=reliability phase=remediate nothing to do',
        'all fine, exit code 0',
        '',
      ].join('\n'),
    );
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    expect(store.lineIndex.marks('runner', path, ino()).map((m) => [m.line, m.kind])).toEqual([
      [2, 'failure'],
      [4, 'failure'],
      [5, 'failure'],
      [6, 'watchdog'],
      [7, 'refused'],
      [8, 'refused'],
      [9, 'failure'],
      [11, 'verdict'],
    ]);
    // Quoted without escape sequences.
    expect(store.lineIndex.marks('runner', path, ino())[5]?.text).toBe('Error: connection refused');
  });

  it('keeps at most MAX_MARKS_PER_FILE marks: the first half and the newest', async () => {
    const { path, store, source, ino } = setup();
    writeFileSync(path, Array.from({ length: 2000 }, (_, i) => `Error: number ${i + 1}`).join('\n') + '\n');
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    const marks = store.lineIndex.marks('runner', path, ino());
    expect(marks).toHaveLength(MAX_MARKS_PER_FILE);
    expect(marks[0]?.line).toBe(1);
    expect(marks[MAX_MARKS_PER_FILE / 2 - 1]?.line).toBe(MAX_MARKS_PER_FILE / 2);
    expect(marks.at(-1)?.line).toBe(2000);
    expect(marks[MAX_MARKS_PER_FILE / 2]?.line).toBe(2000 - MAX_MARKS_PER_FILE / 2 + 1);
  });

  it('drops the index and marks when the file is truncated or replaced, and builds them again', async () => {
    const { dir, path, store, source, ino } = setup();
    writeFileSync(path, `${lines(1, 300)}Error: old\n`);
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    const first = ino();
    expect(store.lineIndex.pointAt('runner', path, first, 201)).not.toBeNull();
    truncateSync(path, 0);
    writeFileSync(path, lines(1, 150));
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    expect(store.lineIndex.pointAt('runner', path, first, 201)).toBeNull();
    expect(store.lineIndex.pointAt('runner', path, first, 101)).not.toBeNull();
    expect(store.lineIndex.marks('runner', path, first)).toEqual([]);
    const other = join(dir, 'new.log');
    writeFileSync(other, `${'y\n'.repeat(5)}FAILED here\n`);
    renameSync(other, path);
    await followOnce(source, store, path, transcriptParser, OPTIONS);
    store.flushPositions();
    expect(store.lineIndex.pointAtOrBefore('runner', path, first, 150)).toBeNull();
    expect(store.lineIndex.marks('runner', path, ino()).map((m) => m.line)).toEqual([6]);
  });
});
