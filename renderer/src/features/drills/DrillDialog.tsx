import { useRef, useState } from 'react';
import type { Drill } from '../../../../shared/domain';
import { describeError } from '../../client';
import { formatDuration } from '../../ui/format';
import { navigate } from '../../ui/react-hooks';
import { useModalDialog } from '../../ui/modal-dialog';
import { useDeck } from '../../store';

/** The refusal main gives when a loop phase on the drill's host is running. */
export const RUNNING_PHASE_REFUSAL = 'is running a loop phase';

/**
 * Start a drill: choose its arguments, type its name to confirm, and, when main refuses because a
 * loop phase is running on the host, confirm again explicitly before overriding.
 */
export function DrillDialog({ drill, onClose }: { drill: Drill; onClose: () => void }) {
  const runDrill = useDeck((s) => s.runDrill);
  const ref = useRef<HTMLDialogElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const argNames = Object.keys(drill.args);
  const [args, setArgs] = useState<Record<string, string>>(() =>
    Object.fromEntries(argNames.map((a) => [a, drill.args[a]?.[0] ?? ''])),
  );
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [phaseRunning, setPhaseRunning] = useState(false);
  const [override, setOverride] = useState(false);

  const { onCancel, onKeyDown } = useModalDialog(ref, () => (argNames.length ? ref.current?.querySelector<HTMLElement>('select') : inputRef.current), onClose, busy);
  const confirmed = confirm === drill.name;
  const canRun = confirmed && !busy && (!phaseRunning || override);

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const runId = await runDrill({ name: drill.name, args, confirm, overrideRunningPhase: phaseRunning && override });
      onClose();
      navigate({ view: 'drills', runId });
    } catch (err) {
      const message = describeError(err);
      if (message.includes(RUNNING_PHASE_REFUSAL)) setPhaseRunning(true);
      setError(message);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog drill-dialog" aria-labelledby="drill-title" data-testid="drill-dialog" onCancel={onCancel} onKeyDown={onKeyDown}>
      <h2 id="drill-title">Run drill {drill.name}</h2>
      <form
        className="dialog-body"
        onSubmit={(e) => {
          e.preventDefault();
          if (canRun) void start();
        }}
      >
        <p className="muted small">
          On <strong>{drill.host}</strong> · times out after {formatDuration(drill.timeoutMs)}. The run is recorded in the audit
          trail with your user name.
        </p>
        {argNames.length ? (
          <div className="drill-args">
            {argNames.map((a) => (
              <label key={a} className="drill-arg">
                <span className="mono">{a}</span>
                <select
                  data-testid={`drill-arg-${a}`}
                  value={args[a] ?? ''}
                  disabled={busy}
                  onChange={(e) => setArgs({ ...args, [a]: e.target.value })}
                >
                  {(drill.args[a] ?? []).map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        ) : (
          <p className="muted small">This drill takes no arguments.</p>
        )}
        <label className="drill-confirm">
          <span>
            Type <code>{drill.name}</code> to confirm
          </span>
          <input
            ref={inputRef}
            data-testid="drill-confirm-input"
            value={confirm}
            autoComplete="off"
            spellCheck={false}
            disabled={busy}
            aria-invalid={confirm !== '' && !confirmed}
            onChange={(e) => setConfirm(e.target.value)}
          />
        </label>
        {error ? (
          <p className="callout callout-bad" role="alert" data-testid="drill-error">
            {error}
          </p>
        ) : null}
        {phaseRunning ? (
          <label className="drill-override">
            <input type="checkbox" data-testid="drill-override" checked={override} disabled={busy} onChange={(e) => setOverride(e.target.checked)} />
            Run anyway — I understand a loop phase is running
          </label>
        ) : null}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className={`primary${phaseRunning ? ' danger' : ''}`} data-testid="drill-start" disabled={!canRun}>
            {busy ? 'Starting…' : phaseRunning ? 'Run anyway' : 'Run'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
