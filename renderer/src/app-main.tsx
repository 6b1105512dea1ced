// Must stay the first import: it configures zod before any schema is built.
import './zod-setup';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { clientOver, reportRendererErrors, type Transport } from './client';
import type { Prefetch } from './client/prefetch';
import { App } from './components/App';
import { bindDeckStore, createDeckStore, DeckContext } from './store';

/**
 * The console proper: zod, the contract, the store, React and the views. The entry (main.tsx)
 * imports it once the connection it opened is up, and hands over that connection and the
 * answers it asked for ahead (checked here like any other).
 */
export function startApp(transport: Transport, prefetch: Prefetch | undefined, root: HTMLElement): void {
  const client = clientOver(transport, prefetch);
  // Uncaught errors and unhandled rejections go to main's log file (logs/loopdeck.log in the data folder).
  reportRendererErrors(client);
  const store = createDeckStore(client);
  bindDeckStore(store, client);
  createRoot(root).render(
    <StrictMode>
      <DeckContext.Provider value={store}>
        <App />
      </DeckContext.Provider>
    </StrictMode>,
  );
}
