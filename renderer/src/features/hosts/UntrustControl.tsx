import { useEffect, useRef, useState } from 'react';
import { describeError } from '../../client';
import { useDeck } from '../../store';

/**
 * Forgets the host keys trusted in Loopdeck for a host (`loopdeck untrust HOST`): a button, then an
 * inline confirmation whose Cancel has the focus, so a stray Enter never forgets a key.
 */
export function UntrustControl({ host }: { host: string }) {
  const untrustHost = useDeck((s) => s.untrustHost);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (asking) cancelRef.current?.focus();
  }, [asking]);

  const onConfirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await untrustHost(host);
      setAsking(false);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="host-untrust" data-testid={`untrust-${host}`}>
      {asking ? (
        <div role="group" aria-label={`Forget the key of ${host}`}>
          <p className="host-meta">
            Forget the key trusted in Loopdeck for <strong>{host}</strong>? Loopdeck reconnects and asks you to compare
            and trust its key again (keys in known_hosts are not touched).
          </p>
          <div className="unlock-row">
            <button type="button" ref={cancelRef} className="small-button" onClick={() => setAsking(false)} disabled={busy}>
              Cancel
            </button>
            <button type="button" className="small-button" data-testid={`untrust-confirm-${host}`} onClick={() => void onConfirm()} disabled={busy}>
              {busy ? 'Forgetting…' : 'Forget key'}
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="small-button" title="Forget the host key trusted in Loopdeck for this host" onClick={() => setAsking(true)}>
          Untrust (forget key)…
        </button>
      )}
      {error ? (
        <p className="host-error" role="alert">
          Could not forget the key: {error}
        </p>
      ) : null}
    </div>
  );
}
