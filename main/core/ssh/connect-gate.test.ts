import { describe, expect, it, vi } from 'vitest';
import { ConnectGate } from './connect-gate';

describe('ConnectGate', () => {
  it('lets `limit` handshakes in at once and the next one in as one ends', async () => {
    const gate = new ConnectGate(2, 60_000);
    const first = await gate.enter();
    const second = await gate.enter();
    let third = false;
    const waiting = gate.enter().then((leave) => {
      third = true;
      return leave;
    });
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    first();
    first(); // a second call gives back nothing more
    const leave = await waiting;
    expect(third).toBe(true);
    expect(gate.inUse).toBe(2);
    second();
    leave();
    expect(gate.inUse).toBe(0);
  });

  it('takes a turn back after holdMs from a handshake that never ends', async () => {
    // The clock is the test's: `holdMs` is the subject, and a busy machine must not move it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const gate = new ConnectGate(1, 100);
      const hung = await gate.enter();
      const next: { leave?: () => void } = {};
      void gate.enter().then((leave) => (next.leave = leave));
      await vi.advanceTimersByTimeAsync(99);
      expect(next.leave).toBeUndefined(); // the turn is still the hung handshake's
      await vi.advanceTimersByTimeAsync(1);
      expect(next.leave).toBeDefined();
      hung(); // ending late gives back nothing that is not its own
      expect(gate.inUse).toBe(1);
      next.leave?.();
      expect(gate.inUse).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
