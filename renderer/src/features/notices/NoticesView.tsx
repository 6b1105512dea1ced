import { useMemo, useState } from 'react';
import type { NoticePriority } from '../../../../shared/domain';
import { notificationPermission } from './desktop-notify';
import { filterNotices, pendingNotices, PRIORITIES, PRIORITY_LABEL, SOURCE_KINDS, type NoticeFilter, type SourceKind } from './notices';
import { useNow } from '../../ui/react-hooks';
import { useDeck, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { NoticeItem } from './NoticeItem';
import { MaintenancePanel } from '../maintenance/MaintenancePanel';

function EnableDesktop() {
  const [permission, setPermission] = useState(notificationPermission);
  if (permission !== 'default') return null;
  return (
    <button
      type="button"
      className="small-button quiet"
      data-testid="notices-enable-desktop"
      onClick={() => void Notification.requestPermission().then(setPermission, () => undefined)}
    >
      Enable desktop notifications
    </button>
  );
}

/** Every notice, newest first, filterable by priority and source, with Acknowledge and Snooze for a role that may; the maintenance windows above them. */
export function NoticesView() {
  const notices = useDeck((s) => s.notices);
  const now = useNow(30_000);
  const [filter, setFilter] = useState<NoticeFilter>({ priority: null, source: null });
  const shown = useMemo(() => filterNotices(notices, filter), [notices, filter]);
  const waiting = pendingNotices(notices, now).length;
  // Said once for the list, where a notice would have offered Acknowledge (not per row).
  const ackNeeds = useRoleNeeded('notices.ack');
  const unacked = notices.some((n) => n.acknowledgedAt === null);

  return (
    <section className="notices-view" data-testid="notices" aria-labelledby="notices-title">
      <header className="card notices-head">
        <div className="notices-title-row">
          <h2 id="notices-title">Notices</h2>
          <span className="muted">
            {notices.length} total · {waiting} waiting for you
          </span>
          <EnableDesktop />
        </div>
        {unacked ? (
          <RoleNote needed={ackNeeds} testId="notices-role-note">
            Acknowledging and snoozing need
          </RoleNote>
        ) : null}
        <div className="filter-row">
          <label className="filter-select">
            Priority
            <select
              data-testid="notices-filter-priority"
              value={filter.priority === null ? '' : String(filter.priority)}
              onChange={(e) => setFilter({ ...filter, priority: e.target.value === '' ? null : (Number(e.target.value) as NoticePriority) })}
            >
              <option value="">any</option>
              {PRIORITIES.map((p) => (
                <option key={p} value={p}>
                  {p} · {PRIORITY_LABEL[p]}
                </option>
              ))}
            </select>
          </label>
          <span className="toggles" role="group" aria-label="Source">
            <span className="toggles-label">Source</span>
            {([null, ...SOURCE_KINDS] as (SourceKind | null)[]).map((k) => (
              <button
                key={k ?? 'any'}
                type="button"
                className={`toggle${filter.source === k ? ' on' : ''}`}
                aria-pressed={filter.source === k}
                data-testid={`notices-filter-source-${k ?? 'any'}`}
                onClick={() => setFilter({ ...filter, source: k })}
              >
                {k ?? 'any'}
              </button>
            ))}
          </span>
        </div>
      </header>
      <MaintenancePanel />
      {shown.length === 0 ? (
        <div className="empty card">
          <h2>{notices.length === 0 ? 'No notices' : 'No notices match'}</h2>
          <p className="muted">
            {notices.length === 0
              ? 'Loopdeck raises a notice when a loop misses its schedule or stops incomplete, a host or proxy goes down, or a drill fails.'
              : 'Clear the filters to see every notice.'}
          </p>
        </div>
      ) : (
        <ol className="notice-list">
          {shown.map((n) => (
            <NoticeItem key={n.key} notice={n} now={now} />
          ))}
        </ol>
      )}
    </section>
  );
}
