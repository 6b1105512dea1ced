import { describe, expect, it } from 'vitest';
import { pinnedAt, pinnedClock } from './clock';

describe('pinnedClock', () => {
  it('always answers the pinned time, and is known as pinned', () => {
    const at = new Date('2026-11-29T12:00:00Z');
    const clock = pinnedClock(at);
    at.setTime(0);
    expect(clock().toISOString()).toBe('2026-11-29T12:00:00.000Z');
    expect(clock()).toBe(clock());
    expect(pinnedAt(clock)?.toISOString()).toBe('2026-11-29T12:00:00.000Z');
  });

  it('no other clock is pinned, even one that answers a fixed time', () => {
    const fixed = new Date('2026-11-29T12:00:00Z');
    expect(pinnedAt(() => fixed)).toBeNull();
    expect(pinnedAt(() => new Date())).toBeNull();
    expect(pinnedAt(undefined)).toBeNull();
  });
});
