import { useState } from 'react';
import { maintenanceScopeText, type MaintenanceWindow } from '../../../../shared/maintenance';
import { describeError } from '../../client';
import { formatDateTime } from '../../ui/format';
import { RoleNote } from '../../ui/RoleNote';
import { useDeck, useMay, useRoleNeeded } from '../../store';
import { spanText, windowsInOrder, windowWhen } from './maintenance';
import { MaintenanceForm } from './MaintenanceForm';

/** Who a window is from: the config file, or the person who added it in the console. */
function SourceTag({ window: w }: { window: MaintenanceWindow }) {
  if (w.source === 'config') {
    return (
      <span className="tag tag-source" title="From the config's maintenance: section: it ends when it is taken out of the config file.">
        config
      </span>
    );
  }
  const at = w.createdAt ? formatDateTime(w.createdAt) : null;
  return (
    <span className="tag tag-source" title={at ? `Added in the console on ${at}` : 'Added in the console'}>
      added by {w.createdBy ?? 'someone'}
    </span>
  );
}

/** One window: its reason, whether it is in force, its scope and times, who it is from, and End for a console window when the role allows. */
function WindowRow({ window: w, mayEnd }: { window: MaintenanceWindow; mayEnd: boolean }) {
  const endMaintenance = useDeck((s) => s.endMaintenance);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const times = windowWhen(w);
  const inForce = w.current !== null;

  const end = async () => {
    setBusy(true);
    setError(null);
    try {
      // `maintenance.changed` takes the row away; until then it stays, its button disabled.
      await endMaintenance({ id: w.id });
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };

  return (
    <li className={`maint-row${inForce ? ' in-force' : ''}`} data-testid={`maintenance-window-${w.id}`} data-state={inForce ? 'in-force' : 'planned'} data-source={w.source}>
      <div className="maint-main">
        <div className="maint-head">
          <strong className="maint-reason">{w.reason}</strong>
          <span className={`tag ${inForce ? 'tag-maint' : 'tag-planned'}`}>{inForce ? 'in force' : 'planned'}</span>
          <SourceTag window={w} />
        </div>
        <p className="maint-line small">
          <span className="muted">Covers </span>
          <span data-testid={`maintenance-scope-${w.id}`}>{maintenanceScopeText(w)}</span>
        </p>
        <p className="maint-line small" data-testid={`maintenance-when-${w.id}`}>
          {[times.current, times.next].filter(Boolean).join('; ') || 'over'}
        </p>
        {w.kind === 'every' ? (
          <p className="maint-line small muted">
            every <code>{w.every}</code> ({w.timezone ?? 'UTC'}){w.forMs !== undefined ? `, for ${spanText(w.forMs)}` : ''}
          </p>
        ) : null}
        {error ? (
          <p className="error-text small" role="alert" data-testid={`maintenance-end-error-${w.id}`}>
            {error}
          </p>
        ) : null}
      </div>
      {mayEnd && w.source === 'console' ? (
        <button
          type="button"
          className="small-button danger-outline"
          data-testid={`maintenance-end-${w.id}`}
          aria-label={`End the window “${w.reason}”`}
          title={w.kind === 'every' ? 'End it: the occurrence in force ends now, and none follows.' : inForce ? 'End it now.' : 'Drop it: it will not begin.'}
          disabled={busy}
          onClick={() => void end()}
        >
          {busy ? 'Ending…' : 'End'}
        </button>
      ) : null}
    </li>
  );
}

/**
 * The maintenance windows (the config's and the console's) not over, and a form to plan one for a
 * role that may. While a window is in force, what it covers is expected to be down: shown here
 * so the operator sees why notices are held, and can end a window they added early.
 */
export function MaintenancePanel() {
  const windows = useDeck((s) => s.maintenance);
  const mayAdd = useMay('maintenance.add');
  const mayEnd = useMay('maintenance.end');
  const addNeeds = useRoleNeeded('maintenance.add');
  const inForce = windows.filter((w) => w.current !== null).length;
  // The form opens on request: the Notices view is read far more often than a window is planned.
  const [planning, setPlanning] = useState(false);

  return (
    <section className="card maint" data-testid="maintenance" aria-labelledby="maintenance-title">
      <div className="maint-title-row">
        <h2 id="maintenance-title">Maintenance windows</h2>
        <span className="muted small">
          {windows.length === 0 ? 'none planned' : `${inForce} in force · ${windows.length - inForce} planned`}
        </span>
      </div>
      {windows.length === 0 ? (
        <p className="muted small maint-empty" data-testid="maintenance-empty">
          No maintenance window is planned. While one is in force, the notices in its scope are held back (delivered after it if still
          wrong), a loop's missed fire reads “in maintenance” rather than late, and Alertmanager silences its alerts.
        </p>
      ) : (
        <ul className="maint-list" aria-label="Maintenance windows">
          {windowsInOrder(windows).map((w) => (
            <WindowRow key={w.id} window={w} mayEnd={mayEnd} />
          ))}
        </ul>
      )}
      {mayAdd ? (
        <>
          <button
            type="button"
            className="small-button maint-plan"
            data-testid="maintenance-plan"
            aria-expanded={planning}
            aria-controls="maintenance-form"
            onClick={() => setPlanning(!planning)}
          >
            {planning ? 'Hide the form' : 'Plan a window…'}
          </button>
          {planning ? <MaintenanceForm /> : null}
        </>
      ) : (
        <RoleNote needed={addNeeds} testId="maintenance-role-note">
          Planning and ending a window need
        </RoleNote>
      )}
    </section>
  );
}
