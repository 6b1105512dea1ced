import { useEffect, useState } from 'react';
import type { NightComparison, NightFindings, FleetWindow, PhaseComparison, PhaseSide } from '../../../../shared/night-compare';
import { messageOf } from '../../../../shared/errors';
import { stripEscapes } from '../../../../shared/transcript-text';
import { formatCount, phaseSuiteTotals, suiteSentence } from '../../../../shared/suite-summary';
import { useDeck } from '../../store';
import { ExternalLink } from '../../ui/ExternalLink';
import { formatDuration } from '../../ui/format';
import { routeHash } from '../../ui/route';
import { useScrollFocus } from '../../ui/react-hooks';
import { StatusBadge } from '../../ui/StatusBadge';
import { firstParting, phaseDiffers, rcText, roundsText, suiteDeltaText } from './compare';
import './compare.css';

type Load = { readonly state: 'loading' } | { readonly state: 'failed'; readonly message: string } | { readonly state: 'done'; readonly result: NightComparison };

/** One phase on one night: status, duration, rounds, cause, suites and commits. */
function Side({ side }: { side: PhaseSide | null }) {
  if (side === null) return <td className="muted">not in this night</td>;
  const totals = side.suites ? phaseSuiteTotals(side.suites) : null;
  return (
    <td>
      <div className="cmp-side">
      <StatusBadge status={side.status} />
      <span className="num">{side.durationMs === null ? '—' : formatDuration(side.durationMs)}</span>
      <span className="muted small">rounds {roundsText(side)}</span>
      {side.cause ? <span className="small">cause {side.cause.kind}: {side.cause.detail}</span> : null}
      {totals ? <span className="small">suites {suiteSentence(totals, null)}</span> : null}
      <span className="muted small">{side.commits.count === 0 ? 'no commits' : `${side.commits.count} commit${side.commits.count === 1 ? '' : 's'}`}</span>
      </div>
    </td>
  );
}

/** Where a phase's two nights part: the first rc step and the first transcript line, each line a link to its transcript. */
function Parting({ loop, a, b, p }: { loop: string; a: string; b: string; p: PhaseComparison }) {
  const rc = p.firstRcDivergence;
  const line = p.firstLineDivergence;
  return (
    <section className="cmp-parting" data-testid={`compare-parting-${p.name}`}>
      <h3>{p.name}</h3>
      {rc ? (
        <p data-testid={`compare-rc-${p.name}`}>
          First rc step that differs: <strong className="mono">{`${rc.stage} › ${rc.step}`}</strong> — {rcText(rc.a)} on {a}, {rcText(rc.b)} on {b}
        </p>
      ) : null}
      {line ? (
        <div data-testid={`compare-line-${p.name}`}>
          <p>First transcript line that differs (timestamps and numbers aside): line {formatCount(line.lineA)}</p>
          <div className="cmp-lines">
            <a className="console-link small" href={routeHash({ view: 'log', loop, date: a, phase: p.name, line: line.lineA })}>
              {a}, line {formatCount(line.lineA)} →
            </a>
            <pre className="mono block">{line.a === null ? '(its transcript ended before this line)' : stripEscapes(line.a)}</pre>
            <a className="console-link small" href={routeHash({ view: 'log', loop, date: b, phase: p.name, line: line.lineB })}>
              {b}, line {formatCount(line.lineB)} →
            </a>
            <pre className="mono block">{line.b === null ? '(its transcript ended before this line)' : stripEscapes(line.b)}</pre>
          </div>
        </div>
      ) : p.transcript.stopped ? (
        <p className="muted small">The transcripts agree over the first {formatCount(p.transcript.lines)} lines; the comparison stopped at its bound of {p.transcript.stopped}.</p>
      ) : null}
      {(p.suites ?? []).length > 0 ? (
        <ul className="suite-list" data-testid={`compare-suites-${p.name}`}>
          {(p.suites ?? []).map((s) => (
            <li key={s.runner} className={`small${(s.failed ?? 0) > 0 ? ' suite-bad' : ''}`}>
              {suiteDeltaText(s)}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

const findingsText = (f: NightFindings): string => `${f.openedTotal} opened${f.opened.length > 0 ? ` (${f.opened.slice(0, 8).join(', ')}${f.openedTotal > 8 ? ', …' : ''})` : ''}, ${f.closedTotal} closed${f.closed.length > 0 ? ` (${f.closed.slice(0, 8).join(', ')}${f.closedTotal > 8 ? ', …' : ''})` : ''}`;

function fleetText(w: FleetWindow | null): string {
  if (w === null) return 'no fleet history kept for its window';
  const parts = [
    w.tokensPerSecond === null ? 'tokens/s —' : `${w.tokensPerSecond.toFixed(1)} tokens/s`,
    `queue peak ${w.queuedPeak ?? '—'}`,
    `${formatCount(w.errors)} errors${Object.keys(w.errorsByStatus).length > 0 ? ` (${Object.entries(w.errorsByStatus).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
    w.modelsServed.length > 0 ? `served ${w.modelsServed.join(', ')}` : 'no model named in the request log',
  ];
  return parts.join(' · ');
}

/** Two nights of a loop side by side (`#/compare/<loop>/<date>[/<date>]`), read by main (`nights.compare`). */
export function CompareView({ loop, a, b }: { loop: string; a: string; b: string | null }) {
  const compareNights = useDeck((s) => s.compareNights);
  const scrollFocus = useScrollFocus<HTMLDivElement>();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setLoad({ state: 'loading' });
    compareNights({ loop, a, ...(b === null ? {} : { b }) }).then(
      (result) => live && setLoad({ state: 'done', result }),
      (err: unknown) => live && setLoad({ state: 'failed', message: messageOf(err) }),
    );
    return () => {
      live = false;
    };
  }, [compareNights, loop, a, b]);

  if (load.state !== 'done') {
    return (
      <section className="card compare" data-testid="compare" data-state={load.state}>
        <h2>
          {loop}: {a} against {b ?? 'the last good night before it'}
        </h2>
        {load.state === 'loading' ? (
          <p className="muted">Reading both nights…</p>
        ) : (
          <p className="callout callout-bad" data-testid="compare-error">
            {load.message}
          </p>
        )}
      </section>
    );
  }
  const c = load.result;
  const parting = firstParting(c);
  const differing = c.phases.filter(phaseDiffers);
  return (
    <section className="card compare" data-testid="compare" data-state="done" aria-labelledby="compare-title">
      <header className="cmp-head">
        <h2 id="compare-title">
          {c.loop}: {c.a.date} against {c.b.date}
        </h2>
        <p className="muted">
          <StatusBadge status={c.a.status} /> on {c.a.date}, <StatusBadge status={c.b.status} /> on {c.b.date}
          {c.picked === 'last-good' ? ' — the last good night before it' : ''}. Read from {c.host}.
        </p>
        <p data-testid="compare-summary">
          {parting ? (
            <>
              The nights first part in <strong>{parting.name}</strong>
              {differing.length > 1 ? ` (and ${differing.length - 1} phase${differing.length === 2 ? '' : 's'} after it)` : ''}.
            </>
          ) : (
            'The nights agree in every phase, as far as they were compared.'
          )}
        </p>
      </header>
      <div className="cmp-scroll" ref={scrollFocus} role="region" aria-label="The nights side by side">
        <table className="cmp-table" data-testid="compare-phases">
          <thead>
            <tr>
              <th scope="col">Phase</th>
              <th scope="col">{c.a.date}</th>
              <th scope="col">{c.b.date}</th>
            </tr>
          </thead>
          <tbody>
            {c.phases.map((p) => (
              <tr key={p.name} data-testid={`compare-phase-${p.name}`} className={phaseDiffers(p) ? 'cmp-differs' : undefined}>
                <th scope="row">{p.name}</th>
                <Side side={p.a} />
                <Side side={p.b} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {differing.map((p) => (
        <Parting key={p.name} loop={c.loop} a={c.a.date} b={c.b.date} p={p} />
      ))}
      <dl className="facts cmp-facts">
        <dt>Findings</dt>
        <dd data-testid="compare-findings">{c.findings ? `${c.a.date}: ${findingsText(c.findings.a)}; ${c.b.date}: ${findingsText(c.findings.b)}` : 'the loop’s ledgers were not read'}</dd>
        <dt>PRs</dt>
        <dd>
          {[
            { date: c.a.date, urls: c.prs.a },
            { date: c.b.date, urls: c.prs.b },
          ].map(({ date, urls }) => (
            <span key={date} className="cmp-prs">
              {date}: {urls.length === 0 ? 'none' : urls.map((u) => <ExternalLink key={u} url={u} />)}
            </span>
          ))}
        </dd>
        <dt>Fleet</dt>
        <dd data-testid="compare-fleet">
          <span className="cmp-prs">
            {c.a.date}: {fleetText(c.fleet.a)}
          </span>
          <span className="cmp-prs">
            {c.b.date}: {fleetText(c.fleet.b)}
          </span>
        </dd>
      </dl>
      {c.notes.length > 0 ? (
        <ul className="muted small" data-testid="compare-notes">
          {c.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
