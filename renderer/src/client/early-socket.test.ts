import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EARLY_HOLD_MAX, openEarlySocket, takeEarlySocket, type EarlySocket } from './early-socket';
import { FakeSocket } from './fake-socket';
import { TOKEN_STORAGE_KEY } from './token';
import { createWsTransport } from './ws-transport';

const LOCATION = { protocol: 'http:', host: '127.0.0.1:7777', search: '?token=s3cret' };
const result = (id: number, output: unknown) => ({ type: 'result', id, result: { ok: true, output } });
const event = (seq: number) => ({ type: 'event', event: 'problems.changed', payload: { problems: [] }, seq });
const names = (s: FakeSocket) => s.sent.map((f) => (JSON.parse(f) as { id: number; name: string }).name);

/** An early socket opened on a fake page, and the sockets the transport opens after it. */
function page() {
  const sockets: FakeSocket[] = [];
  const factory = (url: string) => {
    const s = new FakeSocket(url);
    sockets.push(s);
    return s;
  };
  const storage = new Map<string, string>();
  const holder = {};
  const early = openEarlySocket({ holder, location: LOCATION, storage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v) }, socket: factory });
  if (!early) throw new Error('no early socket');
  const transport = (taken: EarlySocket | null = takeEarlySocket(holder)) => createWsTransport({ url: 'ws://127.0.0.1:7777/ws?token=s3cret', early: taken, socket: factory, random: () => 0.5 });
  return { sockets, storage, holder, early, first: sockets[0] as FakeSocket, transport };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the early socket', () => {
  it('opens with the page token, asks for app.info and state.summary once open, and keeps what comes', () => {
    const { first, storage, early } = page();
    expect(first.url).toBe('ws://127.0.0.1:7777/ws?token=s3cret');
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe('s3cret');
    expect(first.sent).toEqual([]);
    first.onopen?.();
    expect(first.sent.map((f) => JSON.parse(f))).toEqual([
      { id: 1, name: 'app.info', input: {} },
      { id: 2, name: 'state.summary', input: {} },
    ]);
    first.serverSends(result(1, { v: 1 }));
    expect(early.frames).toHaveLength(1);
  });

  it('keeps a bounded amount for a transport that may never come: past it, the socket is closed and dropped', () => {
    const { first, early, sockets, transport } = page();
    first.onopen?.();
    const big = { type: 'event', event: 'problems.changed', payload: { problems: [], pad: 'x'.repeat(1024 * 1024) }, seq: 1 };
    for (let i = 0; i < Math.ceil(EARLY_HOLD_MAX / (1024 * 1024)) + 1; i += 1) first.serverSends(big);
    expect(first.closed).toBe(true);
    expect(early.closed).toBe(true);
    expect(early.frames).toEqual([]);
    // A transport that comes after all opens a socket of its own.
    transport();
    expect(sockets).toHaveLength(2);
  });

  it('is not opened in the desktop shell (its bridge reaches main), nor twice', () => {
    const opened: string[] = [];
    const socket = (url: string) => {
      opened.push(url);
      return new FakeSocket(url);
    };
    expect(openEarlySocket({ holder: { loopdeck: {} }, location: LOCATION, storage: null, socket })).toBeNull();
    const holder = {};
    expect(openEarlySocket({ holder, location: LOCATION, storage: null, socket })).not.toBeNull();
    expect(openEarlySocket({ holder, location: LOCATION, storage: null, socket })).toBeNull();
    expect(opened).toHaveLength(1);
    expect(takeEarlySocket(holder)).not.toBeNull();
    expect(takeEarlySocket(holder)).toBeNull();
  });
});

describe('the WebSocket transport adopting the early socket', () => {
  it('answers the first app.info and state.summary from it, sending neither again, and numbers its own calls after them', async () => {
    const { sockets, first, transport } = page();
    first.onopen?.();
    first.serverSends(result(1, { app: 'info' }));
    first.serverSends(result(2, { summary: true }));
    const t = transport();
    expect(t.connection()).toBe('open');
    expect(sockets).toHaveLength(1);
    await expect(t.invoke('app.info', {})).resolves.toEqual({ ok: true, output: { app: 'info' } });
    await expect(t.invoke('state.summary', {})).resolves.toEqual({ ok: true, output: { summary: true } });
    expect(names(first)).toEqual(['app.info', 'state.summary']);
    // A second ask is a new call.
    const again = t.invoke('app.info', {});
    expect(JSON.parse(first.sent[2] ?? '{}')).toMatchObject({ id: 3, name: 'app.info' });
    first.serverSends(result(3, { app: 'again' }));
    await expect(again).resolves.toEqual({ ok: true, output: { app: 'again' } });
  });

  it('hands on what came before anyone listened at the first call, in the order it came', async () => {
    const { first, transport } = page();
    first.onopen?.();
    first.serverSends(event(1));
    first.serverSends(result(1, { app: 'info' }));
    first.serverSends(event(2));
    const t = transport();
    const seen: string[] = [];
    t.on('problems.changed', (_p, seq) => seen.push(`event ${seq}`));
    first.serverSends(event(3));
    // Held until the page asks (its store listens by then and takes events during its load).
    expect(seen).toEqual([]);
    const info = t.invoke('app.info', {}).then(() => seen.push('app.info answered'));
    expect(seen).toEqual(['event 1', 'event 2', 'event 3']);
    await info;
    first.serverSends(result(2, { summary: true }));
    await expect(t.invoke('state.summary', {})).resolves.toEqual({ ok: true, output: { summary: true } });
    first.serverSends(event(4));
    expect(seen).toEqual(['event 1', 'event 2', 'event 3', 'app.info answered', 'event 4']);
  });

  it('hands them on after the page’s first turn when nothing asks', () => {
    const { first, transport } = page();
    first.onopen?.();
    first.serverSends(event(1));
    const t = transport();
    const seen: number[] = [];
    t.on('problems.changed', (_p, seq) => seen.push(seq ?? -1));
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(seen).toEqual([1]);
  });

  it('adopts a socket still opening: the early calls go first once it opens, then what was queued', async () => {
    const { sockets, first, transport } = page();
    const t = transport();
    expect(t.connection()).toBe('connecting');
    const info = t.invoke('app.info', {});
    const other = t.invoke('hosts.untrust', { host: 'h' });
    first.onopen?.();
    expect(t.connection()).toBe('open');
    expect(first.sent.map((f) => JSON.parse(f) as { id: number; name: string }).map((f) => [f.id, f.name])).toEqual([
      [1, 'app.info'],
      [2, 'state.summary'],
      [3, 'hosts.untrust'],
    ]);
    first.serverSends(result(1, { app: 'info' }));
    first.serverSends(result(3, { removed: true }));
    await expect(info).resolves.toEqual({ ok: true, output: { app: 'info' } });
    await expect(other).resolves.toEqual({ ok: true, output: { removed: true } });
    expect(sockets).toHaveLength(1);
  });

  it('opens a socket of its own when the early one closed, and asks everything on it', async () => {
    const { sockets, first, early, transport } = page();
    first.onopen?.();
    first.onclose?.({ code: 1006 });
    expect(early.closed).toBe(true);
    const t = transport();
    expect(sockets).toHaveLength(2);
    const fresh = sockets[1] as FakeSocket;
    fresh.onopen?.();
    const info = t.invoke('app.info', {});
    expect(JSON.parse(fresh.sent[0] ?? '{}')).toMatchObject({ id: 1, name: 'app.info' });
    fresh.serverSends(result(1, { app: 'fresh' }));
    await expect(info).resolves.toEqual({ ok: true, output: { app: 'fresh' } });
  });

  it('fails an early call the socket closed under, and asks afresh after the reconnect', async () => {
    const { sockets, first, transport } = page();
    first.onopen?.();
    first.serverSends(event(1));
    const t = transport();
    const info = t.invoke('app.info', {});
    first.onclose?.({ code: 1006 });
    await expect(info).rejects.toMatchObject({ code: 'disconnected' });
    vi.advanceTimersByTime(60_000);
    const next = sockets[1] as FakeSocket;
    next.onopen?.();
    const again = t.invoke('state.summary', {});
    expect(names(next)).toEqual(['state.summary']);
    next.serverSends(result(JSON.parse(next.sent[0] ?? '{}').id as number, { summary: 'fresh' }));
    await expect(again).resolves.toEqual({ ok: true, output: { summary: 'fresh' } });
  });
});
