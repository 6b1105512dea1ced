import { useRef } from 'react';
import { useModalDialog } from '../ui/modal-dialog';
import { selectMay, useDeck } from '../store';
import { GO_KEYS, KEY_HELP } from './shortcuts';
import '../shortcuts.css';

function Keys({ keys }: { keys: string }) {
  return (
    <>
      {keys.split(' ').map((k, i) => (k === '/' && i > 0 ? ' / ' : k === 'then' ? ' then ' : <kbd key={i}>{k}</kbd>))}
    </>
  );
}

/** The `?` list of keyboard shortcuts: a modal that takes focus, gives it back on close, and closes on Esc. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const { onCancel, onKeyDown } = useModalDialog(ref, () => closeRef.current, onClose, false);
  const info = useDeck((s) => s.info);
  // A key that would send what the role may not does nothing, so it is not listed.
  const keys = KEY_HELP.filter((h) => h.command === undefined || selectMay({ info }, h.command));
  return (
    <dialog
      ref={ref}
      className="dialog shortcuts-dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-dialog"
      onCancel={onCancel}
      onKeyDown={onKeyDown}
    >
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p className="muted small">None of them fire while you type in a field or hold Ctrl, Alt or ⌘.</p>
      <h3>Go to</h3>
      <dl className="shortcut-list">
        {GO_KEYS.map((g) => (
          <div key={g.key}>
            <dt>
              <Keys keys={`g then ${g.key}`} />
            </dt>
            <dd>{g.label}</dd>
          </div>
        ))}
      </dl>
      <h3>In a view</h3>
      <dl className="shortcut-list">
        {keys.map((h) => (
          <div key={h.keys}>
            <dt>
              <Keys keys={h.keys} />
            </dt>
            <dd>{h.what}</dd>
          </div>
        ))}
      </dl>
      <div className="dialog-actions">
        <button type="button" ref={closeRef} data-testid="shortcuts-close" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
