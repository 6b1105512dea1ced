import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { DeckState, DeckStore } from './deck-store';

/** Carries the store to components; `main.tsx` provides it. */
export const DeckContext = createContext<DeckStore | null>(null);

/** Select from the store. Return stable references (fields, not new arrays) to avoid re-renders. */
export function useDeck<T>(selector: (state: DeckState) => T): T {
  const store = useContext(DeckContext);
  if (!store) throw new Error('useDeck needs a DeckContext provider (see renderer/src/main.tsx).');
  return useStore(store, selector);
}
