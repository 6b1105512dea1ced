import { describe, expect, it } from 'vitest';
import { backlogItem, finding, snapshot } from '../ui/test-fixtures';
import { emptyDeckData, withSnapshot } from './reducers';
import { selectBacklogById, selectFindingFacets, selectLastReviewedAt, selectOpenFindingCount, selectSearchKeys } from './selectors';

describe('selectors', () => {
  const data = withSnapshot(
    emptyDeckData,
    snapshot({ findings: [finding('R-1'), finding('R-2', { status: 'done' })], backlog: [backlogItem('REL-1', ['R-1'])] }),
  );

  it('derive once per array, and again when the array is replaced', () => {
    const keys = selectSearchKeys(data);
    expect(selectSearchKeys({ ...data, updatedAt: 'later' })).toBe(keys);
    expect(selectSearchKeys({ ...data, findings: [finding('R-3')] })).not.toBe(keys);
    expect(selectFindingFacets(data)).toBe(selectFindingFacets({ ...data }));
  });

  it('index the backlog by id and count open findings', () => {
    expect(selectBacklogById(data).get('REL-1')?.findings).toEqual(['R-1']);
    expect(selectOpenFindingCount(data)).toBe(1);
    expect(selectLastReviewedAt(data)).toBeNull();
  });
});
