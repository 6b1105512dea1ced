import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { queryMaker } from './query';

/** A maker over a plain statement cache, as the store's. */
function maker(db: Database.Database): { q: ReturnType<typeof queryMaker>; prepared: () => number } {
  const cache = new Map<string, Database.Statement>();
  const q = queryMaker((sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      cache.set(sql, st);
    }
    return st;
  });
  return { q, prepared: () => cache.size };
}

describe('typed queries', () => {
  it('prepares nothing when declared, and once when used', () => {
    const db = new Database(':memory:');
    const { q, prepared } = maker(db);
    // Declared before its table exists (a repository on an older schema): no error until used.
    const insert = q.query<[k: string, v: number]>('INSERT INTO t (k, v) VALUES (?, ?)');
    const byKey = q.query<[k: string], { k: string; v: number }>('SELECT k, v FROM t WHERE k = ?');
    expect(prepared()).toBe(0);
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
    expect(insert.run('a', 1).changes).toBe(1);
    insert.run('b', 2);
    expect(byKey.get('a')).toEqual({ k: 'a', v: 1 });
    expect(byKey.get('zz')).toBeUndefined();
    expect(byKey.all('b')).toEqual([{ k: 'b', v: 2 }]);
    expect([...byKey.iterate('a')]).toEqual([{ k: 'a', v: 1 }]);
    expect(prepared()).toBe(2);
    db.close();
  });

  it('gives a column query the first column, and a row query the row, of one shared statement', () => {
    const db = new Database(':memory:');
    db.exec("CREATE TABLE t (k TEXT, v INTEGER); INSERT INTO t VALUES ('a', 1), ('b', 2)");
    const { q, prepared } = maker(db);
    const sql = 'SELECT k, v FROM t ORDER BY k';
    const keys = q.column<[], string>(sql);
    const rows = q.query<[], { k: string; v: number }>(sql);
    expect(keys.all()).toEqual(['a', 'b']);
    expect(rows.all()).toEqual([{ k: 'a', v: 1 }, { k: 'b', v: 2 }]);
    expect(keys.get()).toBe('a');
    expect(rows.get()).toEqual({ k: 'a', v: 1 });
    expect(prepared()).toBe(1);
    db.close();
  });
});
