import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CommandInput, CommandOutput, EventName, EventPayload } from '../../../shared/contract';
import { events } from '../../../shared/contract';
import { TREND_RANGES } from '../../../shared/trends';
import { describeError, type ConnectionState, type LoopdeckClient } from '../client';
import { createOpsActions, type OpsActions } from './ops-actions';
import { loadLedgerRows, ROWS_NOT_READY } from './ledger-loader';
import { awaitingFirstRead, emptyDeckData, reduceEvent, withLedgers, withNights, withReading, withSummary, type DeckData } from './reducers';

/**
 * The last `load()`'s request: none yet, in flight, or failed (why, for a person). A failure
 * stays shown while the load is tried again (`loading` keeps it as `lastError`) until one succeeds.
 * How far the data itself has come is `DeckData.stage`.
 */
export type DeckRequest =
  | { readonly state: 'idle' }
  | { readonly state: 'loading'; readonly lastError: string | null }
  | { readonly state: 'failed'; readonly error: string };

/** Why the last load failed, while that is still so (also while it is tried again); null otherwise. */
export function requestError(request: DeckRequest): string | null {
  return request.state === 'failed' ? request.error : request.state === 'loading' ? request.lastError : null;
}

/** The console's store: the data, the connection, and the actions that change them. */
export interface DeckState extends DeckData, OpsActions {
  readonly connection: ConnectionState;
  /** The last load's request: in flight, failed, or neither. */
  readonly request: DeckRequest;
  /** Apply one event (already validated by the client). */
  applyEvent<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /**
   * Fetch `app.info` and `state.summary` and replace the data with them (the views paint), then
   * the ledger rows in pages; resolves once the rows are in.
   */
  load(): Promise<void>;
  /** Start the demo configuration, then load the state it produces. Throws for the caller to show. */
  startDemo(): Promise<void>;
  /** Trust the host key a host presented (the fingerprint the operator compared). Throws for the caller to show. */
  trustHost(host: string, fingerprint: string): Promise<void>;
  /** Forget the keys trusted in Loopdeck for a host (it reconnects and asks again); resolves how many. Throws for the caller to show. */
  untrustHost(host: string): Promise<number>;
  /**
   * Give an identity file's passphrase. It is passed straight to main and never kept here; resolves
   * whether it unlocked the file. Throws for the caller to show.
   */
  unlockHost(host: string, passphrase: string): Promise<boolean>;
  /** Fetch downsampled capacity history for the charts (not kept in the store). Throws for the caller to show. */
  capacityHistory(input: CommandInput<'capacity.history'>): Promise<CommandOutput<'capacity.history'>>;
  /** Two nights of a loop side by side (`nights.compare`: main reads both nights' files). */
  compareNights(input: CommandInput<'nights.compare'>): Promise<CommandOutput<'nights.compare'>>;
  /** A phase's transcript: the file now, its marks (not kept in the store; its growth is, see `transcriptTails`). */
  transcriptOpen(input: CommandInput<'transcript.open'>): Promise<CommandOutput<'transcript.open'>>;
  /** Lines of a transcript (only their bytes are read on the host). */
  transcriptLines(input: CommandInput<'transcript.lines'>): Promise<CommandOutput<'transcript.lines'>>;
  /** Search a transcript where it is. */
  transcriptSearch(input: CommandInput<'transcript.search'>): Promise<CommandOutput<'transcript.search'>>;
  /** Fetch the nights main keeps for Trends (when the view opens); `nights.changed` keeps them current. Never throws. */
  loadNights(): Promise<void>;
}

/** The zustand store type. */
export type DeckStore = StoreApi<DeckState>;

/** Nights the console asks for: the longest Trends range and the 30 nights before it its flags compare against. */
const TRENDS_NIGHTS = Math.max(...TREND_RANGES) + 30;

type Buffered = { [E in EventName]: readonly [E, EventPayload<E>] }[EventName];

/** Create the store over a client. Call `bindDeckStore` to feed it events and connection changes. */
export function createDeckStore(
  client: LoopdeckClient,
  now: () => string = () => new Date().toISOString(),
  /** Show a view the shell asked for (`app.navigate`); the route follows the location hash. */
  navigate: (hash: string) => void = (hash) => {
    window.location.hash = hash;
  },
): DeckStore {
  let generation = 0;
  // Events that arrive while a load is in flight are replayed over what it brings, so a summary or
  // a page computed just before an event cannot undo it. The ledger deltas are replayed over the
  // pages (which come from one copy taken after the load began): replaying a delta the copy
  // already holds gives the same rows, so none is lost or counted twice.
  let buffer: Buffered[] | null = null;

  return createStore<DeckState>()((set, get) => ({
    ...emptyDeckData,
    connection: client.connection(),
    request: { state: 'idle' },
    ...createOpsActions(client, set, get),

    applyEvent(event, payload) {
      const effect = reduceEvent(get(), event, payload, now());
      set(effect.data);
      buffer?.push([event, payload] as Buffered);
      if (effect.navigate !== undefined) navigate(effect.navigate);
      if (effect.refetch) void get().load();
    },

    async load() {
      const mine = ++generation;
      buffer = [];
      set((s) => ({ request: { state: 'loading', lastError: requestError(s.request) } }));
      try {
        const [info, summary] = await Promise.all([
          client.invoke('app.info', {}),
          client.invoke('state.summary', {}).then(
            (output) => ({ ok: true as const, output }),
            (error: unknown) => ({ ok: false as const, error }),
          ),
        ]);
        if (mine !== generation) return;
        if (!summary.ok) {
          // Without a loaded config there may be nothing to snapshot; only then is that fine.
          if (info.config.state === 'loaded') throw summary.error;
          set({ ...emptyDeckData, info, stage: { state: 'ready' }, request: { state: 'idle' } });
          return;
        }
        let data: DeckData = withSummary({ ...get(), info }, summary.output);
        for (const [event, payload] of buffer ?? []) {
          if (event !== 'config.changed') data = reduceEvent(data, event, payload, data.updatedAt ?? summary.output.takenAt).data;
        }
        set({ ...data, request: { state: 'idle' } });
        // The state saved at main's last run, or a partly read one: painted at once; rows and the
        // whole state follow the `state.reset` main sends once its first read has caught up.
        if (awaitingFirstRead(data)) return;
        // The views have painted; now the rows, a page at a time.
        const rows = await loadLedgerRows(client, () => mine === generation);
        if (rows === null || mine !== generation) return;
        // Main restarted in between and is reading again: shown as reading until its `state.reset`.
        if (rows === ROWS_NOT_READY) return set(withReading(get()));
        let withRows = withLedgers(get(), rows);
        for (const [event, payload] of buffer ?? []) {
          if (event === 'ledgers.changed') withRows = reduceEvent(withRows, event, payload, withRows.updatedAt ?? summary.output.takenAt).data;
        }
        set(withRows);
      } catch (err) {
        if (mine !== generation) return;
        set({ request: { state: 'failed', error: describeError(err) } });
      } finally {
        if (mine === generation) buffer = null;
      }
    },

    async startDemo() {
      await client.invoke('demo.start', {});
      await get().load();
    },
    async trustHost(host, fingerprint) {
      await client.invoke('hosts.trust', { host, fingerprint });
    },
    async untrustHost(host) {
      const { removed } = await client.invoke('hosts.untrust', { host });
      return removed;
    },
    async unlockHost(host, passphrase) {
      const { unlocked } = await client.invoke('hosts.unlock', { host, passphrase });
      return unlocked;
    },
    capacityHistory: (input) => client.invoke('capacity.history', input),
    compareNights: (input) => client.invoke('nights.compare', input),
    transcriptOpen: (input) => client.invoke('transcript.open', input),
    transcriptLines: (input) => client.invoke('transcript.lines', input),
    transcriptSearch: (input) => client.invoke('transcript.search', input),
    async loadNights() {
      try {
        // The longest range and the 30 nights its flags look back over: never a decade of rows.
        const { nights } = await client.invoke('trends.nights', { nights: TRENDS_NIGHTS });
        // What `nights.changed` brought meanwhile is newer than this answer.
        set(withNights(get(), nights, false));
      } catch {
        // The followed cycles still show; the view asks again when opened again.
      }
    },
  }));
}

/**
 * Feed the store: every contract event, connection changes, and a load whenever the connection
 * opens (the first time and after every reconnect). Returns a function that unbinds it.
 */
export function bindDeckStore(store: DeckStore, client: LoopdeckClient): () => void {
  const offs = (Object.keys(events) as EventName[]).map((event) =>
    client.on(event, (payload) => store.getState().applyEvent(event, payload)),
  );
  offs.push(
    client.onConnection((connection) => {
      store.setState({ connection });
      if (connection === 'open') void store.getState().load();
    }),
    // An event was lost: deltas cannot be trusted to add up any more, so start from a snapshot.
    client.onResync(() => void store.getState().load()),
  );
  store.setState({ connection: client.connection() });
  if (client.connection() === 'open') void store.getState().load();
  return () => offs.forEach((off) => off());
}
