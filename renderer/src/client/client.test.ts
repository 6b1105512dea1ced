import { describe, expect, it, vi } from 'vitest';
import type { RpcError, RpcResult } from '../../../shared/contract';
import { snapshot } from '../ui/test-fixtures';
import { clientOver, createClient } from './client';
import { RpcClientError } from './errors';
import type { Transport } from './types';

function fakeTransport(answer: (name: string, input: unknown) => Promise<RpcResult>) {
  const subs = new Map<string, (p: unknown, seq?: number) => void>();
  const conn = new Set<(s: 'connecting' | 'open' | 'closed') => void>();
  const t: Transport = {
    kind: 'bridge',
    invoke: answer,
    on: (e, cb) => {
      subs.set(e, cb);
      return () => subs.delete(e);
    },
    connection: () => 'open',
    onConnection: (cb) => {
      conn.add(cb);
      return () => conn.delete(cb);
    },
    close: () => {},
  };
  return {
    t,
    emit: (e: string, p: unknown, seq?: number) => subs.get(e)?.(p, seq),
    setConnection: (s: 'connecting' | 'open' | 'closed') => conn.forEach((cb) => cb(s)),
  };
}

describe('clientOver', () => {
  it('returns validated output', async () => {
    const { t } = fakeTransport(async () => ({ ok: true, output: snapshot() }));
    const out = await clientOver(t).invoke('state.snapshot', {});
    expect(out.loops.map((l) => l.name)).toEqual(['reliability', 'testing']);
  });

  it('throws RpcClientError with code, message and issues on an error result', async () => {
    const error: RpcError = { code: 'invalid-input', message: 'Invalid input for app.info.', issues: [{ path: 'x', message: 'Unrecognized key' }] };
    const { t } = fakeTransport(async () => ({ ok: false, error }));
    const err = await clientOver(t).invoke('app.info', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcClientError);
    expect(err).toMatchObject({ code: 'invalid-input', message: error.message, issues: error.issues });
  });

  it('rejects output that does not match the contract', async () => {
    const { t } = fakeTransport(async () => ({ ok: true, output: { schema: 2 } }));
    await expect(clientOver(t).invoke('state.snapshot', {})).rejects.toMatchObject({ code: 'invalid-output' });
  });

  it('wraps a transport failure', async () => {
    const { t } = fakeTransport(async () => {
      throw new Error('IPC gone');
    });
    await expect(clientOver(t).invoke('app.info', {})).rejects.toMatchObject({ code: 'transport' });
  });

  it('asks for a resync when an event number is skipped, not for a number seen twice or after a reconnect', () => {
    const { t, emit, setConnection } = fakeTransport(async () => ({ ok: true, output: null }));
    const client = clientOver(t);
    let resyncs = 0;
    client.onResync(() => resyncs++);
    client.on('hosts.changed', () => {});
    client.on('problems.changed', () => {});
    emit('hosts.changed', { hosts: [] }, 1);
    emit('problems.changed', { problems: [] }, 2);
    emit('problems.changed', { problems: [] }, 2);
    expect(resyncs).toBe(0);
    emit('hosts.changed', { hosts: [] }, 4);
    expect(resyncs).toBe(1);
    setConnection('closed');
    setConnection('open');
    emit('hosts.changed', { hosts: [] }, 1);
    emit('hosts.changed', { hosts: [] }, 2);
    expect(resyncs).toBe(1);
  });

  it('delivers valid event payloads and drops invalid ones with a warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { t, emit } = fakeTransport(async () => ({ ok: true, output: null }));
    const got: unknown[] = [];
    clientOver(t).on('problems.changed', (p) => got.push(p.problems.length));
    emit('problems.changed', { problems: [{ source: 'a', line: null, message: 'm' }] });
    emit('problems.changed', { problems: [{ source: 'a' }] });
    expect(got).toEqual([1]);
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });
});

describe('createClient', () => {
  it('uses the preload bridge when present', async () => {
    const bridge = { invoke: vi.fn(async () => ({ ok: true as const, output: { configPath: '/d/c.yaml' } })), on: () => () => {} };
    const c = createClient({ bridge });
    expect(c.transport).toBe('bridge');
    expect(c.connection()).toBe('open');
    await expect(c.invoke('demo.start', {})).resolves.toEqual({ configPath: '/d/c.yaml' });
    expect(bridge.invoke).toHaveBeenCalledWith('demo.start', {});
  });

  it('otherwise opens a WebSocket to the page host with the token', () => {
    const urls: string[] = [];
    const c = createClient({
      bridge: undefined,
      location: { protocol: 'https:', host: 'deck.lan:8443', search: '?token=s3cret' },
      storage: null,
      socket: (url) => {
        urls.push(url);
        return { send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null };
      },
    });
    expect(c.transport).toBe('websocket');
    expect(urls).toEqual(['wss://deck.lan:8443/ws?token=s3cret']);
    c.close();
  });

  it('takes the token out of the address bar once it is remembered, keeping the rest', () => {
    const data: Record<string, string> = {};
    const replaced: unknown[][] = [];
    const c = createClient({
      bridge: undefined,
      location: { protocol: 'http:', host: '127.0.0.1:4173', pathname: '/', search: '?token=s3cret&v=2', hash: '#loops' },
      storage: { getItem: (k) => data[k] ?? null, setItem: (k, v) => void (data[k] = v) },
      history: { state: { kept: true }, replaceState: (...args: unknown[]) => void replaced.push(args) },
      socket: () => ({ send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null }),
    });
    expect(replaced).toEqual([[{ kept: true }, '', '/?v=2#loops']]);
    c.close();
  });

  it('leaves the token in the URL when it could not be remembered', () => {
    const replaced: unknown[] = [];
    const c = createClient({
      bridge: undefined,
      location: { protocol: 'http:', host: 'h', pathname: '/', search: '?token=t', hash: '' },
      storage: null,
      history: { state: null, replaceState: (...args: unknown[]) => void replaced.push(args) },
      socket: () => ({ send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null }),
    });
    expect(replaced).toEqual([]);
    c.close();
  });
});
