import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../store/store';
import { CONTENTION_KEPT, ContentionBook, MAX_SAMPLE_GAP_MS } from './contention';

// Each running phase's load aggregate: bounded (never the samples), and kept across a restart.

const MIN = 60_000;
const T0 = Date.parse('2026-11-30T01:00:00Z');
const GB = 1024 ** 3;

describe('ContentionBook', () => {
  it('folds samples into the peak per core, the lowest free memory, and the time watched and contended', () => {
    const book = new ContentionBook(Store.open(':memory:'));
    const at = (m: number) => T0 + m * MIN;
    book.record('rel', '2026-11-30', 'remediate', { load1: 4, cores: 4, freeBytes: 3 * GB }, at(0));
    expect(book.of('rel', '2026-11-30', 'remediate')).toEqual({ samples: 1, peakLoadPerCore: 1, cores: 4, minFreeBytes: 3 * GB, contendedMs: 0, watchedMs: 0, contended: false });
    book.record('rel', '2026-11-30', 'remediate', { load1: 10.5, cores: 4, freeBytes: null }, at(5));
    book.record('rel', '2026-11-30', 'remediate', { load1: 9, cores: 4, freeBytes: 1.2 * GB }, at(10));
    expect(book.of('rel', '2026-11-30', 'remediate')).toEqual({ samples: 3, peakLoadPerCore: 2.63, cores: 4, minFreeBytes: 1.2 * GB, contendedMs: 10 * MIN, watchedMs: 10 * MIN, contended: true });
    // A gap longer than MAX_SAMPLE_GAP_MS (Loopdeck not running) is not claimed as watched.
    book.record('rel', '2026-11-30', 'remediate', { load1: 1, cores: 4, freeBytes: 2 * GB }, at(10) + MAX_SAMPLE_GAP_MS + 1);
    expect(book.of('rel', '2026-11-30', 'remediate')).toMatchObject({ samples: 4, watchedMs: 10 * MIN, contendedMs: 10 * MIN });
    expect(book.of('rel', '2026-11-30', 'audit')).toBeUndefined();
  });

  it('keeps the aggregates across a restart, and only the newest CONTENTION_KEPT phases', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ld-contention-')), 'loopdeck.db');
    const store = Store.open(path);
    const book = new ContentionBook(store);
    for (let i = 0; i <= CONTENTION_KEPT; i++) book.record('rel', `d${String(i).padStart(4, '0')}`, 'remediate', { load1: 3, cores: 1, freeBytes: GB }, T0 + i);
    book.record('rel', 'd0001', 'remediate', { load1: 1, cores: 1, freeBytes: GB }, T0 + 60_000);
    book.flush();
    store.close();
    const again = new ContentionBook(Store.open(path));
    expect(again.of('rel', 'd0000', 'remediate')).toBeUndefined();
    expect(again.of('rel', 'd0001', 'remediate')).toMatchObject({ samples: 2, peakLoadPerCore: 3, cores: 1 });
    expect(again.of('rel', `d${String(CONTENTION_KEPT).padStart(4, '0')}`, 'remediate')).toMatchObject({ samples: 1 });
  });

  it('reads a damaged stored value as nothing', () => {
    const store = Store.open(':memory:');
    store.setMeta('loops.contention', '{"not": "rows"}');
    expect(new ContentionBook(store).of('rel', 'd', 'p')).toBeUndefined();
    store.setMeta('loops.contention', '[["rel\\u0000d\\u0000p", 1, 0.5, 0, null, 0, 0, 1], "junk"]');
    expect(new ContentionBook(store).of('rel', 'd', 'p')).toBeUndefined();
  });
});
