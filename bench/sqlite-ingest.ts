import { join } from 'node:path';
import { Store, type FileCommit, type LineRecord } from '../main/core/store/store';
import { figure, log, msSince, round, tempDir, type Figure } from './lib';

const BATCH = 10_000;
const BATCHES = 5;
const SINGLES = 3_000;

function record(line: number): LineRecord {
  return { kind: 'detail', line, text: `[2026-11-30T03:12:45+00:00] tool_use Bash: pytest -q tests/test_sync.py::test_retry_backoff_${line} PASSED` };
}

function commitOf(offset: number, lineNo: number, records: readonly LineRecord[]): FileCommit {
  return { reset: false, ino: '1', offset, lineNo, parserState: { fence: null }, size: offset, mtimeMs: Date.now(), firstTimeMs: 0, records, problems: [] };
}

/** Figure 7: SQLite ingest through Store.commit, batched vs one record per transaction. */
export function sqliteIngest(): Figure[] {
  const dir = tempDir('sqlite');
  const store = Store.open(join(dir, 'loopdeck.db'));
  try {
    const batchedFile = store.file('bench', '/batched.log').id;
    let line = 0;
    const t0 = process.hrtime.bigint();
    for (let b = 0; b < BATCHES; b++) {
      const records = Array.from({ length: BATCH }, () => record(++line));
      store.commit(batchedFile, commitOf(line * 100, line, records));
    }
    const batchedPerS = (BATCHES * BATCH) / (msSince(t0) / 1000);

    const singleFile = store.file('bench', '/single.log').id;
    line = 0;
    const t1 = process.hrtime.bigint();
    for (let i = 0; i < SINGLES; i++) {
      line += 1;
      store.commit(singleFile, commitOf(line * 100, line, [record(line)]));
    }
    const singlePerS = SINGLES / (msSince(t1) / 1000);
    log(`figure 7: ${Math.round(batchedPerS)} records/s batched, ${Math.round(singlePerS)} one per transaction`);
    return [
      figure({
        id: '7',
        name: `SQLite ingest, Store.commit of ${BATCH.toLocaleString('en-US')} records per transaction`,
        value: round(batchedPerS, 0),
        unit: 'records/s',
        baseline: round(singlePerS, 0),
        baselineLabel: '1 record per Store.commit',
        target: 'info (speed-up of batching)',
        pass: null,
        details: { batches: BATCHES, batchSize: BATCH, singleCommits: SINGLES, journal: 'WAL, synchronous=NORMAL' },
        notes: [],
      }),
    ];
  } finally {
    store.close();
  }
}
