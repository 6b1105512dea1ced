import { describe, expect, it } from 'vitest';
import { isCycleFolder } from './cycle-layout';

describe('isCycleFolder', () => {
  it.each(['2026-08-23', '2028-02-29', '2026-12-31', '2026-01-01'])('takes the real date %s', (name) => {
    expect(isCycleFolder(name)).toBe(true);
  });

  it.each(['2026-02-30', '2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00', '2026-8-23', '2026-08-23.bak', 'latest'])(
    'refuses %s, which is no date',
    (name) => {
      expect(isCycleFolder(name)).toBe(false);
    },
  );
});
