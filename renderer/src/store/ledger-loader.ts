import { appendPage, emptyLedgerRows, type LedgerPage, type LedgerRows } from '../../../shared/ledger-slice';
import { RpcClientError, type LoopdeckClient } from '../client';

/** Rows asked for per page: ~2.5 MB of JSON, parsed and validated in a few tens of ms, so the page stays responsive. */
export const PAGE_ROWS = 5000;

/** Times a load starts over from a new copy when main forgot the one it was reading. */
const RETRIES = 2;

const expired = (err: unknown): boolean => err instanceof RpcClientError && err.code === 'handler-failed' && /cursor .* has expired/.test(err.message);

/**
 * Read every ledger row from one frozen copy in main, a page at a time. Each page is validated
 * once, as it arrives (the client checks every answer against the contract), off the first
 * paint's path. Returns null when `current()` says a newer load took over.
 */
export async function loadLedgerRows(client: LoopdeckClient, current: () => boolean, limit = PAGE_ROWS): Promise<LedgerRows | null> {
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

/** Pages asked for ahead of the one being taken in: main builds and sends them while the renderer reads it. */
export const PAGES_AHEAD = 2;

async function readAll(client: LoopdeckClient, current: () => boolean, limit: number): Promise<LedgerRows | null> {
  const ask = (cursor: string | null, offset: number): Promise<LedgerPage> => {
    const page = client.invoke('ledgers.page', { cursor, offset, limit });
    // A page still in flight when the load ends (superseded, or failed on another page) is dropped.
    page.catch(() => undefined);
    return page;
  };
  let page = await ask(null, 0);
  // Every page but the last holds `limit` rows, so the offsets are known once the first is in:
  // a few are asked for ahead (answered in order on the one connection), never all at once.
  const offsets: number[] = [];
  for (let at = page.next; at !== null && at < page.total; at += limit) offsets.push(at);
  const ahead: Promise<LedgerPage>[] = [];
  const askAhead = (): void => {
    while (ahead.length < PAGES_AHEAD && offsets.length > 0) ahead.push(ask(page.cursor, offsets.shift() as number));
  };
  let rows = emptyLedgerRows;
  for (;;) {
    askAhead();
    if (!current()) return null;
    rows = appendPage(rows, page);
    if (page.next === null) return rows;
    const expected = page.next;
    page = await (ahead.shift() ?? ask(page.cursor, expected));
    if (page.offset !== expected) throw new Error(`ledgers.page: expected the page at row ${expected}, got the one at ${page.offset}.`);
  }
}
