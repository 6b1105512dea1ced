import { describe, expect, it } from 'vitest';
import { parseRoute, routeHash } from '../../ui/route';

describe('capacity route', () => {
  it('parses #/capacity and round-trips it', () => {
    expect(parseRoute('#/capacity')).toEqual({ view: 'capacity' });
    expect(routeHash({ view: 'capacity' })).toBe('#/capacity');
  });
});
