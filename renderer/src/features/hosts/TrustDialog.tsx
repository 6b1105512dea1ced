import { useRef } from 'react';
import { describeError } from '../../client';
import { HOST_KEY_CHECK_COMMAND } from './hosts';
import { useConfirmAction, useModalDialog } from '../../ui/modal-dialog';
import { useDeck } from '../../store';

/** Props of the trust dialog: the host, and the fingerprint the operator was shown when opening it. */
export interface TrustDialogProps {
  host: string;
  fingerprint: string;
  onClose: () => void;
}

/**
 * Confirms trusting a host key. A modal `<dialog>`: the page behind is inert (so focus stays in
 * it), Esc cancels, and Cancel has the initial focus so Enter never trusts by accident.
 */
export function TrustDialog({ host, fingerprint, onClose }: TrustDialogProps) {
  const trustHost = useDeck((s) => s.trustHost);
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const { busy, error, onConfirm } = useConfirmAction(() => trustHost(host, fingerprint), onClose, describeError);
  const { onCancel, onKeyDown } = useModalDialog(ref, () => cancelRef.current, onClose, busy);

  return (
    <dialog
      ref={ref}
      className="dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby="trust-title"
      aria-describedby="trust-desc"
      data-testid="trust-dialog"
      onCancel={onCancel}
      onKeyDown={onKeyDown}
    >
      <h2 id="trust-title">Trust the host key of {host}?</h2>
      <div id="trust-desc" className="dialog-body">
        <p>
          <strong>{host}</strong> presented this key fingerprint:
        </p>
        <code className="fingerprint fingerprint-big">{fingerprint}</code>
        <p>
          Before trusting it, compare it with what the host itself reports. On <strong>{host}</strong> (at its console, or
          over a connection you already trust), run:
        </p>
        <code className="mono block command">{HOST_KEY_CHECK_COMMAND}</code>
        <p className="muted small">
          The fingerprints must match character for character. If they differ, cancel: something between you and the
          host may be answering in its place.
        </p>
      </div>
      {error ? (
        <p className="callout callout-bad" role="alert">
          Could not trust the key: {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" ref={cancelRef} onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="primary" data-testid="trust-confirm" onClick={() => void onConfirm()} disabled={busy}>
          {busy ? 'Trusting…' : 'Trust this key'}
        </button>
      </div>
    </dialog>
  );
}
