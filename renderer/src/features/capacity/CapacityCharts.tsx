import { useMemo, useState } from 'react';
import type { Capacity, LoopState } from '../../../../shared/domain';
import {
  busiestHosts,
  CAPACITY_RANGES,
  errorStatuses,
  HOST_COLORS,
  hostKey,
  metricValues,
  phaseBands,
  timeTicks,
  type CapacityRange,
  type HistorySeries,
  type LineMetric,
} from './capacity';
import { useCapacityHistory } from './use-capacity-history';
import { useDeck } from '../../store';
import { CapacityChart, type ChartFrame, type ChartLine } from './CapacityChart';
import { CapacityPhases } from './CapacityPhases';

/** How many hosts the charts show until the operator picks. */
export const DEFAULT_TOP_N = 5;

/** The charts; an `exposed` one is drawn only when a shown host exposes it (a KV-cache gauge, a token counter). */
const METRICS: readonly { metric: LineMetric; title: string; unit: string; exposed?: true }[] = [
  { metric: 'slotsBusy', title: 'Busy slots', unit: 'slots' },
  { metric: 'inflight', title: 'In-flight', unit: 'requests' },
  { metric: 'queued', title: 'Queued', unit: 'requests' },
  { metric: 'requestRate', title: 'Request rate', unit: 'req/s' },
  { metric: 'kvCache', title: 'KV-cache', unit: '% in use', exposed: true },
  { metric: 'tokenRate', title: 'Generated tokens', unit: 'tokens/s', exposed: true },
];
const DASHES = [undefined, '5 3', '2 2', '8 3 2 3'];
const RANGE_LABEL: Readonly<Record<CapacityRange, string>> = { '1h': '1 h', '24h': '24 h', '7d': '7 d', '30d': '30 d' };
const NO_SERIES: readonly HistorySeries[] = [];

function loopList(loops: Readonly<Record<string, LoopState>>): LoopState[] {
  return Object.values(loops);
}

/** Range switcher, warnings, host picker and one chart per metric with a line per host, phases shaded. */
export function CapacityCharts({ capacity }: { capacity: readonly Capacity[] }) {
  const [range, setRange] = useState<CapacityRange>('24h');
  const [picked, setPicked] = useState<readonly string[] | null>(null);
  const [hoverT, setHoverT] = useState<number | null>(null);
  const { history, range: shownRange, loading, error } = useCapacityHistory(range);
  const loops = useDeck((s) => s.loops);
  const series = history?.series ?? NO_SERIES;

  const colors = useMemo(() => {
    const keys = [...capacity.map((c) => hostKey(c.proxy, c.host)), ...series.map((s) => hostKey(s.proxy, s.host))];
    const map = new Map<string, string>();
    for (const k of keys) if (!map.has(k)) map.set(k, HOST_COLORS[map.size % HOST_COLORS.length]!);
    return map;
  }, [capacity, series]);
  const ranked = useMemo(() => busiestHosts(series), [series]);
  const selected = useMemo(() => new Set(picked ?? ranked.slice(0, DEFAULT_TOP_N)), [picked, ranked]);
  const shown = useMemo(() => series.filter((s) => selected.has(hostKey(s.proxy, s.host))), [series, selected]);
  const dupHost = useMemo(() => new Set(series.map((s) => s.host)).size < series.length, [series]);
  const label = useMemo(() => (s: HistorySeries) => (dupHost ? `${s.proxy}/${s.host}` : s.host), [dupHost]);

  const frame = useMemo<ChartFrame | null>(() => {
    if (!history || !shownRange) return null;
    const from = Date.parse(history.from);
    const to = Date.parse(history.to);
    return { from, to, range: shownRange, ticks: timeTicks(from, to, shownRange), bands: phaseBands(loopList(loops), from, to) };
  }, [history, shownRange, loops]);

  const lines = useMemo(() => {
    const out: Record<string, ChartLine[]> = {};
    for (const { metric } of METRICS) {
      out[metric] = shown.flatMap((s) => {
        const values = metricValues(s, metric);
        const key = hostKey(s.proxy, s.host);
        return values ? [{ id: key, name: label(s), color: colors.get(key) ?? '#888', times: s.t, values }] : [];
      });
    }
    const statuses = errorStatuses(shown);
    out.errors = shown.flatMap((s) =>
      Object.entries(s.errors).map(([status, values]) => {
        const key = hostKey(s.proxy, s.host);
        const dash = DASHES[statuses.indexOf(status) % DASHES.length];
        return { id: `${key}#${status}`, name: `${label(s)} ${status}`, color: colors.get(key) ?? '#888', ...(dash ? { dash } : {}), times: s.t, values };
      }),
    );
    return out;
  }, [shown, colors, label]);
  const statuses = useMemo(() => errorStatuses(shown), [shown]);

  const toggle = (key: string) => {
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setPicked([...next]);
  };

  return (
    <section className="cap-charts card" aria-labelledby="cap-charts-title" data-range={shownRange ?? ''} data-loading={String(loading)}>
      <header className="cap-charts-head">
        <h2 id="cap-charts-title">History</h2>
        <div className="cap-ranges" role="group" aria-label="Range">
          {CAPACITY_RANGES.map((r) => (
            <button
              key={r}
              type="button"
              className={`toggle${r === range ? ' on' : ''}`}
              aria-pressed={r === range}
              data-testid={`capacity-range-${r}`}
              onClick={() => setRange(r)}
            >
              {RANGE_LABEL[r]}
            </button>
          ))}
        </div>
        {loading ? <span className="muted small">loading…</span> : null}
        {frame ? <span className="muted small cap-window">{series.length} hosts · phases of {Object.keys(loops).length} loops shaded</span> : null}
      </header>
      {error ? (
        <p className="callout callout-bad cap-callout" role="alert">
          Could not load the history: {error}
        </p>
      ) : null}
      {history && history.warnings.length > 0 ? (
        // The live region wraps the list: a role on the <ul> itself would take away its list semantics.
        <div role="status">
          <ul className="callout callout-warn cap-warnings" data-testid="capacity-warnings">
            {history.warnings.map((w) => (
              <li key={w}>
                <strong>⚠</strong> {w}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {series.length > 0 ? (
        <div className="cap-picker" role="group" aria-label="Hosts shown">
          <span className="toggles-label">Hosts</span>
          <button type="button" className={`toggle${picked === null ? ' on' : ''}`} onClick={() => setPicked(null)}>
            Top {Math.min(DEFAULT_TOP_N, series.length)} busiest
          </button>
          <button type="button" className="toggle" onClick={() => setPicked(series.map((s) => hostKey(s.proxy, s.host)))}>
            All {series.length}
          </button>
          {ranked.map((key) => {
            const s = series.find((x) => hostKey(x.proxy, x.host) === key);
            return s ? (
              <button
                key={key}
                type="button"
                className={`cap-host-chip${selected.has(key) ? ' on' : ''}`}
                aria-pressed={selected.has(key)}
                onClick={() => toggle(key)}
                data-testid={`capacity-pick-${s.proxy}-${s.host}`}
              >
                <span className="cap-swatch" style={{ background: colors.get(key) }} aria-hidden="true" />
                {label(s)}
              </button>
            ) : null;
          })}
        </div>
      ) : null}
      {frame ? (
        <>
          <PhaseLegend />
          <CapacityPhases frame={frame} />
          <div className="cap-chart-list">
            {METRICS.filter((m) => !m.exposed || (lines[m.metric]?.length ?? 0) > 0).map(({ metric, title, unit }) => (
              <CapacityChart key={metric} metric={metric} title={title} unit={unit} lines={lines[metric] ?? []} frame={frame} hoverT={hoverT} onHover={setHoverT} />
            ))}
            <CapacityChart
              metric="errors"
              title="Errors by status"
              unit={`per s · ${statuses.map((st, i) => `${st} ${['solid', 'dashed', 'dotted', 'dash-dot'][i % 4]}`).join(' · ') || 'none'}`}
              lines={lines.errors ?? []}
              frame={frame}
              hoverT={hoverT}
              onHover={setHoverT}
            />
          </div>
        </>
      ) : !error ? (
        <p className="muted cap-chart-empty">Loading history…</p>
      ) : null}
    </section>
  );
}

function PhaseLegend() {
  return (
    <p className="cap-phase-legend small muted">
      Shaded: loop phases —{' '}
      {(['running', 'ok', 'ready', 'incomplete', 'failed'] as const).map((s) => (
        <span key={s} className={`cap-legend-item status-${s}`}>
          <span className="cap-legend-box" aria-hidden="true" />
          {s}
        </span>
      ))}{' '}
      · hover a chart for values and phases
    </p>
  );
}
