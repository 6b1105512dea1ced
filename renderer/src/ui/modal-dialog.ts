import { useEffect, useState, type KeyboardEvent, type RefObject, type SyntheticEvent } from 'react';

/**
 * Run a `<dialog>` as a modal for the component's lifetime: open it, focus `initialFocus()`, and on
 * unmount close it and give focus back to whatever had it. Returns the handlers for the dialog:
 * Esc cancels (unless `busy`) and stays inside it — it must not also close a panel behind — and
 * Tab cycles among the dialog's own controls.
 */
export function useModalDialog(
  ref: RefObject<HTMLDialogElement | null>,
  initialFocus: () => HTMLElement | null | undefined,
  onClose: () => void,
  busy: boolean,
): { onCancel: (e: SyntheticEvent) => void; onKeyDown: (e: KeyboardEvent) => void } {
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    initialFocus()?.focus();
    return () => {
      if (dialog.open) dialog.close();
      opener?.focus();
    };
    // Opened once: a dialog for another subject is another component instance.
  }, []);

  const onCancel = (e: SyntheticEvent): void => {
    e.preventDefault();
    if (!busy) onClose();
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') e.stopPropagation();
    if (e.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>('button:not([disabled]), a[href], input:not([disabled]), select:not([disabled])')];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return { onCancel, onKeyDown };
}

/**
 * A confirmation's action: `onConfirm` runs it once (busy meanwhile), closes the dialog when it
 * succeeds, and keeps it open with the error said (`describe`) when it fails.
 */
export function useConfirmAction(action: () => Promise<unknown>, onClose: () => void, describe: (err: unknown) => string): { busy: boolean; error: string | null; onConfirm: () => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onConfirm = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      onClose();
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return { busy, error, onConfirm };
}
