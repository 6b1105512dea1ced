import { Suspense, useEffect, useState } from 'react';
import { navigate, useRoute } from '../ui/react-hooks';
import { openFinding } from '../ui/route';
import type { PhaseKey } from '../features/loops/selection';
import { useShortcuts } from './shortcuts';
import { renderView, VIEW_LABEL } from './views';
import { requestError, selectMay, summaryShown, useDeck } from '../store';
import { ConfigError } from './ConfigError';
import { FindingDetail } from '../features/findings/FindingDetail';
import { FirstRun } from './FirstRun';
import { Header } from './Header';
import { ViewBoundary, ViewLoading, warmViews } from './view-loading';
import { PhaseDetail } from '../features/loops/PhaseDetail';
import { ProblemsList } from './ProblemsList';
import { ShortcutsDialog } from './ShortcutsDialog';
import { Sidebar } from './Sidebar';
import { StartupState } from './StartupState';
import { Toasts } from './Toasts';

/** The console shell: header, left nav with hosts, the current view and its detail panel. */
export function App() {
  const info = useDeck((s) => s.info);
  const loaded = useDeck((s) => summaryShown(s.stage));
  const loadError = useDeck((s) => requestError(s.request));
  const load = useDeck((s) => s.load);
  const route = useRoute();
  const [selection, setSelection] = useState<PhaseKey | null>(null);
  const phaseOpen = route.view === 'loops' && selection !== null;
  const finding = openFinding(route);
  const [helpOpen, setHelpOpen] = useState(false);
  // The `a` shortcut acknowledges: not for a role that may not (nor before the role is known).
  useShortcuts(() => setHelpOpen(true), (command) => selectMay({ info }, command));

  useEffect(() => {
    document.title = `${VIEW_LABEL[route.view]} · Loopdeck`;
  }, [route.view]);

  // Once the first view has its data (the Review, usually painted by now), fetch the other views' chunks in idle time.
  useEffect(() => (loaded ? warmViews() : undefined), [loaded]);

  useEffect(() => {
    if (!phaseOpen && finding === null) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (finding !== null) navigate({ view: 'findings', loop: null, id: null });
      else setSelection(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [phaseOpen, finding]);

  const config = info?.config;
  let body;
  if (!info || !loaded) body = <StartupState />;
  else if (config?.state === 'missing') body = <FirstRun path={config.path} />;
  else
    body = (
      <>
        {config?.state === 'invalid' ? <ConfigError path={config.path} message={config.message} /> : null}
        <ProblemsList />
        <ViewBoundary key={route.view} label={VIEW_LABEL[route.view]}>
          <Suspense fallback={<ViewLoading label={VIEW_LABEL[route.view]} />}>{renderView(route, { selection, onSelect: setSelection })}</Suspense>
        </ViewBoundary>
      </>
    );

  const detail = phaseOpen && selection ? (
    <PhaseDetail selection={selection} onClose={() => setSelection(null)} />
  ) : finding !== null && loaded ? (
    <FindingDetail finding={finding} onClose={() => navigate({ view: 'findings', loop: null, id: null })} />
  ) : null;

  return (
    <div className="shell">
      <Header />
      <div className={`main-area${detail ? ' with-detail' : ''}`}>
        <Sidebar view={route.view} />
        <main className={`content view-${route.view}`} id="content" aria-label={VIEW_LABEL[route.view]} tabIndex={0}>
          {loadError && info && loaded ? (
            <div className="callout callout-bad banner" role="alert">
              Could not refresh the state: {loadError}{' '}
              <button type="button" className="link" onClick={() => void load()}>
                Try again
              </button>
            </div>
          ) : null}
          {body}
        </main>
        {detail}
      </div>
      <Toasts />
      {helpOpen ? <ShortcutsDialog onClose={() => setHelpOpen(false)} /> : null}
    </div>
  );
}
