import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followOnce } from '../follow/line-follower';
import { LocalSource } from '../sources/local-source';
import { MIGRATIONS } from '../engine/migrations';
import { Store } from '../store/store';
import { transcriptParser } from './transcript-parser';

// Schema 17: transcripts an older Loopdeck parsed when any column-0 verdict counted (and a
// sentence naming the watchdog was a kill) are read again from 0 on upgrade, the others are not.

const NOOP = 'NIGHTLY PHASE NO-OP: loop=reliability phase=audit no new findings in the delta range';

describe('upgrading a store whose transcripts were read by the older rules', () => {
  it('reads again the transcripts holding a verdict or a watchdog mark, keeps the place of the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-reread-'));
    const db = join(dir, 'loopdeck.db');
    const withVerdict = join(dir, 'audit.log');
    const withMark = join(dir, 'remediate.log');
    const plain = join(dir, 'deliver.log');
    writeFileSync(withVerdict, `cat SKILL.md\n${NOOP}\nFor example, more prose\n`);
    writeFileSync(withMark, 'libs and hooks) and died to the stream watchdog at 600s with no progress,\n');
    writeFileSync(plain, 'tool_use Read src/a.py\n');
    const source = new LocalSource('runner');
    // The schema before migration 17 (the re-read): 16 migrations.
    const before = 16;
    const old = Store.open(db, { migrateTo: before });
    for (const path of [withVerdict, withMark, plain]) await followOnce(source, old, path, transcriptParser);
    const ids = [withVerdict, withMark, plain].map((p) => old.file('runner', p).id);
    old.close();
    // What the older rules had stored: the NO-OP alone (no later line withdrew it), and the
    // sentence marked as the watchdog's kill.
    const raw = new Database(db);
    raw.prepare('DELETE FROM records WHERE file_id = ?').run(ids[0]);
    raw.prepare('INSERT INTO records (file_id, line, data) VALUES (?, 2, ?)').run(ids[0], JSON.stringify({ kind: 'verdict', line: 2, verdict: { kind: 'no-op', loop: 'reliability', phase: 'audit' } }));
    const ino = raw.prepare('SELECT ino FROM files WHERE id = ?').pluck().get(ids[1]);
    raw.prepare("INSERT INTO line_marks (host, path, ino, line, kind, text) VALUES ('runner', ?, ?, 1, 'watchdog', 'died to the stream watchdog')").run(withMark, ino);
    raw.close();

    const store = Store.open(db);
    expect(store.version).toBe(MIGRATIONS.length);
    const again = await Promise.all([withVerdict, withMark, plain].map((p) => followOnce(source, store, p, transcriptParser)));
    expect(again.map((r) => r.reset)).toEqual(['replaced', 'replaced', null]);
    expect(again[2]?.changed).toBe(false);
    expect(store.records(ids[0] ?? 0).map((r) => r.kind)).toEqual(['verdict', 'after-verdict']);
    expect(store.lineIndex.marks('runner', withMark, store.file('runner', withMark).ino ?? '')).toEqual([]);
    store.close();
  });
});
