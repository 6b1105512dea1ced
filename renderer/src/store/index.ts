export { createDeckStore, bindDeckStore, requestError, type DeckRequest, type DeckState, type DeckStore } from './deck-store';
export { DeckContext, useDeck, useMay, useRoleNeeded } from './hooks';
export { selectCaller, selectMay, selectRoleNeeded, showsIdentity } from './roles';
export { emptyDeckData, ledgersHeld, reduceEvent, summaryShown, withLedgers, withLoop, withSnapshot, withSummary, transcriptKey, type AppInfo, type DeckData, type DeckStage, type EventEffect } from './reducers';
export {
  selectBacklogItem,
  selectFinding,
  selectFindingFacets,
  selectLastReviewedAt,
  selectOpenFindingCount,
  selectSearchKeys,
  searchKeysOf,
} from './selectors';
