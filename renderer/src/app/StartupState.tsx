import { useEffect, useState } from 'react';
import { requestError, useDeck } from '../store';

/** Before the first answer: connecting, unreachable, or a failed load with a retry. */
export function StartupState() {
  const connection = useDeck((s) => s.connection);
  const loadError = useDeck((s) => requestError(s.request));
  const load = useDeck((s) => s.load);
  // Latch the first failure so the hint does not flicker with each reconnect attempt.
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (connection === 'closed') setFailed(true);
  }, [connection]);
  if (loadError) {
    return (
      <div className="empty card" role="alert">
        <h2>Loopdeck did not answer</h2>
        <p className="error-text">{loadError}</p>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </div>
    );
  }
  if (connection !== 'open' && failed) {
    return (
      <div className="empty card" role="alert">
        <h2>Cannot reach Loopdeck</h2>
        <p>
          Retrying. Check that <code>loopdeck serve</code> is still running. If you opened this page by hand, use the
          address it printed: it carries the access token (<code>?token=…</code>).
        </p>
      </div>
    );
  }
  return (
    <div className="empty card">
      <p className="muted">Connecting to Loopdeck…</p>
    </div>
  );
}
