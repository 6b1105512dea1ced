import type { Query, Store } from './store';

/** The queries on `first_seen`, declared once per store. */
interface FirstSeenRows {
  readonly insert: Query<[loop: string, id: string, at: string], never>;
  readonly at: Query<[loop: string, id: string], string>;
  readonly ofLoop: Query<[loop: string], { id: string; at: string }>;
}

/** Declaring them prepares nothing (the store prepares each once, on first use). */
function firstSeenRows(store: Store): FirstSeenRows {
  return {
    insert: store.query('INSERT OR IGNORE INTO first_seen (loop, id, at) VALUES (?, ?, ?)'),
    at: store.column('SELECT at FROM first_seen WHERE loop = ? AND id = ?'),
    ofLoop: store.query('SELECT id, at FROM first_seen WHERE loop = ?'),
  };
}

// When Loopdeck first read each finding id of a loop (`first_seen`): what "new since the review"
// and a finding's age are counted from.

/**
 * When each id was first read, for a loop: ids not seen before are stamped `at`. One statement
 * per batch, so a 20,000-finding ledger is stamped in one transaction.
 */
export function firstSeen(store: Store, loop: string, ids: readonly string[], at: string, options: { only?: boolean } = {}): Map<string, string> {
  const q = firstSeenRows(store);
  const insert = q.insert;
  const stamp = store.sql.transaction((fresh: readonly string[]) => {
    for (const id of fresh) insert.run(loop, id, at);
  });
  if (options.only) {
    // Just these ids (a follower that already holds the rest): a new section, not the whole ledger.
    stamp(ids);
    return new Map(ids.map((id) => [id, q.at.get(loop, id) ?? at]));
  }
  // The whole ledger (a start): read what is known, then stamp only the ids never seen. After a
  // restart that is none of them, where an ignored insert of each cost ~150 ms at 60,000.
  const rows = q.ofLoop.all(loop);
  const known = new Map(rows.map((r) => [r.id, r.at]));
  const fresh = ids.filter((id) => !known.has(id));
  stamp(fresh);
  for (const id of fresh) known.set(id, at);
  return known;
}
