import { pendingNotices } from './notices';
import { useNow } from '../../ui/react-hooks';
import { useDeck } from '../../store';

/** The Notices nav badge: notices waiting for a person (unacknowledged, not snoozed); red when any is high or emergency. */
export function NoticesNavCount() {
  const notices = useDeck((s) => s.notices);
  const now = useNow(30_000);
  const waiting = pendingNotices(notices, now);
  if (waiting.length === 0) return null;
  const urgent = waiting.some((n) => n.priority >= 1);
  return (
    <span
      className={`nav-count${urgent ? ' nav-count-urgent' : ''}`}
      data-testid="nav-notices-count"
      title={`${waiting.length} unacknowledged ${waiting.length === 1 ? 'notice' : 'notices'}`}
    >
      {waiting.length}
    </span>
  );
}
