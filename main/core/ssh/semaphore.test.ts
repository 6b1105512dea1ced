import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore';

describe('Semaphore', () => {
  it('never lets more than its limit hold at once, and serves waiters in order', async () => {
    const sem = new Semaphore(8);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const release = await sem.acquire();
        active++;
        peak = Math.max(peak, active);
        order.push(i);
        await new Promise((r) => setTimeout(r, 2));
        active--;
        release();
        release(); // a double release must not free a second slot
      }),
    );
    expect(peak).toBe(8);
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(sem.inUse).toBe(0);
  });
});
