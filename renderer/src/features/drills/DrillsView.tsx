import { useMemo, useState } from 'react';
import type { Drill, DrillRun } from '../../../../shared/domain';
import { daysText, drillCadence } from '../../../../shared/drill-due';
import { formatDateTime, formatDuration } from '../../ui/format';
import { navigate, useNow, useScrollFocus } from '../../ui/react-hooks';
import { routeHash } from '../../ui/route';
import { useDeck, useMay, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { DrillDialog } from './DrillDialog';
import { argsText, DrillStatusBadge, runDuration } from './DrillParts';
import { DrillRunDetail } from './DrillRunDetail';

/** A drill's cadence: none, next due, due (never succeeded) or overdue by how long. */
function CadenceCell({ drill, runs, now }: { drill: Drill; runs: readonly DrillRun[]; now: number }) {
  const c = drillCadence(drill, runs, now);
  if (!c) return <span className="muted">—</span>;
  const every = `every ${daysText(c.everyMs)}`;
  if (!c.due) {
    return (
      <span data-testid={`drill-cadence-${drill.name}`} data-state="ok">
        {every} · next due {formatDateTime(c.dueAt) ?? c.dueAt}
      </span>
    );
  }
  return (
    <span data-testid={`drill-cadence-${drill.name}`} data-state={c.lastOkAt === null || c.overdueMs === 0 ? 'due' : 'overdue'}>
      {every} · <span className="tag tag-warn">{c.lastOkAt === null ? 'due: never succeeded' : c.overdueMs >= 60_000 ? `overdue by ${daysText(c.overdueMs)}` : 'due'}</span>
    </span>
  );
}

function DrillList({ onRun }: { onRun: (drill: Drill) => void }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const drills = useDeck((s) => s.drills);
  const runs = useDeck((s) => s.drillRuns);
  const now = useNow(60_000);
  const configPath = useDeck((s) => s.info?.config.path);
  const mayRun = useMay('drills.run');
  const runNeeds = useRoleNeeded('drills.run');
  return (
    <section className="card" aria-labelledby="drills-title">
      <header className="findings-head">
        <h2 id="drills-title">Drills</h2>
        <span className="muted">{drills.length} declared · only declared commands can run, with the values listed here</span>
        {drills.length > 0 ? (
          <RoleNote needed={runNeeds} testId="drills-role-note">
            Running a drill needs
          </RoleNote>
        ) : null}
      </header>
      {drills.length === 0 ? (
        <p className="empty-inline">
          No drills declared. Add them under <code>drills:</code> in <code>{configPath ?? 'the config file'}</code>.
        </p>
      ) : (
        <table ref={scrollFocus} className="prs-table drills-table">
          <thead>
            <tr>
              <th scope="col">Drill</th>
              <th scope="col">Host</th>
              <th scope="col">Timeout</th>
              <th scope="col">Cadence</th>
              <th scope="col">Arguments</th>
              {mayRun ? (
                <th scope="col">
                  <span className="visually-hidden">Run</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {drills.map((d) => (
              <tr key={d.name} data-testid={`drill-${d.name}`}>
                <td className="mono strong">{d.name}</td>
                <td>{d.host}</td>
                <td className="num">{formatDuration(d.timeoutMs)}</td>
                <td>
                  <CadenceCell drill={d} runs={runs} now={now} />
                </td>
                <td>
                  {Object.keys(d.args).length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <ul className="arg-list">
                      {Object.entries(d.args).map(([name, values]) => (
                        <li key={name}>
                          <span className="mono">{name}</span>
                          <span className="arg-values">
                            {values.map((v) => (
                              <span key={v} className="arg-value mono">
                                {v}
                              </span>
                            ))}
                          </span>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                {mayRun ? (
                  <td className="run-cell">
                    <button type="button" className="small-button" data-testid={`drill-run-${d.name}`} onClick={() => onRun(d)}>
                      Run…
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RunsTable() {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const runs = useDeck((s) => s.drillRuns);
  const now = useNow(5_000);
  const sorted = useMemo(() => [...runs].sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0)), [runs]);
  return (
    <section className="card" aria-labelledby="runs-title">
      <header className="findings-head">
        <h2 id="runs-title">Runs</h2>
        <span className="muted">audit trail, newest first</span>
      </header>
      {sorted.length === 0 ? (
        <p className="empty-inline">No drill has been run yet.</p>
      ) : (
        <table ref={scrollFocus} className="prs-table runs-table">
          <thead>
            <tr>
              <th scope="col">Drill</th>
              <th scope="col">Host</th>
              <th scope="col">Arguments</th>
              <th scope="col">User</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">rc</th>
              <th scope="col">Status</th>
              <th scope="col">Override</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => (
              <tr key={r.id} data-testid={`run-row-${r.id}`} className="run-row" onClick={() => navigate({ view: 'drills', runId: r.id })}>
                <td>
                  <a className="fid" href={routeHash({ view: 'drills', runId: r.id })}>
                    {r.drill}
                  </a>
                </td>
                <td>{r.host}</td>
                <td className="mono small">{argsText(r.args)}</td>
                <td>{r.user}</td>
                <td className="num">{formatDateTime(r.startedAt)}</td>
                <td className="num">{runDuration(r, now) ?? '—'}</td>
                <td className={`num${r.rc ? ' error-text' : ''}`}>{r.rc ?? '—'}</td>
                <td>
                  <DrillStatusBadge status={r.status} />
                </td>
                <td>{r.override ? <span className="tag tag-warn">override</span> : <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Declared drills with a guarded Run dialog (for a role that may run them), the audit trail of runs, and one run's live output. */
export function DrillsView({ runId }: { runId: string | null }) {
  const [dialog, setDialog] = useState<Drill | null>(null);
  return (
    <div className="drills-view" data-testid="drills">
      {runId ? (
        <DrillRunDetail runId={runId} />
      ) : (
        <>
          <DrillList onRun={setDialog} />
          <RunsTable />
        </>
      )}
      {dialog ? <DrillDialog key={dialog.name} drill={dialog} onClose={() => setDialog(null)} /> : null}
    </div>
  );
}
