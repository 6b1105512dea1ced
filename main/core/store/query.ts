import type Database from 'better-sqlite3';

/**
 * One fixed SQL statement with its parameters and row type declared once, where the query is
 * defined (a feature's repository), instead of a cast at each call site. Prepared on first use
 * and kept by the store (its statement cache, keyed by the SQL text).
 */
export interface Query<P extends readonly unknown[], R> {
  /** The first row, or undefined. */
  get(...params: P): R | undefined;
  /** Every row. */
  all(...params: P): R[];
  /** The rows one at a time. */
  iterate(...params: P): IterableIterator<R>;
  /** Run a statement that writes. */
  run(...params: P): Database.RunResult;
}

/** Declares queries on one connection: `query` gives rows, `column` the first column of each row. */
export interface QueryMaker {
  query<P extends readonly unknown[], R = never>(sql: string): Query<P, R>;
  column<P extends readonly unknown[], V>(sql: string): Query<P, V>;
}

/**
 * A typed query over `prepare(sql)`, asked for at each use (a cache lookup), so declaring one
 * prepares nothing: a repository may declare queries on tables a test's older schema lacks.
 * `pluck`: each row is its first column (set on every read, since the statement is shared by SQL text).
 */
export function makeQuery<P extends readonly unknown[], R>(prepare: (sql: string) => Database.Statement, sql: string, pluck: boolean): Query<P, R> {
  const reader = (): Database.Statement => {
    const st = prepare(sql);
    return st.reader ? st.pluck(pluck) : st;
  };
  return {
    get: (...params) => reader().get(...params) as R | undefined,
    all: (...params) => reader().all(...params) as R[],
    iterate: (...params) => reader().iterate(...params) as IterableIterator<R>,
    run: (...params) => prepare(sql).run(...params),
  };
}

/** A QueryMaker over a prepared-statement cache. */
export function queryMaker(prepare: (sql: string) => Database.Statement): QueryMaker {
  return {
    query: <P extends readonly unknown[], R>(sql: string) => makeQuery<P, R>(prepare, sql, false),
    column: <P extends readonly unknown[], V>(sql: string) => makeQuery<P, V>(prepare, sql, true),
  };
}
