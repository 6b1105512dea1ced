import { useState } from 'react';
import { describeError } from '../client';
import { useDeck } from '../store';

const EXAMPLE = `hosts:
  runner:
    local: true

loops:
  reliability:
    host: runner
    runs: /path/to/runs
    phases: [audit, remediate, deliver]
`;

/** Shown when no config file exists: how to write one, or start the demo. */
export function FirstRun({ path }: { path: string }) {
  const startDemo = useDeck((s) => s.startDemo);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onStart = async () => {
    setBusy(true);
    setError(null);
    try {
      await startDemo();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="first-run card" data-testid="first-run">
      <h1>Welcome to Loopdeck</h1>
      <p>
        No config file was found at <code className="path">{path}</code>.
      </p>
      <h2>Point Loopdeck at your loops</h2>
      <p>Create that file with at least one host and one loop. A loop on this machine looks like this:</p>
      <pre className="mono block">{EXAMPLE}</pre>
      <p className="muted">
        Replace <code>/path/to/runs</code> with the folder holding one sub-folder per cycle date. Loopdeck reads the file
        when you save it.
      </p>
      <h2>Or look around first</h2>
      <p>The demo writes a sample config and runs folder, with a few nights of cycles to explore.</p>
      <button type="button" className="primary" data-testid="start-demo" onClick={() => void onStart()} disabled={busy}>
        {busy ? 'Starting the demo…' : 'Start the demo'}
      </button>
      {error ? (
        <p className="callout callout-bad" role="alert">
          Could not start the demo: {error}
        </p>
      ) : null}
    </div>
  );
}
