import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { CommandName } from '../../../shared/contract';
import type { Role } from '../../../shared/roles';
import type { DeckState, DeckStore } from './deck-store';
import { selectMay, selectRoleNeeded } from './roles';

/** Carries the store to components; `main.tsx` provides it. */
export const DeckContext = createContext<DeckStore | null>(null);

/** Select from the store. Return stable references (fields, not new arrays) to avoid re-renders. */
export function useDeck<T>(selector: (state: DeckState) => T): T {
  const store = useContext(DeckContext);
  if (!store) throw new Error('useDeck needs a DeckContext provider (see renderer/src/main.tsx).');
  return useStore(store, selector);
}

/** Whether the caller's role allows `command` (false until `app.info` answered): the views hide what it does not. */
export function useMay(command: CommandName): boolean {
  return useDeck((s) => selectMay(s, command));
}

/** The role `command` needs when the caller lacks it, else null (also before the caller is known). */
export function useRoleNeeded(command: CommandName): Role | null {
  return useDeck((s) => selectRoleNeeded(s, command));
}
