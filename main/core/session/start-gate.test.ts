import { afterEach, describe, expect, it } from 'vitest';
import { createRunnerFixture } from '../../../testing/runner-fixture';
import { createSession, type Session } from './session';
import { StartGate } from './start-gate';
import { TEST_CALLER } from '../../../testing/callers';

describe('the start gate', () => {
  let session: Session | null = null;
  afterEach(async () => {
    await session?.close();
    session = null;
  });

  it('holds a command sent before the session opened until it has opened its config and store, opening it', async () => {
    const fx = createRunnerFixture();
    session = createSession({ configPath: fx.configPath, dataDir: fx.dataDir, shell: 'serve', pollMs: 60_000 });
    let opened = false;
    void session.started.then(() => (opened = true));
    // Nothing has opened it: the command does, and is answered from the loaded config.
    const info = await session.handlers['app.info']({}, TEST_CALLER);
    expect(info.config.state).toBe('loaded');
    expect(opened).toBe(true);
  });

  it('opens once, whoever asks first, and answers every waiting command', async () => {
    let opens = 0;
    let release: () => void = () => undefined;
    const gate = new StartGate(() => {
      opens += 1;
      return new Promise<void>((ok) => (release = ok));
    });
    const handlers = gate.gate({ 'app.info': () => ({ version: 'x' }) } as never) as unknown as Record<string, (i: unknown) => Promise<unknown>>;
    const first = handlers['app.info']?.({});
    const second = handlers['app.info']?.({});
    void gate.open();
    expect(opens).toBe(1);
    release();
    await expect(first).resolves.toEqual({ version: 'x' });
    await expect(second).resolves.toEqual({ version: 'x' });
    await expect(gate.opened).resolves.toBeUndefined();
  });

  it('fails the waiting commands with the opening failure', async () => {
    const gate = new StartGate(() => Promise.reject(new Error('store could not be opened')));
    const handlers = gate.gate({ 'app.info': () => ({}) } as never) as unknown as Record<string, (i: unknown) => Promise<unknown>>;
    await expect(handlers['app.info']?.({})).rejects.toThrow('store could not be opened');
    await expect(gate.opened).rejects.toThrow('store could not be opened');
  });
});
