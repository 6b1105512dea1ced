import { useEffect, useState } from 'react';
import type { PhaseKey } from '../lib/selection';
import { useDeck } from '../store';
import { ConfigError } from './ConfigError';
import { FirstRun } from './FirstRun';
import { Header } from './Header';
import { LoopsView } from './LoopsView';
import { PhaseDetail } from './PhaseDetail';
import { ProblemsList } from './ProblemsList';
import { Sidebar } from './Sidebar';
import { StartupState } from './StartupState';

/** The console shell: header, left nav with hosts, the loops view and the phase detail panel. */
export function App() {
  const info = useDeck((s) => s.info);
  const loaded = useDeck((s) => s.loaded);
  const loadError = useDeck((s) => s.loadError);
  const load = useDeck((s) => s.load);
  const [selection, setSelection] = useState<PhaseKey | null>(null);

  useEffect(() => {
    if (!selection) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setSelection(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [selection]);

  const config = info?.config;
  let body;
  if (!info || !loaded) body = <StartupState />;
  else if (config?.state === 'missing') body = <FirstRun path={config.path} />;
  else
    body = (
      <>
        {config?.state === 'invalid' ? <ConfigError path={config.path} message={config.message} /> : null}
        <ProblemsList />
        <LoopsView selection={selection} onSelect={setSelection} />
      </>
    );

  return (
    <div className="shell">
      <Header />
      <div className={`main-area${selection ? ' with-detail' : ''}`}>
        <Sidebar />
        <main className="content" id="loops">
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
        {selection ? <PhaseDetail selection={selection} onClose={() => setSelection(null)} /> : null}
      </div>
    </div>
  );
}
