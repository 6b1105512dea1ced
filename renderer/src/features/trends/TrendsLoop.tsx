import { useMemo } from 'react';
import type { LoopReport } from '../../../../shared/loop-measures';
import type { LoopTrends, TrendFlag } from '../../../../shared/trends';
import { TREND_SEVERITIES } from '../../../../shared/trends';
import { formatDuration } from '../../ui/format';
import { TrendsBreaches } from './TrendsBreaches';
import { TrendsSuites } from './TrendsSuites';
import { TrendsCost } from './TrendsCost';
import { TrendsChart, type TrendRow, type TrendSeries } from './TrendsChart';
import { TrendsImprovement } from './TrendsImprovement';
import { TrendsMerge } from './TrendsMerge';
import { awaitingFact } from './trend-merge';
import { useScrollFocus } from '../../ui/react-hooks';

const OUTCOMES: readonly TrendSeries[] = [
  { key: 'ok', name: 'ok', color: 'var(--ok-line)' },
  { key: 'no-op', name: 'no-op', color: 'var(--noop-line)' },
  { key: 'ready', name: 'ready', color: 'var(--ready-line)' },
  { key: 'incomplete', name: 'incomplete', color: 'var(--inc-line)' },
  { key: 'failed', name: 'failed', color: 'var(--fail-line)' },
  { key: 'running', name: 'running', color: 'var(--run-line)' },
  { key: 'pending', name: 'pending', color: 'var(--pend-line)' },
];
const SEV_COLOR = { P0: 'var(--fail-line)', P1: 'var(--inc-line)', P2: 'var(--run-line)', P3: 'var(--ready-line)', none: 'var(--pend-line)' } as const;
const PHASE_COLORS = ['var(--accent)', 'var(--inc-line)', 'var(--ok-line)', 'var(--op-solid)', 'var(--fail-line)', 'var(--run-line)'];
const HOUR = 3_600_000;
const hours = (v: number): string => (v >= 10 ? v.toFixed(0) : v.toFixed(1));
const days = (v: number | null): string => (v === null ? '—' : v < 1 ? 'same night' : `${v.toFixed(v < 10 ? 1 : 0)} d`);
const pct = (v: number | null): string => (v === null ? '—' : `${Math.round(v * 100)}%`);

const FLAG_LABEL: Readonly<Record<TrendFlag['kind'], string>> = { 'phase-slow': 'Slow phase', 'p0-spike': 'P0 spike', 'success-drop': 'Success rate fell' };

function flaggedOn(l: LoopTrends, kind: TrendFlag['kind']): string[] {
  return l.flags.filter((f) => f.kind === kind).map((f) => f.date);
}

/** One loop over the window: its flags, then outcomes, phase durations, findings in and out, backlog. */
export function TrendsLoop({ trends }: { trends: LoopReport }) {
  const scrollFocus = useScrollFocus<HTMLTableElement>();
  const l = trends;
  const phaseNames = useMemo(() => l.phases.map((p) => p.phase), [l.phases]);
  const rows = useMemo(() => {
    const outcomes: TrendRow[] = [];
    const durations: TrendRow[] = [];
    const findings: TrendRow[] = [];
    const backlog: TrendRow[] = [];
    for (const n of l.nights) {
      outcomes.push({ date: n.date, ...Object.fromEntries(OUTCOMES.map((o) => [o.key, n.outcome === o.key ? 1 : 0])) });
      durations.push({ date: n.date, ...Object.fromEntries(phaseNames.map((p) => [p, n.durations[p] == null ? null : (n.durations[p] ?? 0) / HOUR])) });
      const f: Record<string, number> = {};
      for (const s of TREND_SEVERITIES) {
        f[`opened-${s}`] = n.opened[s];
        f[`closed-${s}`] = -n.closed[s];
      }
      findings.push({ date: n.date, ...f });
      backlog.push({ date: n.date, backlog: n.backlog });
    }
    return { outcomes, durations, findings, backlog };
  }, [l.nights, phaseNames]);
  const phaseSeries = phaseNames.map((p, i) => ({ key: p, name: p, color: PHASE_COLORS[i % PHASE_COLORS.length] ?? 'var(--accent)' }));
  const findingSeries: TrendSeries[] = [
    ...TREND_SEVERITIES.map((s) => ({ key: `opened-${s}`, name: `opened ${s === 'none' ? 'no severity' : s}`, color: SEV_COLOR[s], stack: 'f' })),
    ...TREND_SEVERITIES.map((s) => ({ key: `closed-${s}`, name: `closed ${s === 'none' ? 'no severity' : s}`, color: SEV_COLOR[s], stack: 'f', faded: true })),
  ];
  const used = (series: TrendSeries[], data: readonly TrendRow[]) => series.filter((s) => data.some((r) => (r[s.key] ?? 0) !== 0));
  const outcomeSeries = used([...OUTCOMES], rows.outcomes);
  const shownFindings = used(findingSeries, rows.findings);
  const awaiting = awaitingFact(l.awaitingMerge);

  return (
    <section className="card trend-loop" data-testid={`trends-loop-${l.loop}`} aria-labelledby={`trends-${l.loop}`}>
      <header className="trend-loop-head">
        <h2 id={`trends-${l.loop}`}>{l.loop}</h2>
        <dl className="trend-facts">
          <div>
            <dt>Success, last 7 nights</dt>
            <dd data-testid="trend-success-this">{pct(l.successRate.thisWeek)}</dd>
          </div>
          <div>
            <dt>the 7 before</dt>
            <dd>{pct(l.successRate.lastWeek)}</dd>
          </div>
          <div>
            <dt>Median first seen → DONE</dt>
            <dd data-testid="trend-median-done">{days(l.medianDaysToDone)}</dd>
          </div>
          <div title="Items of the Broken contract list on the window's nights whose count is known">
            <dt>Broken contract</dt>
            <dd data-testid="trend-breaches" className={l.breaches.total > 0 ? 'trend-cap-hit' : undefined}>
              {l.breaches.total}
            </dd>
          </div>
          <div title={awaiting.title}>
            <dt>Awaiting merge</dt>
            <dd data-testid="trend-awaiting-merge">{awaiting.text}</dd>
          </div>
        </dl>
      </header>
      {l.flags.length > 0 ? (
        <ul className="trend-flags" aria-label={`Regressions in ${l.loop}`}>
          {l.flags.map((f) => (
            <li key={`${f.kind}-${f.date}-${f.kind === 'phase-slow' ? f.phase : ''}`} className="trend-flag" data-testid={`trend-flag-${f.kind}`}>
              <strong>{FLAG_LABEL[f.kind]}</strong> {f.text}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small trend-noflags" data-testid="trend-no-flags">
          No regressions in this window.
        </p>
      )}
      <TrendsImprovement report={l} />
      <div className="trend-grid">
        <TrendsChart id="outcomes" title="Cycles by outcome" unit="per night" kind="bars" rows={rows.outcomes} series={outcomeSeries} flagged={flaggedOn(l, 'success-drop')} yTicks={[0, 1]} />
        <TrendsChart id="durations" title="Phase durations" unit="hours" kind="lines" rows={rows.durations} series={phaseSeries} flagged={flaggedOn(l, 'phase-slow')} format={hours}>
          <table ref={scrollFocus} className="trend-phases">
            <thead>
              <tr>
                <th scope="col">Phase</th>
                <th scope="col">Runs</th>
                <th scope="col">p50</th>
                <th scope="col">p95</th>
                <th scope="col">Cap hits</th>
                <th scope="col" title="Stamped ok or no-op with backlog items of its audit or earlier left without a DONE, BLOCKED or operator-only outcome">Hollow</th>
              </tr>
            </thead>
            <tbody>
              {l.phases.map((p) => (
                <tr key={p.phase} data-testid={`trend-phase-${p.phase}`}>
                  <th scope="row">{p.phase}</th>
                  <td className="num">{p.runs}</td>
                  <td className="num">{p.p50Ms === null ? '—' : formatDuration(p.p50Ms)}</td>
                  <td className="num">{p.p95Ms === null ? '—' : formatDuration(p.p95Ms)}</td>
                  <td className={`num${p.capHits > 0 ? ' trend-cap-hit' : ''}`}>{p.capHits}</td>
                  <td className={`num${p.hollow > 0 ? ' trend-cap-hit' : ''}`}>{p.hollow}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TrendsChart>
        <TrendsChart id="findings" title="Findings opened ↑ and closed ↓" unit="per night, by severity" kind="bars" rows={rows.findings} series={shownFindings} flagged={flaggedOn(l, 'p0-spike')} />
        <TrendsBreaches trends={l} />
        <TrendsSuites trends={l} />
        <TrendsCost trends={l} />
        <TrendsMerge report={l} />
        <TrendsChart id="backlog" title="Open backlog" unit="findings at the end of each night" kind="lines" rows={rows.backlog} series={[{ key: 'backlog', name: 'open findings', color: 'var(--accent)' }]} />
      </div>
    </section>
  );
}
