import { describe, expect, it } from 'vitest';
import { IPC_EVENT_CHANNEL, IPC_INVOKE_CHANNEL, type CommandOutput } from '../../shared/contract';
import { createIpcBridge, type IpcRendererListener } from '../../shared/ipc-bridge';
import { emptySnapshot } from '../../shared/domain';
import { fakeHandlers } from '../../testing/fake-handlers';
import { createIpcServer, type IpcInvokeListener } from './ipc-transport';
import { createInMemoryIpcPair, IN_MEMORY_RENDERER_URL } from '../../testing/in-memory-ipc';

const snapshot: CommandOutput<'state.snapshot'> = emptySnapshot('2025-01-01T06:00:00.000Z');


function nextPayload(bridge: { on(event: string, cb: (p: unknown) => void): () => void }, event: string): Promise<unknown> {
  return new Promise((resolve) => {
    const off = bridge.on(event, (p) => {
      off();
      resolve(p);
    });
  });
}

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('in-memory IPC pair', () => {
  it('round-trips a command through dispatch', async () => {
    const { bridge } = createInMemoryIpcPair(fakeHandlers());
    await expect(bridge.invoke('state.snapshot', {})).resolves.toEqual({ ok: true, output: snapshot });
    const info = await bridge.invoke('app.info', undefined);
    expect(info).toMatchObject({ ok: true, output: { shell: 'electron', version: '0.0.0-test' } });
  });

  it('copies values across like Electron IPC does', async () => {
    const shared = { ...snapshot };
    const { bridge } = createInMemoryIpcPair(fakeHandlers({ 'state.snapshot': () => shared }));
    const result = await bridge.invoke('state.snapshot', {});
    expect(result.ok && result.output).not.toBe(shared);
    expect(result).toEqual({ ok: true, output: shared });
  });

  it('answers invalid input with invalid-input and the issues', async () => {
    const { bridge } = createInMemoryIpcPair(fakeHandlers());
    const result = await bridge.invoke('app.info', { extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid-input');
    expect(result.error.issues?.length).toBeGreaterThan(0);
    expect(result.error.issues?.[0]).toEqual({ path: expect.any(String), message: expect.any(String) });
  });

  it('answers an unknown command with unknown-command', async () => {
    const { bridge } = createInMemoryIpcPair(fakeHandlers());
    const result = await bridge.invoke('nope.never', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'unknown-command' } });
  });

  it('turns a throwing handler into handler-failed', async () => {
    const { bridge } = createInMemoryIpcPair(
      fakeHandlers({
        'demo.start': () => {
          throw new Error('no demo data');
        },
      }),
    );
    const result = await bridge.invoke('demo.start', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'handler-failed', message: expect.stringContaining('no demo data') } });
  });

  it('refuses a sender that is not the app renderer, without running the handler', async () => {
    let ran = false;
    const handlers = fakeHandlers({
      'demo.start': () => {
        ran = true;
        return { configPath: '/x' };
      },
    });
    const { bridge } = createInMemoryIpcPair(handlers, { senderUrl: 'https://evil.example/' });
    const result = await bridge.invoke('demo.start', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'unauthorized', message: expect.stringContaining('https://evil.example/') } });
    expect(ran).toBe(false);
  });

  it('delivers events to on() subscribers of that event only', async () => {
    const { bridge, publish } = createInMemoryIpcPair(fakeHandlers());
    const seen: unknown[] = [];
    const other: unknown[] = [];
    bridge.on('problems.changed', (p) => seen.push(p));
    bridge.on('hosts.changed', (p) => other.push(p));
    publish('problems.changed', { problems: [] });
    publish('problems.changed', { problems: [] });
    await flush();
    expect(seen).toEqual([{ problems: [] }, { problems: [] }]);
    expect(other).toEqual([]);
    const next = nextPayload(bridge, 'hosts.changed');
    publish('hosts.changed', { hosts: [] });
    await expect(next).resolves.toEqual({ hosts: [] });
  });

  it('stops delivering after unsubscribe, and unsubscribe is idempotent', async () => {
    const { bridge, publish } = createInMemoryIpcPair(fakeHandlers());
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = bridge.on('config.changed', (p) => a.push(p));
    bridge.on('config.changed', (p) => b.push(p));
    const payload = { config: { state: 'missing', path: '/c.yaml' }, demo: false };
    publish('config.changed', payload);
    await flush();
    offA();
    offA();
    publish('config.changed', payload);
    await flush();
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
  });

  it('refuses to publish a payload that could not cross IPC', () => {
    const { publish } = createInMemoryIpcPair(fakeHandlers());
    expect(() => publish('loop.changed', { loop: () => 1 })).toThrow();
  });

  it('reports a closed channel as a typed failure', async () => {
    const { bridge, close } = createInMemoryIpcPair(fakeHandlers());
    close();
    const result = await bridge.invoke('app.info', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'handler-failed' } });
  });
});

describe('createIpcServer', () => {
  it('registers one handler on the contract channel and refuses a destroyed frame', async () => {
    const registered = new Map<string, IpcInvokeListener>();
    createIpcServer({
      session: { handlers: fakeHandlers(), subscribe: () => () => undefined },
      ipcMain: { handle: (c, l) => void registered.set(c, l), removeHandler: (c) => void registered.delete(c) },
      isTrustedSender: () => true,
      send: () => undefined,
    });
    expect([...registered.keys()]).toEqual([IPC_INVOKE_CHANNEL]);
    const listener = registered.get(IPC_INVOKE_CHANNEL);
    await expect(listener?.({ senderFrame: null }, 'app.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    await expect(listener?.({ senderFrame: { url: IN_MEMORY_RENDERER_URL } }, 'app.info', {})).resolves.toMatchObject({ ok: true });
  });

  it('sends events as {event, payload, seq} on the event channel, survives a failing send, and leaves a gap for it', () => {
    const sent: unknown[] = [];
    const errors: string[] = [];
    let fail = false;
    const server = createIpcServer({
      session: { handlers: fakeHandlers(), subscribe: () => () => undefined },
      ipcMain: { handle: () => undefined, removeHandler: () => undefined },
      isTrustedSender: () => true,
      send: (channel, frame) => {
        if (fail) throw new Error('Object has been destroyed');
        sent.push([channel, frame]);
      },
      onSendError: (_err, event) => errors.push(event),
    });
    server.publish('hosts.changed', { hosts: [] });
    fail = true;
    expect(() => server.publish('hosts.changed', { hosts: [] })).not.toThrow();
    fail = false;
    server.publish('hosts.changed', { hosts: [] });
    expect(sent).toEqual([
      [IPC_EVENT_CHANNEL, { event: 'hosts.changed', payload: { hosts: [] }, seq: 1 }],
      [IPC_EVENT_CHANNEL, { event: 'hosts.changed', payload: { hosts: [] }, seq: 3 }],
    ]);
    expect(errors).toEqual(['hosts.changed']);
  });
});

describe('createIpcBridge', () => {
  it('uses the contract channels and never passes the Electron event to callbacks', async () => {
    const calls: unknown[][] = [];
    const listeners = new Map<string, IpcRendererListener>();
    const bridge = createIpcBridge({
      invoke: async (...args) => {
        calls.push(args);
        return { ok: true, output: null };
      },
      on: (channel, l) => void listeners.set(channel, l),
      removeListener: (channel) => void listeners.delete(channel),
    });
    await bridge.invoke('app.info', { a: 1 });
    expect(calls).toEqual([[IPC_INVOKE_CHANNEL, 'app.info', { a: 1 }]]);

    const got: unknown[][] = [];
    const off = bridge.on('hosts.changed', (...args: unknown[]) => got.push(args));
    expect([...listeners.keys()]).toEqual([IPC_EVENT_CHANNEL]);
    listeners.get(IPC_EVENT_CHANNEL)?.({ sender: 'ipcRenderer' }, { event: 'hosts.changed', payload: { hosts: [] }, seq: 7 });
    listeners.get(IPC_EVENT_CHANNEL)?.({ sender: 'ipcRenderer' }, 'garbage');
    expect(got).toEqual([[{ hosts: [] }, 7]]);
    off();
    expect(listeners.size).toBe(0);
  });

  it('keeps delivering to other subscribers when one throws, and surfaces the error', async () => {
    let listener: IpcRendererListener | undefined;
    const bridge = createIpcBridge({ invoke: async () => null, on: (_c, l) => void (listener = l), removeListener: () => undefined });
    const got: unknown[] = [];
    const surfaced: unknown[] = [];
    const onUnhandled = (err: unknown): void => void surfaced.push(err);
    const vitestListeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandled);
    try {
      bridge.on('x', () => {
        throw new Error('boom');
      });
      bridge.on('x', (p) => got.push(p));
      listener?.({}, { event: 'x', payload: 1 });
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      process.off('unhandledRejection', onUnhandled);
      for (const l of vitestListeners) process.on('unhandledRejection', l);
    }
    expect(got).toEqual([1]);
    expect(surfaced).toEqual([new Error('boom')]);
  });
});
