import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { describeError } from '../../client';
import { formatDateTime } from '../../ui/format';
import { useNow } from '../../ui/react-hooks';
import { routeHash } from '../../ui/route';
import { useDeck, useMay, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { argsText, DrillStatusBadge, runDuration } from './DrillParts';

function OutputPanel({ runId }: { runId: string }) {
  const output = useDeck((s) => s.drillOutput[runId]);
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [output?.text]);

  return (
    <pre
      ref={ref}
      className="drill-output"
      data-testid="drill-output"
      tabIndex={0}
      aria-label="Drill output"
      aria-live="off"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {output?.truncated ? <span className="muted">[earlier output dropped: only the last ~1 MB is kept here]{'\n'}</span> : null}
      {output ? output.text || <span className="muted">No output yet.</span> : <span className="muted">Loading output…</span>}
    </pre>
  );
}

/** One drill run: status, rc, duration, who and with what, its live output, and Cancel while it runs (for a role that may). */
export function DrillRunDetail({ runId }: { runId: string }) {
  const run = useDeck((s) => s.drillRuns.find((r) => r.id === runId));
  const output = useDeck((s) => s.drillOutput[runId]);
  const fetchOutput = useDeck((s) => s.fetchDrillOutput);
  const cancelDrill = useDeck((s) => s.cancelDrill);
  const mayCancel = useMay('drills.cancel');
  const cancelNeeds = useRoleNeeded('drills.cancel');
  const now = useNow(1_000);
  const [error, setError] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const status = run?.status;

  // Catch up when opened and whenever the run's status changes (the last chunk may predate it);
  // fetch again when an event arrived past a gap.
  useEffect(() => {
    fetchOutput(runId).catch((err: unknown) => setError(describeError(err)));
  }, [runId, status, fetchOutput]);
  const gap = output ? output.behind > output.next : false;
  useEffect(() => {
    if (gap) fetchOutput(runId).catch((err: unknown) => setError(describeError(err)));
  }, [gap, runId, fetchOutput]);

  const onCancel = async () => {
    setCancelling(true);
    setError(null);
    try {
      const cancelled = await cancelDrill(runId);
      if (!cancelled) setError('The run had already ended.');
    } catch (err) {
      setError(describeError(err));
    } finally {
      setCancelling(false);
    }
  };

  return (
    <section className="card drill-run" aria-labelledby="drill-run-title" data-testid="drill-run">
      <header className="drill-run-head">
        <a className="back-link" href={routeHash({ view: 'drills' })}>
          ← Drills
        </a>
        <h2 id="drill-run-title">{run ? run.drill : 'Drill run'}</h2>
        {run ? <DrillStatusBadge status={run.status} testId="drill-status" /> : <span className="muted" data-testid="drill-status" data-status="unknown">starting…</span>}
        {run?.override ? <span className="tag tag-warn">override: a loop phase was running</span> : null}
        {run?.status === 'running' && mayCancel ? (
          <button type="button" className="danger-outline" data-testid="drill-cancel" disabled={cancelling} onClick={() => void onCancel()}>
            {cancelling ? 'Cancelling…' : 'Cancel run'}
          </button>
        ) : null}
        {run?.status === 'running' ? (
          <RoleNote needed={cancelNeeds} testId="drill-role-note">
            Cancelling a run needs
          </RoleNote>
        ) : null}
      </header>
      {run ? (
        <dl className="drill-facts">
          <div>
            <dt>Host</dt>
            <dd>{run.host}</dd>
          </div>
          <div>
            <dt>Arguments</dt>
            <dd className="mono">{argsText(run.args)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>
              <time dateTime={run.startedAt}>{formatDateTime(run.startedAt)}</time> by {run.user}
            </dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd className="num">{runDuration(run, now) ?? '—'}</dd>
          </div>
          <div>
            <dt>rc</dt>
            <dd className={`num${run.rc ? ' error-text' : ''}`} data-testid="drill-rc">
              {run.rc ?? '—'}
            </dd>
          </div>
          <div>
            <dt>Log</dt>
            <dd className="mono small path">{run.logPath}</dd>
          </div>
        </dl>
      ) : (
        <p className="empty-inline">Run {runId} is not in the audit trail yet; it appears as soon as main records it.</p>
      )}
      {error ? (
        <p className="callout callout-bad drill-run-error" role="alert">
          {error}
        </p>
      ) : null}
      <OutputPanel runId={runId} />
    </section>
  );
}
