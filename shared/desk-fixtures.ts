import type { DeskPr } from './pr-desk';

// Test-only (kept in shared so the shared, main and renderer tests can all import it): a merge desk PR.

/** A desk PR that the console would merge; tests change what they need. */
export function deskPr(over: Partial<DeskPr> = {}): DeskPr {
  return {
    loop: 'reliability',
    repo: 'acme/radon',
    number: 90,
    url: 'https://github.com/acme/radon/pull/90',
    state: 'open',
    title: 'Scanner writes a health row',
    author: 'loop-bot',
    head: 'reliability/2026-12-05',
    headSha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    base: 'main',
    additions: 120,
    deletions: 8,
    changedFiles: 3,
    checks: [{ name: 'suite', state: 'passing', url: null }],
    mergeable: 'clean',
    reviewDecision: 'approved',
    cycle: '2026-12-05',
    ids: ['R-183'],
    openedAt: '2026-12-05T02:00:00Z',
    ageHours: 5,
    stale: false,
    large: false,
    overlaps: [],
    redAfterReady: false,
    next: [],
    merged: null,
    problem: null,
    canWrite: true,
    ...over,
  };
}
