import { useMemo } from 'react';
import { ledgersHeld, useDeck } from '../../store';
import { auditLedgers, lessonsByLoop, taskLines } from './ledgers';
import { useScrollFocus } from '../../ui/react-hooks';

const dash = (v: string | null): string => (v === null || v.trim() === '' ? '—' : v);

function TasksSection() {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const tasks = useDeck((s) => s.tasks);
  const lines = useMemo(() => taskLines(tasks), [tasks]);
  const stopped = lines.filter((l) => l.task.status.trim().toLowerCase() === 'stopped').length;
  return (
    <section className="card ledgers-section" aria-labelledby="ledgers-tasks" data-testid="ledgers-tasks">
      <header className="findings-head">
        <h2 id="ledgers-tasks">Implementer tasks</h2>
        <span className="muted">
          {lines.length} {lines.length === 1 ? 'task' : 'tasks'}
          {stopped ? ` · ${stopped} stopped` : ''}
        </span>
      </header>
      {lines.length === 0 ? (
        <p className="empty-inline">
          No implementer log read: give the loop <code>ledgers: {'{'} implementer: docs/implementer-log.md {'}'}</code>.
        </p>
      ) : (
        <div className="ledgers-scroll">
          <table ref={scrollFocus} className="prs-table ledgers-table" data-testid="tasks-table">
            <thead>
              <tr>
                <th scope="col">Loop</th>
                <th scope="col">Task</th>
                <th scope="col">Date</th>
                <th scope="col">Status</th>
                <th scope="col">Gate runs</th>
                <th scope="col">First gate</th>
                <th scope="col">Deviations</th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            <tbody>
              {lines.map(({ task: t, rows }) => {
                const st = t.status.trim().toLowerCase();
                return (
                  <tr key={`${t.loop}\u0000${t.task}`} data-testid={`task-row-${t.task}`} className={st === 'stopped' ? 'task-stopped' : undefined}>
                    <td>{t.loop}</td>
                    <td className="mono">
                      {t.task}
                      {rows > 1 ? <span className="muted small"> ({rows} rows)</span> : null}
                    </td>
                    <td className="num">{dash(t.date)}</td>
                    <td>
                      <span className={`tag ${st === 'stopped' ? 'tag-bad' : st === 'done' ? 'tag-ok' : 'tag-warn'}`}>{t.status}</span>
                    </td>
                    <td className="num">{dash(t.gateRuns)}</td>
                    <td>{dash(t.firstGate)}</td>
                    <td className="ledgers-text">{dash(t.deviations)}</td>
                    <td className="ledgers-text">{dash(t.notes)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function AuditsSection() {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const audits = useDeck((s) => s.audits);
  const ledgers = useMemo(() => auditLedgers(audits), [audits]);
  return (
    <section className="card ledgers-section" aria-labelledby="ledgers-audits" data-testid="ledgers-audits">
      <header className="findings-head">
        <h2 id="ledgers-audits">Audit ledger</h2>
        <span className="muted">{ledgers.length ? `${ledgers.length} ${ledgers.length === 1 ? 'loop' : 'loops'}` : 'none'}</span>
      </header>
      {ledgers.length === 0 ? (
        <p className="empty-inline">
          No <code>Audited through:</code> lines read from an audit ledger yet.
        </p>
      ) : (
        ledgers.map((l) => (
          <div key={l.loop} className="ledgers-loop" data-testid={`audit-ledger-${l.loop}`}>
            <h3>
              {l.loop}{' '}
              <span className="muted small" data-testid={`audit-latest-${l.loop}`}>
                audited through <span className="mono">{l.latest.sha}</span> on {l.latest.date}
                {l.latest.newFindings !== null ? ` — ${l.latest.newFindings} new ${l.latest.newFindings === 1 ? 'finding' : 'findings'}` : ''}
              </span>
            </h3>
            <table ref={scrollFocus} className="prs-table ledgers-table">
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Audited through</th>
                  <th scope="col">New findings</th>
                </tr>
              </thead>
              <tbody>
                {l.history.map((m) => (
                  <tr key={m.line} data-testid={`audit-mark-${l.loop}-${m.sha}`}>
                    <td className="num">{m.date}</td>
                    <td className="mono">{m.sha}</td>
                    <td className="num">{m.newFindings ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
    </section>
  );
}

function LessonsSection() {
  const lessons = useDeck((s) => s.lessons);
  const byLoop = useMemo(() => lessonsByLoop(lessons), [lessons]);
  return (
    <section className="card ledgers-section" aria-labelledby="ledgers-lessons" data-testid="ledgers-lessons">
      <header className="findings-head">
        <h2 id="ledgers-lessons">Lessons</h2>
        <span className="muted">{lessons.length || 'none'}</span>
      </header>
      {byLoop.length === 0 ? (
        <p className="empty-inline">
          No <code>## Lessons</code> bullets read yet.
        </p>
      ) : (
        byLoop.map((l) => (
          <div key={l.loop} className="ledgers-loop" data-testid={`lessons-${l.loop}`}>
            <h3>{l.loop}</h3>
            <ul className="ledgers-lessons">
              {l.lessons.map((x) => (
                <li key={`${x.source}:${x.line}`}>
                  <span className="muted small num">
                    {x.date ?? 'undated'}
                    {x.tag ? ` (${x.tag})` : ''}
                  </span>{' '}
                  {x.text}
                </li>
              ))}
            </ul>
          </div>
        ))
      )}
    </section>
  );
}

/** What the loops' ledgers say beyond findings: implementer tasks, the audit ledger, the lessons. */
export function LedgersView() {
  const ledgersLoaded = useDeck((s) => ledgersHeld(s.stage));
  if (!ledgersLoaded) {
    return (
      <div className="empty card" data-testid="ledgers-loading" aria-busy="true">
        <h2>Loading the ledgers…</h2>
      </div>
    );
  }
  return (
    <div className="ledgers" data-testid="ledgers">
      <TasksSection />
      <AuditsSection />
      <LessonsSection />
    </div>
  );
}
