import { appendPage, emptyLedgerRows, type LedgerRows } from '../../../shared/ledger-slice';
import { RpcClientError, type LoopdeckClient } from '../client';

/** Rows asked for per page: ~2.5 MB of JSON, parsed and validated in a few tens of ms, so the page stays responsive. */
export const PAGE_ROWS = 5000;

/** Times a load starts over from a new copy when main forgot the one it was reading. */
const RETRIES = 2;

const expired = (err: unknown): boolean => err instanceof RpcClientError && err.code === 'handler-failed' && /cursor .* has expired/.test(err.message);

/** Main has no rows to page yet (its first read since a start has not caught up): wait for `state.reset`. */
export const ROWS_NOT_READY = 'not-ready';

/**
 * Read every ledger row from one frozen copy in main, a page at a time. Each page is validated
 * once, as it arrives (the client checks every answer against the contract), off the first
 * paint's path. Returns null when `current()` says a newer load took over, and ROWS_NOT_READY
 * when main has not read them yet.
 */
export async function loadLedgerRows(client: LoopdeckClient, current: () => boolean, limit = PAGE_ROWS): Promise<LedgerRows | null | typeof ROWS_NOT_READY> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readAll(client, current, limit);
    } catch (err) {
      // Main dropped the copy (idle for a minute, or many clients loading): start over. The
      // store replays every delta received since its load began, so a newer copy is as good.
      if (!expired(err) || attempt >= RETRIES) throw err;
    }
  }
}

async function readAll(client: LoopdeckClient, current: () => boolean, limit: number): Promise<LedgerRows | null | typeof ROWS_NOT_READY> {
  let rows = emptyLedgerRows;
  let page = await client.invoke('ledgers.page', { cursor: null, offset: 0, limit });
  for (;;) {
    if (!current()) return null;
    if (!page.ready) return ROWS_NOT_READY;
    rows = appendPage(rows, page);
    if (page.next === null) return rows;
    page = await client.invoke('ledgers.page', { cursor: page.cursor, offset: page.next, limit });
  }
}
