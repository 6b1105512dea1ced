import { describe, expect, it, vi } from 'vitest';
import type { EventName, RpcResult } from '../../../shared/contract';
import type { ConnectionState, Transport } from '../client';
import { clientOver } from '../client';
import { cycle, snapshot } from '../lib/test-fixtures';
import { bindDeckStore, createDeckStore } from './deck-store';

type Answer = (name: string, input?: unknown) => Promise<RpcResult>;

function harness(answer: Answer, initial: ConnectionState = 'open') {
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
  const store = createDeckStore(client, () => '2026-08-24T07:05:00.000Z');
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
});

const standard: Answer = async (name) =>
  name === 'app.info' ? { ok: true, output: infoOutput() } : { ok: true, output: snapshot() };

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('deck store', () => {
  it('loads info and the snapshot when the connection is open', async () => {
    const h = harness(standard);
    await flush();
    const s = h.store.getState();
    expect(s.info?.version).toBe('0.1.0');
    expect(s.loopNames).toEqual(['reliability', 'testing']);
    expect(s.loaded).toBe(true);
    expect(s.connection).toBe('open');
  });

  it('waits for the connection, and re-fetches after every reconnect', async () => {
    const h = harness(standard, 'connecting');
    await flush();
    expect(h.calls).toEqual([]);
    h.setConnection('open');
    await flush();
    expect(h.calls.sort()).toEqual(['app.info', 'state.snapshot']);
    h.setConnection('closed');
    expect(h.store.getState().connection).toBe('closed');
    h.setConnection('connecting');
    h.setConnection('open');
    await flush();
    expect(h.calls).toHaveLength(4);
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
    expect(h.calls.length).toBe(before + 2);
  });

  it('replays events that arrive while a snapshot is in flight', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const h = harness(async (name) => {
      if (name === 'app.info') return { ok: true, output: infoOutput() };
      await gate;
      return { ok: true, output: snapshot() };
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
      return fail ? { ok: false, error: { code: 'handler-failed', message: 'state.snapshot failed: disk I/O' } } : { ok: true, output: snapshot() };
    });
    await flush();
    expect(h.store.getState().loadError).toContain('disk I/O');
    fail = false;
    await h.store.getState().load();
    expect(h.store.getState().loadError).toBeNull();
    expect(h.store.getState().loaded).toBe(true);
  });

  it('tolerates a failing snapshot when there is no config yet', async () => {
    const h = harness(async (name) =>
      name === 'app.info'
        ? { ok: true, output: infoOutput('missing') }
        : { ok: false, error: { code: 'handler-failed', message: 'no config' } },
    );
    await flush();
    const s = h.store.getState();
    expect(s.loadError).toBeNull();
    expect(s.info?.config.state).toBe('missing');
    expect(s.loaded).toBe(true);
  });

  it('startDemo calls demo.start then reloads', async () => {
    const h = harness(async (name) =>
      name === 'demo.start' ? { ok: true, output: { configPath: '/d/c.yaml' } } : standard(name),
    );
    await flush();
    await h.store.getState().startDemo();
    expect(h.calls.slice(2)).toEqual(['demo.start', 'app.info', 'state.snapshot']);
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
