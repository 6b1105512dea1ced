/** The code SQLite (better-sqlite3's SqliteError) or Node put on an error, or ''. */
const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * Whether an error says the disk holding the data folder is full: SQLite's SQLITE_FULL ("database
 * or disk is full"), or ENOSPC / EDQUOT (a quota) from a file written there.
 */
export function isDiskFull(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Whether SQLite says the database file is damaged (SQLITE_CORRUPT and its extended codes: a
 * truncated or overwritten file) or is not a database at all (SQLITE_NOTADB).
 */
export function isDamaged(err: unknown): boolean {
  const code = codeOf(err);
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

/** The file beside a database that says a query found it damaged: the next open moves the database aside. */
export function damagedMarker(file: string): string {
  return `${file}.damaged`;
}
