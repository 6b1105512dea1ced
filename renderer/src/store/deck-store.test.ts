import { describe, expect, it, vi } from 'vitest';
import type { EventName, EventPayload, RpcResult } from '../../../shared/contract';
import type { ConnectionState, Transport } from '../client';
import { clientOver } from '../client';
import { pageOf, summaryOf } from '../../../shared/ledger-slice';
import type { Finding, Snapshot } from '../../../shared/domain';
import { applyKeyedDelta, findingKey } from '../../../shared/deltas';
import { cycle, finding, snapshot } from '../ui/test-fixtures';
import { withSnapshot, type DeckStage } from './reducers';
import { bindDeckStore, createDeckStore } from './deck-store';

type Answer = (name: string, input?: unknown) => Promise<RpcResult>;

function harness(answer: Answer, initial: ConnectionState = 'open', navigated: string[] = []) {
  const subs = new Map<string, Set<(p: unknown) => void>>();
  const connSubs = new Set<(s: ConnectionState) => void>();
  let state = initial;
  const calls: string[] = [];
  const t: Transport = {
    kind: 'websocket',
    invoke: (name, input) => {
      calls.push(name);
      return answer(name, input);
    },
    on: (e, cb) => {
      const s = subs.get(e) ?? new Set();
      subs.set(e, s);
      s.add(cb);
      return () => s.delete(cb);
    },
    connection: () => state,
    onConnection: (cb) => {
      connSubs.add(cb);
      return () => connSubs.delete(cb);
    },
    close: () => {},
  };
  const client = clientOver(t);
  const store = createDeckStore(client, () => '2026-08-24T07:05:00.000Z', (hash) => navigated.push(hash));
  const unbind = bindDeckStore(store, client);
  return {
    store,
    calls,
    unbind,
    emit: (e: EventName, p: unknown) => subs.get(e)?.forEach((cb) => cb(p)),
    setConnection: (s: ConnectionState) => {
      state = s;
      connSubs.forEach((cb) => cb(s));
    },
  };
}

const infoOutput = (state: 'loaded' | 'missing' = 'loaded') => ({
  version: '0.1.0',
  shell: 'serve' as const,
  config: { state, path: '/c.yaml' },
  dataDir: '/d',
  demo: false,
  caller: { user: 'op', role: 'admin' as const, via: 'token' as const },
});

/** Main's answers for a snapshot: the summary, and its ledger rows in pages of `limit`. */
function mainOf(snap: () => Snapshot): Answer {
  return async (name, input) => {
    if (name === 'app.info') return { ok: true, output: infoOutput() };
    if (name === 'state.summary') return { ok: true, output: summaryOf(snap()) };
    if (name === 'ledgers.page') {
      const { cursor, offset, limit } = input as { cursor: string | null; offset: number; limit: number };
      return { ok: true, output: pageOf(snap(), cursor ?? 'c1', offset, limit) };
    }
    return { ok: true, output: snap() };
  };
}

const standard: Answer = mainOf(() => snapshot());

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('deck store', () => {
  it('shows the view the shell asks for (app.navigate, from a clicked notification)', async () => {
    const navigated: string[] = [];
    const h = harness(standard, 'open', navigated);
    await flush();
    h.emit('app.navigate', { hash: '#/notices' });
    h.emit('app.navigate', { hash: 'javascript:alert(1)' });
    expect(navigated).toEqual(['#/notices']);
  });

  it('loads info and the snapshot when the connection is open', async () => {
    const h = harness(standard);
    await flush();
    const s = h.store.getState();
    expect(s.info?.version).toBe('0.1.0');
    expect(s.loopNames).toEqual(['reliability', 'testing']);
    expect(s.stage).toEqual({ state: 'ready' });
    expect(s.request).toEqual({ state: 'idle' });
    expect(s.connection).toBe('open');
  });

  it('shows the state as reading, not as having no rows, when main has not read the rows yet, and loads them after its state.reset', async () => {
    let ready = false;
    const main = mainOf(() => snapshot());
    const h = harness(async (name, input) =>
      name === 'ledgers.page' && !ready ? { ok: true, output: { ready: false, reason: 'the first read since the start has not caught up yet' } } : main(name, input),
    );
    await flush();
    expect(h.store.getState()).toMatchObject({ stage: { state: 'reading', rows: false }, ledgerRows: null });
    ready = true;
    h.emit('state.reset', {});
    await flush();
    expect(h.store.getState().stage).toEqual({ state: 'ready' });
    expect(h.store.getState().findings.length).toBe(snapshot().findings.length);
  });

  it('waits for the connection, and re-fetches after every reconnect', async () => {
    const h = harness(standard, 'connecting');
    await flush();
    expect(h.calls).toEqual([]);
    h.setConnection('open');
    await flush();
    expect(h.calls.sort()).toEqual(['app.info', 'ledgers.page', 'state.summary']);
    h.setConnection('closed');
    expect(h.store.getState().connection).toBe('closed');
    h.setConnection('connecting');
    h.setConnection('open');
    await flush();
    expect(h.calls).toHaveLength(6);
  });

  it('applies events, and config.changed triggers a refetch', async () => {
    const h = harness(standard);
    await flush();
    h.emit('loop.changed', { loop: 'reliability', host: 'runner', upserted: [cycle('2026-08-24', 'running')], removed: [] });
    expect(h.store.getState().loops.reliability?.cycles[0]?.status).toBe('running');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    h.emit('loop.changed', { loop: 'bad' });
    expect(h.store.getState().loops.bad).toBeUndefined();
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
    const before = h.calls.length;
    h.emit('config.changed', { config: { state: 'loaded', path: '/c.yaml' }, demo: true });
    expect(h.store.getState().info?.demo).toBe(true);
    await flush();
    expect(h.calls.length).toBe(before + 3);
  });

  // Until main's first read after its start has caught up, the summary is the one saved at the
  // last run (`restored`) or, with nothing saved, the live one half read (`reading`, its row
  // counts not yet what will load): painted, without rows, until `state.reset`.
  it.each([
    { flag: 'restored', expected: 1 },
    { flag: 'reading', expected: null },
  ] as const)('paints a $flag summary without asking for rows, and loads afresh on state.reset', async ({ flag, expected }) => {
    let pending = true;
    const base = mainOf(() => snapshot({ findings: [finding('R-1', { line: 10 })] }));
    const h = harness(async (name, input) => {
      const answer = await base(name, input);
      return name === 'state.summary' && answer.ok && pending ? { ok: true, output: { ...(answer.output as object), [flag]: true } } : answer;
    });
    await flush();
    expect(h.calls.sort()).toEqual(['app.info', 'state.summary']);
    expect(h.store.getState().stage).toEqual({ state: flag, rows: false });
    expect(h.store.getState().ledgerRows?.findings ?? null).toBe(expected);
    // Main's first read reports each big ledger as `ledgers.reset` before its `state.reset`: no
    // load for it (the state.reset loads everything once).
    const before = h.calls.length;
    h.emit('ledgers.reset', { loop: 'reliability', rows: 60_000 });
    await flush();
    expect(h.calls.slice(before)).toEqual([]);
    pending = false;
    h.emit('state.reset', {});
    await flush();
    expect(h.calls).toContain('ledgers.page');
    expect(h.store.getState().stage).toEqual({ state: 'ready' });
    expect(h.store.getState().findings).toHaveLength(1);
  });

  it('reads the rows again on ledgers.reset (a change too big for a delta)', async () => {
    let findings = [finding('R-1', { line: 10 }), finding('R-2', { line: 11 })];
    const h = harness(mainOf(() => snapshot({ findings })));
    await flush();
    expect(findings.length).toBeGreaterThan(0);
    expect(h.store.getState().findings).toHaveLength(findings.length);
    findings = findings.slice(1);
    const before = h.calls.length;
    h.emit('ledgers.reset', { loop: 'reliability', rows: 5000 });
    await flush();
    expect(h.calls.slice(before).sort()).toEqual(['app.info', 'ledgers.page', 'state.summary']);
    expect(h.store.getState().findings).toHaveLength(findings.length);
  });

  it('replays events that arrive while a snapshot is in flight', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const h = harness(async (name) => {
      if (name === 'app.info') return { ok: true, output: infoOutput() };
      await gate;
      return standard(name, { cursor: null, offset: 0, limit: 10 });
    });
    await flush();
    h.emit('loop.changed', { loop: 'reliability', host: 'runner', upserted: [cycle('2026-08-24', 'failed')], removed: [] });
    release();
    await flush();
    expect(h.store.getState().loops.reliability?.cycles[0]?.status).toBe('failed');
  });

  it('records a failed load for the UI, and a later load clears it', async () => {
    let fail = true;
    const h = harness(async (name) => {
      if (name === 'app.info') return { ok: true, output: infoOutput() };
      return fail ? { ok: false, error: { code: 'handler-failed', message: 'state.summary failed: disk I/O' } } : standard(name, { cursor: null, offset: 0, limit: 10 });
    });
    await flush();
    expect(h.store.getState().request).toEqual({ state: 'failed', error: expect.stringContaining('disk I/O') as string });
    expect(h.store.getState().stage).toEqual({ state: 'empty' });
    fail = false;
    const retry = h.store.getState().load();
    // Tried again: the failure stays shown until the retry succeeds.
    expect(h.store.getState().request).toEqual({ state: 'loading', lastError: expect.stringContaining('disk I/O') as string });
    await retry;
    expect(h.store.getState().request).toEqual({ state: 'idle' });
    expect(h.store.getState().stage).toEqual({ state: 'ready' });
  });

  it('tolerates a failing snapshot when there is no config yet', async () => {
    const h = harness(async (name) =>
      name === 'app.info'
        ? { ok: true, output: infoOutput('missing') }
        : { ok: false, error: { code: 'handler-failed', message: 'no config' } },
    );
    await flush();
    const s = h.store.getState();
    expect(s.request).toEqual({ state: 'idle' });
    expect(s.info?.config.state).toBe('missing');
    expect(s.stage).toEqual({ state: 'ready' });
  });

  it('startDemo calls demo.start then reloads', async () => {
    const h = harness(async (name) =>
      name === 'demo.start' ? { ok: true, output: { configPath: '/d/c.yaml' } } : standard(name),
    );
    await flush();
    await h.store.getState().startDemo();
    expect(h.calls.slice(3)).toEqual(['demo.start', 'app.info', 'state.summary', 'ledgers.page']);
  });

  it('trustHost sends the host and the fingerprint the operator saw, and surfaces failures', async () => {
    const inputs: unknown[] = [];
    let fail = false;
    const h = harness(async (name, input) => {
      if (name !== 'hosts.trust') return standard(name);
      inputs.push(input);
      return fail
        ? { ok: false, error: { code: 'handler-failed', message: 'Host mac now presents a different key.' } }
        : { ok: true, output: { trusted: true } };
    });
    await flush();
    await h.store.getState().trustHost('mac', 'SHA256:abcDEF123+/x');
    expect(inputs).toEqual([{ host: 'mac', fingerprint: 'SHA256:abcDEF123+/x' }]);
    fail = true;
    await expect(h.store.getState().trustHost('mac', 'SHA256:abc')).rejects.toThrow(/different key/);
  });

  it('unlockHost passes the passphrase through without keeping it', async () => {
    const secret = 'correct horse battery staple';
    const h = harness(async (name, input) =>
      name === 'hosts.unlock'
        ? { ok: true, output: { unlocked: (input as { passphrase: string }).passphrase === secret } }
        : standard(name),
    );
    await flush();
    await expect(h.store.getState().unlockHost('mac', 'wrong')).resolves.toBe(false);
    await expect(h.store.getState().unlockHost('mac', secret)).resolves.toBe(true);
    expect(JSON.stringify(h.store.getState())).not.toContain(secret);
  });
});

describe('the light first load', () => {
  const none = { upserted: [], removed: [] };
  const rows = (n: number) => Array.from({ length: n }, (_, i) => finding(`R-${i}`, { line: 10 + i }));

  /**
   * A main whose findings change while the store loads: `at(call)` runs before main answers the
   * n-th call (0: app.info…), and each change is applied to main and published as a delta, as the
   * engine does. Pages are 2 rows, read from the copy taken when the cursor opened.
   */
  function changingMain(start: readonly Finding[], at: Record<number, () => EventPayload<'ledgers.changed'>>) {
    let findings = start;
    const cursors = new Map<string, Snapshot>();
    let n = 0;
    let emit: (p: EventPayload<'ledgers.changed'>) => void = () => {};
    const now = () => snapshot({ findings });
    const answer: Answer = async (name, input) => {
      const change = at[n++];
      if (change) {
        const delta = change();
        findings = applyKeyedDelta(findings, delta.findings, findingKey);
        emit(delta);
      }
      if (name === 'ledgers.page') {
        const { cursor, offset } = input as { cursor: string | null; offset: number };
        const id = cursor ?? `c${cursors.size + 1}`;
        if (!cursors.has(id)) cursors.set(id, now());
        return { ok: true, output: pageOf(cursors.get(id) as Snapshot, id, offset, 2) };
      }
      return mainOf(now)(name, input);
    };
    return { answer, main: now, onEmit: (cb: typeof emit) => (emit = cb) };
  }

  const delta = (findings: EventPayload<'ledgers.changed'>['findings']): EventPayload<'ledgers.changed'> => ({
    loop: 'reliability',
    findings,
    backlog: none,
    tasks: none,
    lessons: none,
    audits: none,
  });

  it('paints from the summary without rows, then holds what a full snapshot holds, whatever deltas came before, between and after the pages', async () => {
    const m = changingMain(rows(7), {
      // Before the summary, between the summary and the first page, between two pages (a row of
      // a page already read goes away, which would shift an offset into the live list), and a
      // change of a row main already sent in the copy.
      1: () => delta({ upserted: [finding('R-new1', { line: 100 })], removed: [] }),
      2: () => delta({ upserted: [finding('R-2', { line: 12, status: 'done' })], removed: [] }),
      4: () => delta({ upserted: [finding('R-new2', { line: 101 })], removed: [findingKey(finding('R-0', { line: 10 }))] }),
      5: () => delta({ upserted: [finding('R-5', { line: 15, severity: 'P0' })], removed: [findingKey(finding('R-1', { line: 11 }))] }),
    });
    const h = harness(m.answer, 'connecting');
    m.onEmit((p) => h.emit('ledgers.changed', p));
    let painted: { stage: DeckStage; findings: number; expected: number | undefined } | null = null;
    h.store.subscribe((s) => {
      if (s.stage.state !== 'empty' && painted === null) painted = { stage: s.stage, findings: s.findings.length, expected: s.ledgerRows?.findings };
    });
    h.setConnection('open');
    await vi.waitFor(() => expect(h.store.getState().stage).toEqual({ state: 'ready' }));
    expect(painted).toEqual({ stage: { state: 'summary' }, findings: 0, expected: 8 });
    expect(h.calls.filter((c) => c === 'ledgers.page').length).toBeGreaterThan(2);
    // After the pages, one more change arrives the usual way.
    h.emit('ledgers.changed', delta({ upserted: [finding('R-new3', { line: 102 })], removed: [] }));
    const full = withSnapshot(h.store.getState(), snapshot({ findings: applyKeyedDelta(m.main().findings, delta({ upserted: [finding('R-new3', { line: 102 })], removed: [] }).findings, findingKey) }));
    expect(h.store.getState().findings).toEqual(full.findings);
    expect(h.store.getState().findings.map((f) => f.id)).toEqual(['R-2', 'R-3', 'R-4', 'R-5', 'R-6', 'R-new1', 'R-new2', 'R-new3']);
    expect(h.store.getState().findings.find((f) => f.id === 'R-2')?.status).toBe('done');
  });

  it('starts over from a new copy when main forgot the one being read', async () => {
    let pages = 0;
    const h = harness(async (name, input) => {
      if (name === 'ledgers.page' && (input as { cursor: string | null }).cursor !== null && pages++ === 0) {
        return { ok: false, error: { code: 'handler-failed', message: 'ledgers.page failed: the ledger cursor c1 has expired (unused for 60 s)' } };
      }
      return changingMain(rows(3), {}).answer(name, input);
    });
    await vi.waitFor(() => expect(h.store.getState().stage).toEqual({ state: 'ready' }));
    expect(h.store.getState().findings.map((f) => f.id)).toEqual(['R-0', 'R-1', 'R-2']);
    expect(h.store.getState().request).toEqual({ state: 'idle' });
  });
});
