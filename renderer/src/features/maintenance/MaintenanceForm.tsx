import { useId, useMemo, useState } from 'react';
import { describeError } from '../../client';
import { useDeck } from '../../store';
import { browserTimeZone, draftDefaults, scopeChoices, SCOPE_KINDS, toggledName, windowInput, type MaintenanceDraft, type ScopeKind } from './maintenance';

const SCOPE_LABEL: Readonly<Record<ScopeKind, string>> = { loops: 'Loops', hosts: 'Hosts', proxies: 'Proxies' };

/** The IANA zones this browser knows, for the time zone field's suggestions (none where it cannot say). */
function knownZones(): readonly string[] {
  const intl = Intl as typeof Intl & { supportedValuesOf?: (key: 'timeZone') => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/** The scope: a checkbox per loop, host and proxy the console knows; none ticked is everything. */
function ScopeFields({ draft, onChange, disabled }: { draft: MaintenanceDraft; onChange: (scope: MaintenanceDraft['scope']) => void; disabled: boolean }) {
  const loopNames = useDeck((s) => s.loopNames);
  const hosts = useDeck((s) => s.hosts);
  const capacity = useDeck((s) => s.capacity);
  const choices = useMemo(() => scopeChoices(loopNames, hosts, capacity), [loopNames, hosts, capacity]);
  const id = useId();
  const ticked = SCOPE_KINDS.reduce((n, k) => n + draft.scope[k].length, 0);

  return (
    <fieldset className="maint-scope" disabled={disabled}>
      <legend>Scope</legend>
      <p className="muted small maint-scope-note" data-testid="maintenance-scope-note">
        {ticked === 0 ? 'Nothing ticked: the window covers everything (every loop, host and proxy).' : 'Covers only what is ticked (a loop also through its host).'}
      </p>
      {SCOPE_KINDS.filter((k) => choices[k].length > 0).map((k) => (
        <div key={k} className="maint-scope-group" role="group" aria-labelledby={`${id}-${k}`}>
          <span className="maint-scope-label" id={`${id}-${k}`}>
            {SCOPE_LABEL[k]}
          </span>
          {choices[k].map((name) => (
            <label key={name} className="maint-check">
              <input
                type="checkbox"
                data-testid={`maintenance-scope-${k}-${name}`}
                checked={draft.scope[k].includes(name)}
                onChange={(e) => onChange({ ...draft.scope, [k]: toggledName(draft.scope[k], name, e.target.checked, choices[k]) })}
              />
              <span className="mono">{name}</span>
            </label>
          ))}
        </div>
      ))}
    </fieldset>
  );
}

/**
 * "Plan a window": a reason, one-off times (the browser's wall clock) or a recurring cron, and a
 * scope; sent as a `maintenance:` entry is written. Main reads it with the config's rules and
 * refuses a wrong one naming the field (`window.end: …`): that message is shown as it came.
 */
export function MaintenanceForm() {
  const addMaintenance = useDeck((s) => s.addMaintenance);
  const zone = useMemo(browserTimeZone, []);
  const zones = useMemo(knownZones, []);
  const [draft, setDraft] = useState<MaintenanceDraft>(() => draftDefaults(Date.now(), zone));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const id = useId();
  const set = (over: Partial<MaintenanceDraft>) => setDraft((d) => ({ ...d, ...over }));

  const submit = async () => {
    setBusy(true);
    setError(null);
    setAdded(null);
    try {
      await addMaintenance({ window: windowInput(draft) });
      // The list shows it once `maintenance.changed` arrives; the form starts afresh.
      setAdded(draft.reason.trim());
      setDraft(draftDefaults(Date.now(), zone));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="maint-form"
      id="maintenance-form"
      data-testid="maintenance-form"
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void submit();
      }}
    >
      <h3 id={`${id}-title`}>Plan a window</h3>
      <div className="maint-fields">
        <label className="maint-field maint-field-wide">
          <span>Reason</span>
          <input data-testid="maintenance-reason" value={draft.reason} required maxLength={500} placeholder="e.g. fleet upgrade" disabled={busy} onChange={(e) => set({ reason: e.target.value })} />
        </label>
        <fieldset className="maint-kind" disabled={busy}>
          <legend>When</legend>
          <label className="maint-check">
            <input type="radio" name={`${id}-kind`} data-testid="maintenance-kind-once" checked={draft.kind === 'once'} onChange={() => set({ kind: 'once' })} />
            One-off
          </label>
          <label className="maint-check">
            <input type="radio" name={`${id}-kind`} data-testid="maintenance-kind-every" checked={draft.kind === 'every'} onChange={() => set({ kind: 'every' })} />
            Recurring
          </label>
        </fieldset>
      </div>
      {draft.kind === 'once' ? (
        <div className="maint-fields">
          <label className="maint-field">
            <span>From</span>
            <input type="datetime-local" data-testid="maintenance-from" value={draft.from} required disabled={busy} aria-describedby={`${id}-zone`} onChange={(e) => set({ from: e.target.value })} />
          </label>
          <label className="maint-field">
            <span>Until</span>
            <input type="datetime-local" data-testid="maintenance-until" value={draft.until} required disabled={busy} aria-describedby={`${id}-zone`} onChange={(e) => set({ until: e.target.value })} />
          </label>
          <p className="muted small maint-hint" id={`${id}-zone`}>
            Your time, {zone}.
          </p>
        </div>
      ) : (
        <div className="maint-fields">
          <label className="maint-field">
            <span>Every (cron)</span>
            <input
              className="mono"
              data-testid="maintenance-every"
              value={draft.every}
              required
              spellCheck={false}
              autoComplete="off"
              disabled={busy}
              aria-describedby={`${id}-cron`}
              onChange={(e) => set({ every: e.target.value })}
            />
          </label>
          <label className="maint-field maint-field-narrow">
            <span>For</span>
            <input className="mono" data-testid="maintenance-for" value={draft.for} required placeholder="2h" spellCheck={false} disabled={busy} onChange={(e) => set({ for: e.target.value })} />
          </label>
          <label className="maint-field">
            <span>Time zone</span>
            <input data-testid="maintenance-timezone" value={draft.timezone} list={`${id}-zones`} spellCheck={false} autoComplete="off" disabled={busy} onChange={(e) => set({ timezone: e.target.value })} />
          </label>
          {zones.length ? (
            <datalist id={`${id}-zones`}>
              {zones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          ) : null}
          <p className="muted small maint-hint" id={`${id}-cron`}>
            minute hour day month weekday, read in the time zone: <code>0 3 * * 6</code> is Saturdays at 03:00. For: <code>90m</code>, <code>2h</code>.
          </p>
        </div>
      )}
      <ScopeFields draft={draft} disabled={busy} onChange={(scope) => set({ scope })} />
      {error ? (
        <p className="callout callout-bad maint-error" role="alert" data-testid="maintenance-error">
          {error}
        </p>
      ) : null}
      <div className="maint-actions">
        <button type="submit" className="primary" data-testid="maintenance-add" disabled={busy}>
          {busy ? 'Planning…' : 'Plan window'}
        </button>
        <span className="muted small" role="status" data-testid="maintenance-added">
          {added !== null ? `Planned “${added}”.` : ''}
        </span>
      </div>
    </form>
  );
}
