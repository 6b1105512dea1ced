import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations';
import { MAX_PROBLEMS_PER_FILE, Store } from './store';

describe('Store', () => {
  it('upgrades a database created by an earlier schema without losing what it holds', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    // Schema 1, as the first Loopdeck wrote it, holding a followed file and a record.
    const old = Store.open(file, { migrateTo: 1 });
    expect(old.version).toBe(1);
    old.close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO files (host, path, ino, offset, line_no, size) VALUES ('local', '/r/audit.status', '42', 17, 1, 17)").run();
    raw.prepare("INSERT INTO records (file_id, seq, line, data) VALUES (1, 1, 1, '{\"kind\":\"done\",\"line\":1}')").run();
    raw.close();

    const store = Store.open(file);
    expect(store.version).toBe(MIGRATIONS.length);
    const row = store.file('local', '/r/audit.status');
    expect(row).toMatchObject({ ino: '42', offset: 17, lineNo: 1, firstTimeMs: null });
    expect(store.records(row.id)).toEqual([{ kind: 'done', line: 1 }]);
    store.setMeta('lastReviewedAt', '2026-11-30T07:00:00.000Z');
    expect(store.getMeta('lastReviewedAt')).toBe('2026-11-30T07:00:00.000Z');
    store.close();
  });

  it('trims the problems an older Loopdeck stored past the cap to 20 and a count, on upgrade', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    // The schema just before problems were capped.
    Store.open(file, { migrateTo: MIGRATIONS.findIndex((m) => m.includes('problems_dropped')) }).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO files (host, path) VALUES ('local', '/r/junk.rc'), ('local', '/r/fine.rc')").run();
    const insert = raw.prepare('INSERT INTO problems (file_id, line, message) VALUES (?, ?, ?)');
    raw.transaction(() => {
      for (let i = 1; i <= 5000; i++) insert.run(1, i, `junk ${i}`);
      insert.run(2, 3, 'one problem');
    })();
    raw.close();
    const store = Store.open(file);
    const problems = store.problems();
    expect(problems).toHaveLength(MAX_PROBLEMS_PER_FILE + 2);
    expect(problems.slice(0, 2)).toEqual([
      { source: '/r/fine.rc', line: 3, message: 'one problem' },
      { source: '/r/junk.rc', line: 1, message: 'junk 1' },
    ]);
    expect(problems.at(-1)).toEqual({ source: '/r/junk.rc', line: null, message: '… and 4980 more problems in this file' });
    store.close();
  });

  it('refuses a database from a newer Loopdeck instead of damaging it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    Store.open(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => Store.open(file)).toThrow(/newer Loopdeck/);
  });

  it('commits records and position together, and a reset forgets the old records', () => {
    const store = Store.open(':memory:');
    const f = store.file('h', '/p');
    const base = { ino: '1', lineNo: 1, parserState: { a: 1 }, size: 4, mtimeMs: 1000, firstTimeMs: 900, problems: [] };
    store.commit(f.id, { ...base, reset: false, offset: 4, records: [{ kind: 'done', line: 1 }] });
    store.commit(f.id, { ...base, reset: true, ino: '2', offset: 2, firstTimeMs: 2000, records: [{ kind: 'rc', line: 1, name: 'a', rc: 0 }] });
    expect(store.records(f.id)).toEqual([{ kind: 'rc', line: 1, name: 'a', rc: 0 }]);
    expect(store.file('h', '/p')).toMatchObject({ ino: '2', offset: 2, firstTimeMs: 2000, parserState: { a: 1 } });
  });
});
