import { useState } from 'react';
import type { Notice } from '../../../../shared/domain';
import { describeError } from '../../client';
import { formatAge, formatClock, formatDateTime } from '../../ui/format';
import { isSnoozed, SNOOZE_CHOICES } from './notices';
import { useDeck, useMay } from '../../store';
import { NoticeLinkView, PriorityBadge } from './NoticeParts';

/** " by alice" for who acknowledged or snoozed, when it was recorded. */
function by(user: string | null | undefined): string {
  return user ? ` by ${user}` : '';
}

const SILENCE_TEXT: Readonly<Record<NonNullable<Notice['silenced']>['state'], string>> = {
  held: 'silenced',
  delivered: 'silenced, delivered after',
  cleared: 'silenced, cleared',
  acknowledged: 'silenced',
};

/** The small tag of a notice raised inside a maintenance window: held until the window ends, then delivered once or cleared. */
function SilenceTag({ notice }: { notice: Notice }) {
  const s = notice.silenced;
  if (!s) return null;
  const until = formatDateTime(s.until) ?? s.until;
  const what =
    s.state === 'held'
      ? `Held back from every sink until the window ends (${until}); delivered then if still wrong.`
      : s.state === 'delivered'
        ? `Held back until the window ended (${until}), then delivered: still wrong.`
        : s.state === 'cleared'
          ? `Held back until the window ended (${until}); never delivered: it had cleared.`
          : `Held back until the window ended (${until}); never delivered: acknowledged meanwhile.`;
  return (
    <span className="tag tag-maint" data-testid={`notice-silenced-${notice.key}`} data-state={s.state} title={`Maintenance: ${s.reason}. ${what}`}>
      {SILENCE_TEXT[s.state]}
      {s.state === 'held' ? ` until ${formatClock(s.until) ?? s.until}` : ''} · {s.reason}
    </span>
  );
}

/** Minutes or hours, for "not acknowledged in 15 min". */
function spanText(ms: number): string {
  const min = Math.round(ms / 60_000);
  return min >= 60 && min % 60 === 0 ? `${min / 60} h` : `${min} min`;
}

/** The small tag of a notice sent on because nobody acknowledged it in time (`escalate:`). */
function EscalatedTag({ notice }: { notice: Notice }) {
  const e = notice.escalated;
  if (!e) return null;
  const at = formatDateTime(e.at) ?? e.at;
  const reached = e.to.length > 0 ? `sent on to ${e.to.join(', ')}` : 'not sent on yet';
  const failing = e.failed.length > 0 ? `; ${e.failed.join(', ')} failed, tried again until it is acknowledged` : '';
  return (
    <span className="tag tag-escalated" data-testid={`notice-escalated-${notice.key}`} title={`Not acknowledged within ${spanText(e.afterMs)}: escalated at ${at}, ${reached}${failing}.`}>
      escalated{e.to.length > 0 ? ` → ${e.to.join(', ')}` : ''}
      {e.failed.length > 0 ? ` (${e.failed.join(', ')} failing)` : ''}
    </span>
  );
}

/** One notice: priority, title, message, link, time, state and who, with Acknowledge and Snooze for a role that may. */
export function NoticeItem({ notice, now }: { notice: Notice; now: number }) {
  const ackNotice = useDeck((s) => s.ackNotice);
  const snoozeNotice = useDeck((s) => s.snoozeNotice);
  const mayAck = useMay('notices.ack');
  const maySnooze = useMay('notices.snooze');
  const [menu, setMenu] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { key } = notice;
  const acked = notice.acknowledgedAt !== null;
  const snoozed = isSnoozed(notice, now);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      setMenu(false);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li
      className={`notice card prio-line-${notice.priority}${acked ? ' acked' : ''}${snoozed ? ' snoozed' : ''}`}
      data-testid={`notice-${key}`}
      data-priority={notice.priority}
      data-row
    >
      <div className="notice-main">
        <div className="notice-head">
          <PriorityBadge priority={notice.priority} pulsing={notice.priority === 2 && !acked} />
          <strong className="notice-title">{notice.title}</strong>
          <span className="mono muted small">{notice.source}</span>
          {notice.silenced ? <SilenceTag notice={notice} /> : null}
          {notice.escalated ? <EscalatedTag notice={notice} /> : null}
          <time className="notice-time muted small" dateTime={notice.createdAt} title={formatDateTime(notice.createdAt) ?? undefined}>
            {formatClock(notice.createdAt)} · {formatAge(notice.createdAt, now) ?? '?'} ago
          </time>
        </div>
        <p className="notice-message">{notice.message}</p>
        <div className="notice-foot" data-row-open>
          <NoticeLinkView url={notice.url} title={notice.urlTitle} testId={`notice-link-${key}`} />
          {acked ? (
            <span className="notice-state ok" data-testid={`notice-state-${key}`}>
              ✓ acknowledged {formatClock(notice.acknowledgedAt)}
              {by(notice.acknowledgedBy)}
            </span>
          ) : snoozed ? (
            <span className="notice-state snooze" data-testid={`notice-state-${key}`}>
              snoozed until {formatClock(notice.snoozedUntil)}
              {by(notice.snoozedBy)}
            </span>
          ) : null}
        </div>
        {error ? (
          <p className="error-text small" role="alert">
            {error}
          </p>
        ) : null}
      </div>
      {acked || (!mayAck && !maySnooze) ? null : (
        <div className="notice-actions">
          {mayAck ? (
            <button type="button" className="small-button" data-testid={`notice-ack-${key}`} data-row-ack disabled={busy} onClick={() => void run(() => ackNotice(key))}>
              Acknowledge
            </button>
          ) : null}
          {maySnooze ? (
            <button
              type="button"
              className="small-button quiet"
              data-testid={`notice-snooze-${key}`}
              aria-expanded={menu}
              disabled={busy}
              onClick={() => setMenu((m) => !m)}
            >
              Snooze ▾
            </button>
          ) : null}
          {menu && maySnooze ? (
            <div className="snooze-menu" role="group" aria-label={`Snooze ${notice.title}`}>
              {SNOOZE_CHOICES.map((c) => (
                <button
                  key={c.minutes}
                  type="button"
                  className="small-button quiet"
                  data-testid={`notice-snooze-${key}-${c.minutes}`}
                  disabled={busy}
                  onClick={() => void run(() => snoozeNotice(key, c.minutes))}
                >
                  {c.label}
                </button>
              ))}
            </div>
          ) : null}
        </div>
      )}
    </li>
  );
}
