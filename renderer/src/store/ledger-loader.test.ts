import { describe, expect, it } from 'vitest';
import type { RpcResult } from '../../../shared/contract';
import { emptyLedgerRows, pageOf, type LedgerRows } from '../../../shared/ledger-slice';
import { clientOver, type Transport } from '../client';
import { finding } from '../ui/test-fixtures';
import { loadLedgerRows, ROWS_NOT_READY } from './ledger-loader';

/** The rows a load read; a load that read none fails the test here. */
function rowsOf(result: Awaited<ReturnType<typeof loadLedgerRows>>): LedgerRows {
  if (result === null || result === ROWS_NOT_READY) throw new Error(`expected the rows, got ${String(result)}`);
  return result;
}

/** Main answering `ledgers.page` from `rows`, each answer held until the test releases it. */
function mainWithPages(rows: LedgerRows) {
  const asked: number[] = [];
  const held: (() => void)[] = [];
  const transport: Transport = {
    kind: 'websocket',
    invoke: (_name, input) => {
      const { cursor, offset, limit } = input as { cursor: string | null; offset: number; limit: number };
      asked.push(offset);
      return new Promise<RpcResult>((resolve) => held.push(() => resolve({ ok: true, output: pageOf(rows, cursor ?? 'c1', offset, limit) })));
    },
    on: () => () => undefined,
    connection: () => 'open',
    onConnection: () => () => undefined,
    close: () => undefined,
  };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  /** Answer the oldest request still held. */
  const answerNext = async () => {
    held.shift()?.();
    await flush();
  };
  return { client: clientOver(transport), asked, held, answerNext, flush };
}

describe('loadLedgerRows', () => {
  it('reads every page of one copy in order, one at a time, and lays the rows out in order', async () => {
    const findings = Array.from({ length: 23 }, (_, i) => finding(`R-${i}`, { line: i + 1 }));
    const main = mainWithPages({ ...emptyLedgerRows, findings });
    const load = loadLedgerRows(main.client, () => true, 5);
    await main.flush();
    for (const offset of [0, 5, 10, 15, 20]) {
      expect(main.asked.at(-1)).toBe(offset);
      expect(main.held).toHaveLength(1);
      await main.answerNext();
    }
    const rows = await load;
    expect(rowsOf(rows).findings.map((f) => f.id)).toEqual(findings.map((f) => f.id));
  });

  it('reads a ledger that fits one page with one request', async () => {
    const main = mainWithPages({ ...emptyLedgerRows, findings: [finding('R-1')] });
    const load = loadLedgerRows(main.client, () => true, 5);
    await main.flush();
    await main.answerNext();
    expect(rowsOf(await load).findings).toHaveLength(1);
    expect(main.asked).toEqual([0]);
  });

  it('stops when a newer load takes over', async () => {
    const findings = Array.from({ length: 12 }, (_, i) => finding(`R-${i}`, { line: i + 1 }));
    const main = mainWithPages({ ...emptyLedgerRows, findings });
    let mine = true;
    const load = loadLedgerRows(main.client, () => mine, 5);
    await main.flush();
    await main.answerNext();
    mine = false;
    while (main.held.length > 0) await main.answerNext();
    expect(await load).toBeNull();
  });
});
