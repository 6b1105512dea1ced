import { describe, expect, it } from 'vitest';
import { emptyLedgerRows, pageOf, type LedgerRows } from '../../../shared/ledger-slice';
import type { AuditMark, Finding, Task } from '../../../shared/domain';
import { CURSOR_TTL_MS, LedgerCursors, MAX_CURSORS } from './ledger-cursors';

const f = (i: number) => ({ id: `R-${i}`, line: i }) as unknown as Finding;
const rowsOf = (n: number, tasks = 0, audits = 0): LedgerRows => ({
  ...emptyLedgerRows,
  findings: Array.from({ length: n }, (_, i) => f(i)),
  tasks: Array.from({ length: tasks }, (_, i) => ({ line: i }) as unknown as Task),
  audits: Array.from({ length: audits }, (_, i) => ({ line: i }) as unknown as AuditMark),
});

describe('pageOf', () => {
  it('lays the lists end to end: a page may end one list and start the next', () => {
    const rows = rowsOf(3, 2, 1);
    const p = pageOf(rows, 'c', 2, 3);
    expect(p).toMatchObject({ cursor: 'c', offset: 2, next: 5, total: 6 });
    expect(p.rows.findings).toEqual([f(2)]);
    expect(p.rows.tasks).toHaveLength(2);
    expect(p.rows.audits).toEqual([]);
    expect(pageOf(rows, 'c', 5, 3)).toMatchObject({ next: null, rows: { audits: [{ line: 0 }], findings: [] } });
    expect(pageOf(emptyLedgerRows, 'c', 0, 10)).toMatchObject({ next: null, total: 0 });
  });
});

describe('LedgerCursors', () => {
  it('reads every page from the copy taken when the cursor opened, then forgets it', () => {
    let live = rowsOf(5);
    const cursors = new LedgerCursors();
    const first = cursors.page({ cursor: null, offset: 0, limit: 2 }, () => live);
    // The live lists change (a row of the first page goes, one is added): the copy does not.
    live = { ...live, findings: [...live.findings.slice(1), f(99)] };
    const second = cursors.page({ cursor: first.cursor, offset: first.next ?? -1, limit: 2 }, () => live);
    const third = cursors.page({ cursor: first.cursor, offset: second.next ?? -1, limit: 2 }, () => live);
    expect([...first.rows.findings, ...second.rows.findings, ...third.rows.findings]).toEqual(rowsOf(5).findings);
    expect(third.next).toBeNull();
    expect(cursors.size).toBe(0);
  });

  it('forgets a cursor unused for its TTL, and the oldest past the most it keeps', () => {
    let now = 0;
    const cursors = new LedgerCursors(() => now);
    const a = cursors.page({ cursor: null, offset: 0, limit: 1 }, () => rowsOf(3));
    now += CURSOR_TTL_MS + 1;
    expect(() => cursors.page({ cursor: a.cursor, offset: 1, limit: 1 }, () => rowsOf(3))).toThrow(/cursor .* has expired .*cursor null/);
    const ids = Array.from({ length: MAX_CURSORS + 1 }, () => cursors.page({ cursor: null, offset: 0, limit: 1 }, () => rowsOf(3)).cursor);
    expect(cursors.size).toBe(MAX_CURSORS);
    expect(() => cursors.page({ cursor: ids[0] ?? '', offset: 1, limit: 1 }, () => rowsOf(3))).toThrow(/expired/);
    expect(cursors.page({ cursor: ids[1] ?? '', offset: 1, limit: 1 }, () => rowsOf(3)).rows.findings).toEqual([f(1)]);
  });
});
