// The entry: it opens the connection and asks for the first load's answers before anything big
// is evaluated, then loads the app (app-main.tsx: zod, the contract, React, the views) while
// the server works on them. Keep this module and its imports free of zod and the contract's
// schemas (e2e/code-split.spec.ts checks the entry chunk for zod).
import { connectionSettled, createTransport } from './client/connect';
import { prefetchFirstLoad } from './client/prefetch';
import { applyStoredTheme } from './lib/theme';
import './styles.css';
import './views.css';
import './ops.css';

/** Longest the entry waits for the socket to open before evaluating the app anyway. */
const OPEN_WAIT_MS = 150;

// Before the first render, so the console opens in the operator's theme.
applyStoredTheme();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
const transport = createTransport();
const prefetch = transport.kind === 'websocket' ? prefetchFirstLoad(transport) : undefined;

void connectionSettled(transport, OPEN_WAIT_MS)
  .then(() => import('./app-main'))
  .then(({ startApp }) => startApp(transport, prefetch, root))
  .catch((err: unknown) => {
    // The app's scripts did not load (a rebuild under an open page, a dropped connection).
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.textContent = `Loopdeck could not load its scripts (${err instanceof Error ? err.message : String(err)}). Reload the page.`;
    root.replaceChildren(p);
  });
