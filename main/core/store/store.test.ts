import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from '../../../testing/until';
import { MIGRATIONS } from '../engine/migrations';
import { MAX_PROBLEMS_PER_FILE, POSITION_WRITE_MS, RECORDS_PER_ROW, Store } from './store';
import { firstSeen } from './first-seen';

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

  it('stamps each id when first seen, keeps the first stamp across reads and restarts, and per loop', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    const store = Store.open(file);
    const t1 = '2026-11-29T07:00:00.000Z';
    const t2 = '2026-11-30T07:00:00.000Z';
    expect([...firstSeen(store, 'a', ['R-1', 'R-2'], t1)]).toEqual([['R-1', t1], ['R-2', t1]]);
    // Read again with one new id: the known keep theirs; the map holds every id the loop has.
    expect(Object.fromEntries(firstSeen(store, 'a', ['R-2', 'R-3', 'R-3'], t2))).toEqual({ 'R-1': t1, 'R-2': t1, 'R-3': t2 });
    // A new section: just those ids.
    expect(Object.fromEntries(firstSeen(store, 'a', ['R-3', 'R-4'], t2, { only: true }))).toEqual({ 'R-3': t2, 'R-4': t2 });
    expect(firstSeen(store, 'b', ['R-1'], t2).get('R-1')).toBe(t2);
    store.close();
    const again = Store.open(file);
    expect(Object.fromEntries(firstSeen(again, 'a', ['R-1', 'R-4'], '2026-12-01T07:00:00.000Z'))).toEqual({ 'R-1': t1, 'R-2': t1, 'R-3': t2, 'R-4': t2 });
    again.close();
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

  it('keeps the records and their order of a database whose records table had one row per record (schema 10)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    Store.open(file, { migrateTo: 10 }).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO files (id, host, path) VALUES (1, 'h', '/a'), (2, 'h', '/b')").run();
    const insert = raw.prepare('INSERT INTO records (file_id, seq, line, data) VALUES (?, ?, ?, ?)');
    // Inserted out of order, and interleaved between the files: seq is the order.
    for (const [fileId, seq] of [[1, 2], [2, 1], [1, 1], [2, 2], [1, 3]] as const) insert.run(fileId, seq, seq, JSON.stringify({ kind: 'done', line: seq, file: fileId }));
    raw.close();
    const store = Store.open(file);
    expect(store.version).toBe(MIGRATIONS.length);
    expect(store.records(1)).toEqual([1, 2, 3].map((line) => ({ kind: 'done', line, file: 1 })));
    expect(store.records(2)).toEqual([1, 2].map((line) => ({ kind: 'done', line, file: 2 })));
    // Appending after the upgrade goes after what was there.
    store.commit(1, { reset: false, ino: '1', offset: 9, lineNo: 4, parserState: null, size: 9, mtimeMs: 1, firstTimeMs: 1, problems: [], records: [{ kind: 'done', line: 4, file: 1 }] });
    expect(store.records(1).map((r) => r.line)).toEqual([1, 2, 3, 4]);
    store.close();
  });

  it('gives back the pages of the records table that schema 11 rebuilt, and only after an upgrade that left much free', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    Store.open(file, { migrateTo: 10 }).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO files (id, host, path) VALUES (1, 'h', '/ledger.md')").run();
    const insert = raw.prepare('INSERT INTO records (file_id, seq, line, data) VALUES (1, ?, ?, ?)');
    const text = 'x'.repeat(600);
    raw.transaction(() => {
      for (let seq = 1; seq <= 3000; seq++) insert.run(seq, seq, JSON.stringify({ kind: 'finding', line: seq, id: `R-${seq}`, text }));
    })();
    raw.close();
    const store = Store.open(file);
    // The old table's ~2 MB would be free pages without the VACUUM after the upgrade.
    expect(store.sql.pragma('freelist_count', { simple: true })).toBe(0);
    expect(store.records(1)).toHaveLength(3000);
    expect(store.records(1)[2999]).toMatchObject({ id: 'R-3000', line: 3000 });
    // Deleting most of it later (a reset) leaves free pages that the next start does not rewrite.
    store.commit(1, { reset: true, ino: '2', offset: 1, lineNo: 1, parserState: null, size: 1, mtimeMs: 1, firstTimeMs: 1, problems: [], records: [] });
    const free = store.sql.pragma('freelist_count', { simple: true }) as number;
    expect(free).toBeGreaterThan(100);
    store.close();
    const again = Store.open(file);
    expect(again.sql.pragma('freelist_count', { simple: true })).toBe(free);
    again.close();
  });

  it('stores a commit\'s records in rows of RECORDS_PER_ROW and reads them back in order, beside rows of one record', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    const store = Store.open(file);
    const f = store.file('h', '/ledger.md');
    const base = { reset: false, ino: '1', parserState: null, mtimeMs: 1000, firstTimeMs: 900, problems: [] };
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'finding', line: from + i, id: `R-${from + i}` }));
    const big = rows(1, RECORDS_PER_ROW * 2 + 5);
    store.commit(f.id, { ...base, offset: 100, lineNo: big.length, size: 100, records: big });
    store.commit(f.id, { ...base, offset: 110, lineNo: big.length + 1, size: 110, records: rows(big.length + 1, 1) });
    store.commit(f.id, { ...base, offset: 120, lineNo: big.length + 11, size: 120, records: rows(big.length + 2, 10) });
    store.close();
    const raw = new Database(file, { readonly: true });
    const stored = raw.prepare('SELECT line, data FROM records WHERE file_id = ? ORDER BY id').all(f.id) as { line: number; data: string }[];
    raw.close();
    // 517 records in three rows, the lone one as an object (as rows were before), the section of ten as one row.
    expect(stored.map((r) => [r.line, r.data.startsWith('[')])).toEqual([
      [1, true],
      [RECORDS_PER_ROW + 1, true],
      [RECORDS_PER_ROW * 2 + 1, true],
      [big.length + 1, false],
      [big.length + 2, true],
    ]);
    const again = Store.open(file);
    expect(again.records(f.id)).toEqual(rows(1, big.length + 11));
    again.close();
  });

  it('keeps a record-less append\'s position in memory, writes it within POSITION_WRITE_MS and on close, and never repeats a record', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    const store = Store.open(file);
    const f = store.file('h', '/p');
    const base = { reset: false, ino: '1', parserState: null, mtimeMs: 1000, firstTimeMs: 900, problems: [] };
    store.commit(f.id, { ...base, offset: 10, lineNo: 1, size: 10, records: [{ kind: 'done', line: 1 }] });
    const stored = (): { offset: number; line_no: number } => {
      const raw = new Database(file, { readonly: true });
      try {
        return raw.prepare('SELECT offset, line_no FROM files WHERE id = ?').get(f.id) as { offset: number; line_no: number };
      } finally {
        raw.close();
      }
    };
    // Lines that made no record: the store answers with the new position, SQLite still holds the old.
    store.commit(f.id, { ...base, offset: 30, lineNo: 3, size: 30, records: [] });
    expect(store.file('h', '/p')).toMatchObject({ offset: 30, lineNo: 3 });
    expect(stored()).toEqual({ offset: 10, line_no: 1 });
    await until(() => stored().offset === 30, POSITION_WRITE_MS + 5000, 'the position written');
    store.commit(f.id, { ...base, offset: 40, lineNo: 4, size: 40, firstTimeMs: 800, records: [] });
    // A commit with records writes the position held in memory first, then its own, in one transaction.
    store.commit(f.id, { ...base, offset: 50, lineNo: 5, size: 50, records: [{ kind: 'done', line: 5 }] });
    expect(stored()).toEqual({ offset: 50, line_no: 5 });
    store.commit(f.id, { ...base, offset: 60, lineNo: 6, size: 60, records: [] });
    store.close();
    const again = Store.open(file);
    expect(again.file('h', '/p')).toMatchObject({ offset: 60, lineNo: 6, firstTimeMs: 800 });
    expect(again.records(f.id)).toEqual([{ kind: 'done', line: 1 }, { kind: 'done', line: 5 }]);
    again.close();
  });

  it('reads a file row again after another connection wrote it, instead of answering from memory', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    const a = Store.open(file);
    const b = Store.open(file);
    const base = { reset: false, ino: '1', parserState: null, mtimeMs: 1000, firstTimeMs: 900, problems: [], records: [] };
    const id = a.file('h', '/p').id;
    expect(b.file('h', '/p').offset).toBe(0);
    a.commit(id, { ...base, offset: 7, lineNo: 1, size: 7, records: [{ kind: 'done', line: 1 }] });
    expect(b.file('h', '/p')).toMatchObject({ offset: 7, lineNo: 1 });
    a.close();
    b.close();
  });

  it('sees a row another process wrote by the next task, when it is the only store open in its process', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ld-store-')), 'loopdeck.db');
    // In a process of its own, so that no other test's store is open beside it.
    const store = fileURLToPath(new URL('./store.ts', import.meta.url));
    const schema = fileURLToPath(new URL('../engine/migrations.ts', import.meta.url)); // installs the schema
    const write = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)}); db.prepare('UPDATE files SET offset = 9, line_no = 2').run(); db.close();`;
    const script = `
      import { execFileSync, spawn } from 'node:child_process';
      import { Store } from ${JSON.stringify(store)};
      import ${JSON.stringify(schema)};
      const a = Store.open(${JSON.stringify(file)});
      const seen = [a.file('h', '/p').offset];
      execFileSync(process.execPath, ['-e', ${JSON.stringify(write)}]); // another process commits during this task
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(a.file('h', '/p').offset, a.file('h', '/p').lineNo);
      a.close();
      console.log(JSON.stringify(seen));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(JSON.parse(out.trim())).toEqual([0, 9, 2]);
  });

  it('four processes opening one new data folder at once all open it, each migration run once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-store-'));
    const file = join(dir, 'loopdeck.db');
    const go = join(dir, 'go');
    const store = fileURLToPath(new URL('./store.ts', import.meta.url));
    const schema = fileURLToPath(new URL('../engine/migrations.ts', import.meta.url)); // installs the schema
    // Each child loads everything, says it is ready, then waits (spinning) for the same instant to open.
    const script = [
      `import { existsSync } from 'node:fs';`,
      `import { Store } from ${JSON.stringify(store)};`,
      `import ${JSON.stringify(schema)};`,
      `console.log('ready');`,
      `while (!existsSync(${JSON.stringify(go)}));`,
      `try { Store.open(${JSON.stringify(file)}).close(); console.log('opened'); } catch (e) { console.log('failed: ' + e.message); }`,
    ].join('\n');
    const children = [0, 1, 2, 3].map(() => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] }));
    const outputs = children.map((c) => {
      let text = '';
      c.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      return { text: () => text, done: new Promise<void>((resolve) => c.on('close', () => resolve())) };
    });
    await until(() => outputs.every((o) => o.text().includes('ready')), 30_000, 'four children ready');
    writeFileSync(go, '');
    await Promise.all(outputs.map((o) => o.done));
    expect(outputs.map((o) => o.text().replace('ready\n', '').trim())).toEqual(['opened', 'opened', 'opened', 'opened']);
    const db = Store.open(file);
    expect(db.version).toBe(MIGRATIONS.length);
    db.close();
  }, 60_000);
});
