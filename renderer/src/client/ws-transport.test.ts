import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SIGNED_OUT_CLOSE } from '../../../shared/sign-in';
import { RpcClientError } from './errors';
import type { ConnectionState } from './types';
import { FakeSocket } from './fake-socket';
import { createWsTransport } from './ws-transport';

function setup(onSignedOut?: () => void) {
  const sockets: FakeSocket[] = [];
  const states: ConnectionState[] = [];
  const t = createWsTransport({
    url: 'ws://h/ws?token=t',
    ...(onSignedOut ? { onSignedOut } : {}),
    socket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    random: () => 0.5,
  });
  t.onConnection((s) => states.push(s));
  const last = () => sockets[sockets.length - 1] as FakeSocket;
  return { t, sockets, states, last };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('createWsTransport', () => {
  it('stops reconnecting and says so when the server ends the socket because the sign-in ended', () => {
    let signedOut = 0;
    const { sockets, last } = setup(() => (signedOut += 1));
    last().onopen?.();
    last().drop(1006);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
    last().onopen?.();
    last().drop(SIGNED_OUT_CLOSE);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
    expect(signedOut).toBe(1);
  });

  it('queues calls made while connecting and sends them on open', async () => {
    const { t, last } = setup();
    expect(t.connection()).toBe('connecting');
    const p = t.invoke('app.info', {});
    expect(last().sent).toEqual([]);
    last().onopen?.();
    expect(t.connection()).toBe('open');
    const frame = JSON.parse(last().sent[0] as string) as { id: number; name: string; input: unknown };
    expect(frame).toMatchObject({ name: 'app.info', input: {} });
    last().serverSends({ type: 'result', id: frame.id, result: { ok: true, output: { x: 1 } } });
    await expect(p).resolves.toEqual({ ok: true, output: { x: 1 } });
  });

  it('passes typed error results through as results', async () => {
    const { t, last } = setup();
    last().onopen?.();
    const p = t.invoke('nope', {});
    const { id } = JSON.parse(last().sent[0] as string) as { id: number };
    const error = { code: 'unknown-command', message: 'Unknown command "nope".' };
    last().serverSends({ type: 'result', id, result: { ok: false, error } });
    await expect(p).resolves.toEqual({ ok: false, error });
  });

  it('fails pending calls on disconnect, then reconnects with backoff', async () => {
    const { t, sockets, states, last } = setup();
    last().onopen?.();
    const p = t.invoke('state.snapshot', {});
    last().drop();
    await expect(p).rejects.toBeInstanceOf(RpcClientError);
    await expect(p).rejects.toMatchObject({ code: 'disconnected' });
    expect(t.connection()).toBe('closed');
    await expect(t.invoke('app.info', {})).rejects.toMatchObject({ code: 'disconnected' });
    vi.advanceTimersByTime(249);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    last().drop();
    vi.advanceTimersByTime(499);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
    last().onopen?.();
    expect(states).toEqual(['open', 'closed', 'connecting', 'closed', 'connecting', 'open']);
  });

  it('resets the backoff after a successful open', () => {
    const { sockets, last } = setup();
    last().drop();
    vi.advanceTimersByTime(250);
    last().drop();
    vi.advanceTimersByTime(500);
    last().onopen?.();
    last().drop();
    vi.advanceTimersByTime(250);
    expect(sockets).toHaveLength(4);
  });

  it('delivers events to subscribers across reconnects and stops after unsubscribe', () => {
    const { t, last } = setup();
    const got: unknown[] = [];
    const off = t.on('hosts.changed', (p) => got.push(p));
    last().onopen?.();
    last().serverSends({ type: 'event', event: 'hosts.changed', payload: { n: 1 } });
    last().serverSends({ type: 'event', event: 'other', payload: { n: 9 } });
    last().drop();
    vi.advanceTimersByTime(250);
    last().onopen?.();
    last().serverSends({ type: 'event', event: 'hosts.changed', payload: { n: 2 } });
    off();
    last().serverSends({ type: 'event', event: 'hosts.changed', payload: { n: 3 } });
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('drops frames that are not JSON or not frames, with a warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { t, last } = setup();
    const got: unknown[] = [];
    t.on('hosts.changed', (p) => got.push(p));
    last().onopen?.();
    last().onmessage?.({ data: 'not json' });
    last().serverSends({ type: 'mystery' });
    expect(got).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it('stops reconnecting once closed', async () => {
    const { t, sockets, last } = setup();
    last().onopen?.();
    const p = t.invoke('app.info', {});
    t.close();
    await expect(p).rejects.toMatchObject({ code: 'disconnected' });
    expect(last().closed).toBe(true);
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(1);
  });
});
