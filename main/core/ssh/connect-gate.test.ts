import { describe, expect, it } from 'vitest';
import { until } from '../../../testing/until';
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
    const gate = new ConnectGate(1, 100);
    const hung = await gate.enter();
    const t0 = Date.now();
    const next = await gate.enter();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    hung(); // ending late gives back nothing that is not its own
    await until(() => gate.inUse === 1, 1000, 'the late end to change nothing');
    next();
    expect(gate.inUse).toBe(0);
  });
});
