import { memo, useId, useMemo, useRef, useState, type MouseEvent } from 'react';
import { CartesianGrid, LineChart, ReferenceArea, usePlotArea, useXAxisScale, useYAxisScale, XAxis, YAxis } from 'recharts';
import { linePath, maxValue, PATH_UNITS_PER_PX, yAxis, type Scale } from './chart-path';
import { bandsAt, nearestIndex, tickLabel, type CapacityRange, type PhaseBand } from './capacity';
import { formatDuration } from '../../ui/format';
import { useElementWidth } from '../../ui/react-hooks';

/** One line of a chart: a host (or a host's error status), with its own points. */
export interface ChartLine {
  readonly id: string;
  readonly name: string;
  readonly color: string;
  readonly dash?: string;
  /** The points' times, and their values (null: a gap); a point for each value that has a time. */
  readonly times: readonly number[];
  readonly values: readonly (number | null)[];
}

/** What every chart on the page shares: the window, its ticks and the loops' phases. */
export interface ChartFrame {
  readonly from: number;
  readonly to: number;
  readonly range: CapacityRange;
  readonly ticks: readonly number[];
  readonly bands: readonly PhaseBand[];
}

const H = 150;
/** Where every chart's plot area starts and how much room it leaves on the right, so other rows can align. */
export const PLOT_LEFT = 44;
/** Right margin of every chart's plot area. */
export const PLOT_RIGHT = 14;
const Y_W = PLOT_LEFT;
const M = { top: 8, right: PLOT_RIGHT, bottom: 0, left: 0 };
const X_H = 22;
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const VALUE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const WHEN = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

interface PlotProps {
  width: number;
  lines: readonly ChartLine[];
  frame: ChartFrame;
}

/**
 * The lines, drawn as one SVG path each through recharts' own scales. Recharts' <Line> keeps
 * every point in its store and renders it through a chain of selectors: 25 lines of 1,000 points
 * cost ~150 ms on each range switch, where building 25 path strings costs a few.
 */
function Lines({ lines }: { lines: readonly ChartLine[] }) {
  const x = useXAxisScale() as Scale | undefined;
  const y = useYAxisScale() as Scale | undefined;
  const area = usePlotArea();
  const clip = useId();
  const paths = useMemo(() => (x && y ? lines.map((l) => ({ l, d: linePath(l.times, l.values, x, y) })) : []), [lines, x, y]);
  if (!area) return null;
  return (
    <g className="cap-lines">
      <defs>
        <clipPath id={clip}>
          <rect x={area.x} y={area.y} width={area.width} height={area.height} />
        </clipPath>
      </defs>
      <g clipPath={`url(#${clip})`}>
        {/* The paths are in tenths of a pixel; their strokes and dashes stay in pixels. */}
        <g transform={`scale(${1 / PATH_UNITS_PER_PX})`}>
          {paths.map(({ l, d }) => (
            <path
              key={l.id}
              className="cap-line"
              d={d}
              fill="none"
              stroke={l.color}
              strokeWidth={1.25}
              strokeDasharray={l.dash}
              strokeLinejoin="round"
              vectorEffect="non-scaling-stroke"
            />
          ))}
        </g>
      </g>
    </g>
  );
}

// The recharts part only re-renders when its lines or the frame change, never on hover.
const Plot = memo(function Plot({ width, lines, frame }: PlotProps) {
  const y = useMemo(() => yAxis(maxValue(lines)), [lines]);
  return (
    <LineChart width={width} height={H} margin={M} accessibilityLayer={false}>
      <CartesianGrid vertical={false} stroke="var(--chart-grid)" />
      <XAxis
        dataKey="t"
        type="number"
        scale="time"
        domain={[frame.from, frame.to]}
        allowDataOverflow
        ticks={frame.ticks as number[]}
        tickFormatter={(t: number) => tickLabel(t, frame.range)}
        height={X_H}
        tick={{ fontSize: 11, fill: 'var(--muted)' }}
        tickLine={false}
        stroke="var(--line-strong)"
      />
      <YAxis
        type="number"
        width={Y_W}
        tickFormatter={(v: number) => COMPACT.format(v)}
        tick={{ fontSize: 11, fill: 'var(--muted)' }}
        tickLine={false}
        axisLine={false}
        domain={[0, y.top]}
        ticks={y.ticks}
        allowDataOverflow
      />
      {frame.bands.map((b) => (
        <ReferenceArea key={b.key} x1={b.x1} x2={b.x2} className={`cap-band status-${b.status}`} ifOverflow="hidden" />
      ))}
      <Lines lines={lines} />
    </LineChart>
  );
});

/** Props of one metric's chart. */
export interface CapacityChartProps {
  metric: string;
  title: string;
  unit: string;
  lines: readonly ChartLine[];
  frame: ChartFrame;
  /** The hovered time, shared by every chart so their cursors line up. */
  hoverT: number | null;
  onHover: (t: number | null) => void;
}

/** A read-out value: a dash where the line has none. */
const valueText = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : VALUE.format(v));

function bandText(b: PhaseBand): string {
  const end = b.running ? 'now' : WHEN.format(b.end);
  return `${b.loop} · ${b.phase} (${b.status}) · ${WHEN.format(b.start)} → ${end} · ${formatDuration(b.end - b.start)}`;
}

/** A metric over the window, one line per host, the loops' phases shaded behind, with a shared hover cursor. */
export function CapacityChart({ metric, title, unit, lines, frame, hoverT, onHover }: CapacityChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const [here, setHere] = useState(false);
  const plotL = M.left + Y_W;
  const plotW = Math.max(1, width - plotL - M.right);
  const span = Math.max(1, frame.to - frame.from);
  const xOf = (t: number) => plotL + ((t - frame.from) / span) * plotW;
  const points = lines.reduce((m, l) => Math.max(m, Math.min(l.times.length, l.values.length)), 0);

  const onMove = (e: MouseEvent<HTMLDivElement>) => {
    const x = e.clientX - e.currentTarget.getBoundingClientRect().left;
    if (x < plotL || x > plotL + plotW) return onHover(null);
    setHere(true);
    onHover(frame.from + ((x - plotL) / plotW) * span);
  };

  const cursor = hoverT !== null && hoverT >= frame.from && hoverT <= frame.to;
  const readout = cursor && here ? lines.map((l) => ({ l, i: nearestIndex(l.times, hoverT) })) : [];
  const bands = cursor && here ? bandsAt(frame.bands, hoverT) : [];
  const tipLeft = cursor ? xOf(hoverT) : 0;

  return (
    <figure className="cap-chart" data-testid={`capacity-chart-${metric}`} data-points={points}>
      <figcaption className="cap-chart-title">
        {title} <span className="muted">{unit}</span>
      </figcaption>
      <div
        className="cap-chart-plot"
        ref={box}
        onMouseMove={onMove}
        onMouseLeave={() => {
          setHere(false);
          onHover(null);
        }}
      >
        {width > 0 ? <Plot width={width} lines={lines} frame={frame} /> : null}
        {lines.length === 0 ? <p className="cap-chart-empty muted small">No data for the selected hosts in this range.</p> : null}
        {cursor ? <div className="cap-cursor" style={{ left: xOf(hoverT), top: M.top, height: H - M.top - X_H }} /> : null}
        {readout.length > 0 || bands.length > 0 ? (
          <div
            className="cap-tip"
            role="tooltip"
            style={tipLeft > width / 2 ? { right: width - tipLeft + 10 } : { left: tipLeft + 10 }}
          >
            <div className="cap-tip-when num">{WHEN.format(hoverT ?? 0)}</div>
            {readout.map(({ l, i }) => (
              <div key={l.id} className="cap-tip-row">
                <span className="cap-swatch" style={{ background: l.color }} aria-hidden="true" />
                <span className="cap-tip-name">{l.name}</span>
                <span className="num">{valueText(i >= 0 ? l.values[i] : undefined)}</span>
              </div>
            ))}
            {bands.map((b) => (
              <div key={b.key} className={`cap-tip-band status-${b.status}`}>
                {bandText(b)}
              </div>
            ))}
          </div>
        ) : null}
      </div>
    </figure>
  );
}
