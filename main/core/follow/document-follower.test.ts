import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalSource } from '../sources/local-source';
import { Store } from '../store/store';
import { followDocument } from './document-follower';

const parseJson = (text: string, source: string) => {
  try {
    return { records: [{ line: 1, value: JSON.parse(text) as unknown }], problems: [] };
  } catch (err) {
    return { records: [], problems: [{ source, line: null, message: (err as Error).message }] };
  }
};

describe('followDocument', () => {
  it('re-reads a record replaced atomically, and nothing while it is unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-doc-'));
    const store = Store.open(':memory:');
    const src = new LocalSource('local');
    const path = join(dir, 'reliability.json');
    expect((await followDocument(src, store, path, parseJson)).presence).toBe('absent');
    writeFileSync(path, '{"status":"pending","pr":88}');
    expect(await followDocument(src, store, path, parseJson)).toMatchObject({ changed: true });
    expect(await followDocument(src, store, path, parseJson)).toEqual({ presence: 'present', changed: false, bytesRead: 0 });
    writeFileSync(`${path}.tmp`, '{"status":"green","pr":88}');
    renameSync(`${path}.tmp`, path);
    await followDocument(src, store, path, parseJson);
    expect(store.records(store.file('local', path).id)).toEqual([{ line: 1, value: { status: 'green', pr: 88 } }]);
    writeFileSync(`${path}.tmp`, '{"status":');
    renameSync(`${path}.tmp`, path);
    await followDocument(src, store, path, parseJson);
    // The broken version is reported, and the last good record is kept.
    expect(store.records(store.file('local', path).id)).toEqual([{ line: 1, value: { status: 'green', pr: 88 } }]);
    expect(store.problems()[0]?.source).toBe(path);
  });
});

describe('followDocument keeps only what the newest version says', () => {
  const replace = (path: string, text: string): void => {
    writeFileSync(`${path}.tmp`, text);
    renameSync(`${path}.tmp`, path);
  };

  it('replaces the problems of an older version, broken or not, and forgets them when the record is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-doc-'));
    const store = Store.open(':memory:');
    const src = new LocalSource('local');
    const path = join(dir, 'reliability.json');
    for (const broken of ['{"status":', '{"status": tru', '[1,']) {
      replace(path, broken);
      await followDocument(src, store, path, parseJson);
    }
    // Three broken versions, one problem: the newest one's.
    expect(store.problems()).toHaveLength(1);
    expect(store.problems()[0]?.message).toBe(parseJson('[1,', path).problems[0]?.message);
    replace(path, '{"status":"green"}');
    await followDocument(src, store, path, parseJson);
    expect(store.problems()).toEqual([]);
    replace(path, '{"status":');
    await followDocument(src, store, path, parseJson);
    expect(store.problems()).toHaveLength(1);
    rmSync(path);
    expect((await followDocument(src, store, path, parseJson)).presence).toBe('absent');
    expect(store.problems()).toEqual([]);
  });

  it('refuses a named pipe put in place of the record, keeping the record last read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-doc-'));
    const store = Store.open(':memory:');
    const src = new LocalSource('local');
    const path = join(dir, 'reliability.json');
    writeFileSync(path, '{"status":"green"}');
    await followDocument(src, store, path, parseJson);
    rmSync(path);
    execFileSync('mkfifo', [path]);
    expect(await followDocument(src, store, path, parseJson)).toEqual({ presence: 'refused', changed: false, bytesRead: 0 });
    expect(store.problems()).toEqual([{ source: path, line: null, message: `${path} is a named pipe (FIFO), not a regular file; not read.` }]);
    expect(store.records(store.file('local', path).id)).toEqual([{ line: 1, value: { status: 'green' } }]);
  });
});
