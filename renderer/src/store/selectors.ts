import type { BacklogItem, Finding } from '../../../shared/domain';
import { findingFacets, searchKeys } from '../features/findings/findings';
import type { DeckData } from './reducers';
import type { FindingRef } from '../ui/route';
import { backlogKey } from '../../../shared/deltas';

// Derived data, memoised on the identity of the array it derives from: the arrays are replaced
// whole by their events, so an unchanged array is never derived twice.

function memoOne<A extends object, R>(fn: (a: A) => R): (a: A) => R {
  let last: A | undefined;
  let result: R | undefined;
  return (a) => {
    if (a !== last) {
      result = fn(a);
      last = a;
    }
    return result as R;
  };
}

// Two loops can use the same id: findings and backlog items are looked up by loop and id.
const backlogIndex = memoOne((backlog: readonly BacklogItem[]) => new Map(backlog.map((b) => [backlogKey(b), b])));
/** By loop and id (the first row of that id in the loop's ledgers), and by bare id for old links (the first of any loop). */
const findingIndex = memoOne((findings: readonly Finding[]) => {
  const index = new Map<string, Finding>();
  for (const f of findings) {
    const key = backlogKey(f);
    if (!index.has(key)) index.set(key, f);
    if (!index.has(f.id)) index.set(f.id, f);
  }
  return index;
});
const keysOf = memoOne(searchKeys);
const facetsOf = memoOne(findingFacets);

/** A loop's backlog item by its id. */
export const selectBacklogItem = (s: DeckData, loop: string, id: string): BacklogItem | undefined => backlogIndex(s.backlog).get(backlogKey({ loop, id }));

/** The finding a link names: by loop and id, or by bare id for an old link. */
export const selectFinding = (s: DeckData, ref: FindingRef): Finding | undefined => findingIndex(s.findings).get(ref.loop === null ? ref.id : backlogKey({ loop: ref.loop, id: ref.id }));

/** The lower-cased haystacks of the free-text filter, index for index with `findings`. */
export const selectSearchKeys = (s: DeckData): readonly string[] => keysOf(s.findings);

/** The same haystacks for a findings array, built when a text filter first needs them. */
export const searchKeysOf = (findings: readonly Finding[]): readonly string[] => keysOf(findings);

/** Distinct loops, sections and categories of the findings. */
export const selectFindingFacets = (s: DeckData): { loops: string[]; sections: string[]; categories: string[] } => facetsOf(s.findings);

/** When the operator last reviewed the findings (null: never, so nothing is marked new). */
export const selectLastReviewedAt = (s: DeckData): string | null => s.lastReviewedAt;

const openCount = memoOne((findings: readonly Finding[]) => findings.reduce((n, f) => (f.status === 'open' ? n + 1 : n), 0));

/** How many findings are open. */
export const selectOpenFindingCount = (s: DeckData): number => openCount(s.findings);
