import { useSchema, type Migrations } from '../store/migrations';
import { CAPACITY_KV_MIGRATION, CAPACITY_MIGRATION } from '../capacity/history/schema';
import { DRILLS_MIGRATION } from '../drills/schema';
import { NIGHTS_MIGRATION } from '../nights/schema';
import { NOTICES_ESCALATION_MIGRATION, NOTICES_MAINTENANCE_MIGRATION, NOTICES_MIGRATION, NOTICES_NTFY_MIGRATION, NOTICES_PERIODIC_MIGRATION, NOTICES_SEEDED_MIGRATION } from '../notices/schema';
import { WEBHOOKS_MIGRATION } from '../notices/sinks/webhook-schema';
import { PR_DESK_MIGRATION } from '../prs/schema';
import { MAINTENANCE_WINDOWS_MIGRATION } from '../maintenance/maintenance-windows';

/**
 * The database schema as an ordered list of migrations. `PRAGMA user_version` records how many
 * have run; a database made by an older Loopdeck is upgraded in place, in one transaction each.
 * Never edit a migration that has shipped: append a new one. The store's own tables are written
 * here; a feature's are its own (its schema.ts), listed here in the order they shipped. Assembled
 * in the top layer because the store (plumbing) may not import a feature.
 */
export const MIGRATIONS: Migrations = [
  // 1: followed files with their durable (inode, offset) and the records parsed from them.
  `
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    ino TEXT,
    offset INTEGER NOT NULL DEFAULT 0,
    line_no INTEGER NOT NULL DEFAULT 0,
    parser_state TEXT,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ms REAL,
    UNIQUE (host, path)
  );
  CREATE TABLE records (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    line INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (file_id, seq)
  ) WITHOUT ROWID;
  `,
  // 2: the earliest time a file was seen (a phase's age without stamps), problems per file, and
  //    a key/value table for small settings (the review watermark and the like).
  `
  ALTER TABLE files ADD COLUMN first_time_ms REAL;
  CREATE TABLE problems (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER,
    message TEXT NOT NULL
  );
  CREATE INDEX problems_file ON problems(file_id);
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // 3: host keys the operator trusted from Loopdeck (`loopdeck trust HOST` or the UI), beside
  //    ~/.ssh/known_hosts, which Loopdeck never writes.
  `
  CREATE TABLE trusted_keys (
    host TEXT NOT NULL,
    port INTEGER NOT NULL,
    key_type TEXT NOT NULL,
    key_base64 TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (host, port, key_base64)
  );
  `,
  // 4: the last bytes before a document's offset, to notice a ledger rewritten in place; and the
  //    first time each finding was read, which survives a ledger being re-read from the start.
  `
  ALTER TABLE files ADD COLUMN tail TEXT;
  CREATE TABLE first_seen (
    loop TEXT NOT NULL,
    id TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (loop, id)
  ) WITHOUT ROWID;
  `,
  CAPACITY_MIGRATION,
  NOTICES_MIGRATION,
  DRILLS_MIGRATION,
  // 8: bounded problems, unreadable files, and long or torn lines. At most 20 problems are kept per
  //    file and the rest only counted (problems_dropped; what an older Loopdeck stored past 20 is
  //    dropped and counted here); `error` says why a file that is there was not read (a named
  //    pipe, permission denied); `read_to` is how far the last read reached, so a torn last line
  //    that has not grown is not read again; `long_line` is 1 while the offset is inside a line
  //    longer than a line may be, whose rest is skipped.
  `
  ALTER TABLE files ADD COLUMN problems_dropped INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE files ADD COLUMN error TEXT;
  ALTER TABLE files ADD COLUMN read_to INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE files ADD COLUMN long_line INTEGER NOT NULL DEFAULT 0;
  UPDATE files SET problems_dropped = (SELECT COUNT(*) - 20 FROM problems p WHERE p.file_id = files.id)
    WHERE id IN (SELECT file_id FROM problems GROUP BY file_id HAVING COUNT(*) > 20);
  DELETE FROM problems WHERE rowid IN (
    SELECT rowid FROM (SELECT rowid, ROW_NUMBER() OVER (PARTITION BY file_id ORDER BY rowid) AS n FROM problems) WHERE n > 20
  );
  `,
  // 9: notices seeded by the first start are marked (notices/schema.ts).
  NOTICES_SEEDED_MIGRATION,
  // 10: the notices' periodic work through small indexes (notices/schema.ts).
  NOTICES_PERIODIC_MIGRATION,
  // 11: `records` becomes a rowid table whose row may hold a JSON array: the records of one commit,
  //     up to RECORDS_PER_ROW a row, so an appended ledger section is one insert, not one per
  //     finding. A WITHOUT ROWID table stores such rows in its key's b-tree (slow for rows of
  //     kilobytes), and its next seq took a MAX() query per commit; the rowid gives the order.
  //     Rows written before hold one record each and are copied as they are. A Loopdeck that
  //     knows only 10 migrations would read an array as one record, so it refuses this database.
  `
  CREATE TABLE records_v11 (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  INSERT INTO records_v11 (file_id, line, data) SELECT file_id, line, data FROM records ORDER BY file_id, seq;
  DROP TABLE records;
  ALTER TABLE records_v11 RENAME TO records;
  CREATE INDEX records_file ON records(file_id);
  `,
  // 12: transcripts' sparse line index (where every INDEX_EVERY-th line starts, and the line after
  //     one cut at 1 MiB) and the lines that matter in them (verdicts, failures, the watchdog's
  //     kill), keyed by host and path with the inode they belong to, so a jump to a line is one
  //     seek; dropped with the records when the file is read again from 0.
  `
  CREATE TABLE line_index (
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    ino TEXT NOT NULL,
    line INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (host, path, line)
  ) WITHOUT ROWID;
  CREATE TABLE line_marks (
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    ino TEXT NOT NULL,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (host, path, line, kind)
  );
  `,
  NIGHTS_MIGRATION,
  WEBHOOKS_MIGRATION,
  // 15: who acknowledged or snoozed a notice, and who trusted a host key (serve with sign-in is
  //     shared by a team; the desktop and the token record the local account). NULL before.
  `
  ALTER TABLE notices ADD COLUMN acknowledged_by TEXT;
  ALTER TABLE notices ADD COLUMN snoozed_by TEXT;
  ALTER TABLE trusted_keys ADD COLUMN trusted_by TEXT;
  `,
  // 16: capacity's KV-cache usage and token deltas (capacity/history/history-store.ts).
  CAPACITY_KV_MIGRATION,
  // 17: transcripts read before a verdict had to be the last non-blank line, and a watchdog kill
  //     the watchdog's own tagged line (issue 40), are read again from 0: their stored verdict
  //     records count prose (the loop's manual `cat` into its transcript), and their stored
  //     watchdog marks or disk-full records may be sentences. An inode no file has makes the
  //     follower take the file as replaced, which drops its records, index and marks and reads
  //     it anew; the other transcripts keep their place.
  `
  UPDATE files SET ino = 'reread-17'
  WHERE path LIKE '%.log' AND (
    id IN (SELECT file_id FROM records WHERE data LIKE '%"kind":"verdict"%' OR data LIKE '%"kind":"disk-full"%')
    OR EXISTS (SELECT 1 FROM line_marks m WHERE m.host = files.host AND m.path = files.path AND m.kind = 'watchdog')
  );
  `,
  // 18: the merge desk's Next-step ticks and console merges (prs/schema.ts).
  PR_DESK_MIGRATION,
  // 19: the ntfy sink's owed sends and errors on the notices (notices/schema.ts).
  NOTICES_NTFY_MIGRATION,
  // 20: notices held by a maintenance window, and what became of them (notices/schema.ts).
  NOTICES_MAINTENANCE_MIGRATION,
  // 21: notices sent on because nobody acknowledged them in time (notices/schema.ts).
  NOTICES_ESCALATION_MIGRATION,
  // 22: maintenance windows added in the console (maintenance/maintenance-windows.ts).
  MAINTENANCE_WINDOWS_MIGRATION,
];

// Loading this module installs the schema: Store.open uses it unless its options name another.
useSchema(MIGRATIONS);
