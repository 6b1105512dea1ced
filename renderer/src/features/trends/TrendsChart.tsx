import { useRef, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { useElementWidth } from '../../ui/react-hooks';

/** One drawn series: a bar (stacked by `stack`) or a line, coloured from the theme's CSS variables. */
export interface TrendSeries {
  readonly key: string;
  readonly name: string;
  readonly color: string;
  readonly stack?: string;
  readonly faded?: boolean;
}

/** A chart's rows: one a night, `date` plus a number (or null) per series key. */
export type TrendRow = Readonly<Record<string, string | number | null>> & { readonly date: string };

/** Props of one trends chart. */
export interface TrendsChartProps {
  readonly id: string;
  readonly title: string;
  readonly unit?: string;
  readonly kind: 'bars' | 'lines';
  readonly rows: readonly TrendRow[];
  readonly series: readonly TrendSeries[];
  /** Nights to mark with a regression line. */
  readonly flagged?: readonly string[];
  readonly format?: (v: number) => string;
  /** Fixed y ticks (a loop runs at most one cycle a night: 0 and 1). */
  readonly yTicks?: readonly number[];
  readonly children?: ReactNode;
}

const H = 170;
const M = { top: 10, right: 12, bottom: 0, left: 0 };
const AXIS = { fontSize: 11, fill: 'var(--muted)' };
const short = (d: string): string => d.slice(5);

/** A nightly chart (stacked bars or lines) drawn with recharts, with flagged nights marked. */
export function TrendsChart({ id, title, unit, kind, rows, series, flagged = [], format, yTicks, children }: TrendsChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const data = rows as TrendRow[];
  const tickFormatter = format ? (v: number) => format(Math.abs(v)) : (v: number) => String(Math.abs(v));
  const common = (
    <>
      <CartesianGrid vertical={false} stroke="var(--chart-grid)" />
      <XAxis dataKey="date" tickFormatter={short} tick={AXIS} tickLine={false} stroke="var(--line-strong)" minTickGap={14} />
      <YAxis
        width={44}
        tick={AXIS}
        tickLine={false}
        axisLine={false}
        allowDecimals={false}
        tickFormatter={tickFormatter}
        {...(yTicks ? { ticks: yTicks as number[], domain: [yTicks[0] ?? 0, yTicks[yTicks.length - 1] ?? 1] } : {})}
      />
      <Tooltip
        cursor={{ fill: 'var(--hover)', stroke: 'var(--line-strong)' }}
        contentStyle={{ background: 'var(--tip-bg)', border: '1px solid var(--line)', color: 'var(--text)', fontSize: 12 }}
        labelStyle={{ color: 'var(--text)', fontWeight: 600 }}
        formatter={(v) => (typeof v === 'number' ? tickFormatter(v) : String(v))}
      />
      {flagged.map((d) => (
        <ReferenceLine key={d} x={d} stroke="var(--fail-line)" strokeWidth={2} strokeDasharray="4 3" className="trend-flag-line" />
      ))}
    </>
  );
  return (
    <figure className="trend-chart" data-testid={`trend-chart-${id}`} data-points={rows.length}>
      <figcaption className="trend-chart-title">
        {title} {unit ? <span className="muted">{unit}</span> : null}
      </figcaption>
      <ul className="trend-legend">
        {series.map((s) => (
          <li key={s.key}>
            <span className="trend-swatch" style={{ background: s.color, opacity: s.faded ? 0.55 : 1 }} aria-hidden="true" />
            {s.name}
          </li>
        ))}
      </ul>
      <div className="trend-plot" ref={box}>
        {width > 0 && kind === 'bars' ? (
          <BarChart width={width} height={H} margin={M} data={data} stackOffset="sign" barCategoryGap="18%">
            {common}
            {series.map((s) => (
              <Bar key={s.key} dataKey={s.key} name={s.name} stackId={s.stack ?? 'all'} fill={s.color} fillOpacity={s.faded ? 0.55 : 1} isAnimationActive={false} />
            ))}
          </BarChart>
        ) : null}
        {width > 0 && kind === 'lines' ? (
          <LineChart width={width} height={H} margin={M} data={data}>
            {common}
            {series.map((s) => (
              <Line key={s.key} dataKey={s.key} name={s.name} stroke={s.color} strokeWidth={1.75} dot={rows.length <= 31 ? { r: 2 } : false} connectNulls isAnimationActive={false} type="linear" />
            ))}
          </LineChart>
        ) : null}
      </div>
      {children}
    </figure>
  );
}
