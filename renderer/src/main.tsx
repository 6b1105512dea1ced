// Must stay the first import: it configures zod before any schema is built.
import './zod-setup';
// The early socket's script, run on its own from index.html before this bundle (vite.config.ts);
// imported here too so that it is one self-contained chunk both entries share (it runs once).
import './early';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient, reportRendererErrors } from './client';
import { App } from './app/App';
import { applyStoredTheme } from './ui/theme';
import { bindDeckStore, createDeckStore, DeckContext } from './store';
import './styles.css';
import './views.css';
import './ops.css';
// Last: the phone's one-column layout overrides the rest at 640 px and narrower.
import './phone.css';

// Before the first render, so the console opens in the operator's theme.
applyStoredTheme();
const client = createClient();
// Uncaught errors and unhandled rejections go to main's log file (logs/loopdeck.log in the data folder).
reportRendererErrors(client);
const store = createDeckStore(client);
bindDeckStore(store, client);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <DeckContext.Provider value={store}>
      <App />
    </DeckContext.Provider>
  </StrictMode>,
);
