import { useEffect, useRef, useState } from 'react';
import { describeError } from '../client';
import { followNotice, showDesktopNotification } from '../features/notices/desktop-notify';
import { formatClock } from '../ui/format';
import { useDeck, useMay } from '../store';
import type { Toast } from '../store/ops';
import { PriorityBadge } from '../features/notices/NoticeParts';

/** How long a toast stays, except an emergency (which stays until acknowledged or closed). */
export const TOAST_MS = 8_000;

function ToastCard({ toast }: { toast: Toast }) {
  const dismiss = useDeck((s) => s.dismissToast);
  const ack = useDeck((s) => s.ackNotice);
  const mayAck = useMay('notices.ack');
  const [error, setError] = useState<string | null>(null);
  const { notice } = toast;
  const sticky = notice.priority === 2;

  useEffect(() => {
    if (sticky) return;
    const id = window.setTimeout(() => dismiss(notice.key), TOAST_MS);
    return () => window.clearTimeout(id);
  }, [sticky, dismiss, notice.key, toast.seq]);

  return (
    <li className={`toast prio-line-${notice.priority}`} data-testid={`toast-${notice.key}`} data-priority={notice.priority}>
      <button
        type="button"
        className="toast-body"
        title={notice.url ? `Open ${notice.urlTitle ?? notice.url}` : 'Open the notices'}
        onClick={() => {
          followNotice(notice);
          if (!sticky) dismiss(notice.key);
        }}
      >
        <span className="toast-head">
          <PriorityBadge priority={notice.priority} pulsing={sticky} />
          <strong>{notice.title}</strong>
          {toast.repeat ? <span className="muted small">again</span> : null}
          <span className="muted small toast-time">{formatClock(notice.createdAt)}</span>
        </span>
        <span className="toast-message">{notice.message}</span>
      </button>
      <button type="button" className="toast-close" aria-label={`Close ${notice.title}`} data-testid={`toast-close-${notice.key}`} onClick={() => dismiss(notice.key)}>
        ×
      </button>
      {sticky ? (
        <div className="toast-foot">
          {mayAck ? (
            <button
              type="button"
              className="small-button"
              data-testid={`toast-ack-${notice.key}`}
              onClick={() => {
                setError(null);
                ack(notice.key).catch((err: unknown) => setError(describeError(err)));
              }}
            >
              Acknowledge
            </button>
          ) : null}
          <span className="muted small">{mayAck ? 'stays until acknowledged or closed' : 'stays until closed'}</span>
          {error ? (
            <span className="error-text small" role="alert">
              {error}
            </span>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

/** Raised notices as toasts (top right, stacked), and as desktop notifications in a browser when allowed. */
export function Toasts() {
  const toasts = useDeck((s) => s.toasts);
  const seen = useRef(0);

  useEffect(() => {
    for (const t of toasts) {
      if (t.seq <= seen.current) continue;
      showDesktopNotification(t.notice, followNotice);
    }
    seen.current = toasts.reduce((m, t) => Math.max(m, t.seq), seen.current);
  }, [toasts]);

  if (toasts.length === 0) return null;
  return (
    <ol className="toasts" aria-live="polite" aria-label="Notifications">
      {[...toasts].reverse().map((t) => (
        <ToastCard key={t.notice.key} toast={t} />
      ))}
    </ol>
  );
}
