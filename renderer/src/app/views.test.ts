import { describe, expect, it } from 'vitest';
import { parseRoute } from '../ui/route';
import { GO_KEYS } from './shortcuts';
import { VIEW_LABEL, VIEWS } from './views';

describe('the view table', () => {
  it('lists every view once, each with its own shortcut letter and a hash that parses back to it', () => {
    const names = VIEWS.map((v) => v.view);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(['capacity', 'drills', 'findings', 'ledgers', 'loops', 'notices', 'prs', 'review', 'trends']);
    const keys = VIEWS.map((v) => v.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const v of VIEWS) {
      expect(v.key).toMatch(/^[a-z]$/);
      expect(parseRoute(v.hash).view).toBe(v.view);
      expect(VIEW_LABEL[v.view]).toBe(v.label);
    }
  });

  it('feeds the g shortcuts: same views, same order, same labels', () => {
    expect(GO_KEYS.map((g) => [g.key, g.label, g.hash])).toEqual(VIEWS.map((v) => [v.key, v.label, v.hash]));
  });

  it('names every view, the ones outside the nav too (page titles)', () => {
    expect(VIEW_LABEL.log).toBe('Transcript');
    expect(VIEW_LABEL.hosts).toBe('Hosts');
    expect(VIEWS.map((v) => v.view)).not.toContain('log');
  });

  it('keeps letters the single-key shortcuts do not use', () => {
    for (const taken of ['j', 'k', 'a', 'g']) expect(VIEWS.map((v) => v.key)).not.toContain(taken);
  });
});
