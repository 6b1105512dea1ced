import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Cycle } from '../../../../shared/domain';
import { formatDuration } from '../../ui/format';
import { useElementWidth, useNow } from '../../ui/react-hooks';
import { sameKey, type PhaseKey } from './selection';
import { TIMELINE_CYCLES, timelineLayout, type TimelineBar } from './timeline';
import { StatusBadge } from '../../ui/StatusBadge';

/** Props of a loop's timeline. */
export interface TimelineProps {
  loop: string;
  cycles: readonly Cycle[];
  selection: PhaseKey | null;
  onSelect: (key: PhaseKey) => void;
}

const LABEL_W = 84;
const RIGHT = 34;
const TOP = 16;
const LANE_H = 13;
const LANE_GAP = 4;
const AXIS_H = 20;

const SHORT = new Intl.DateTimeFormat('en-GB', { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

function spanText(bar: TimelineBar): string {
  const a = SHORT.format(bar.start);
  const b = bar.running ? 'now' : SHORT.format(bar.end);
  return `${a} → ${b} · ${formatDuration(bar.end - bar.start)}`;
}

function Tooltip({ bar, left, top }: { bar: TimelineBar; left: number; top: number }) {
  return (
    <div className="tl-tip" role="tooltip" style={{ left, top }}>
      <div className="tl-tip-head">
        <strong>{bar.phase.name}</strong>
        <StatusBadge status={bar.phase.status} />
      </div>
      <div className="tl-tip-line">cycle {bar.date}</div>
      <div className="tl-tip-line num">{spanText(bar)}</div>
      <div className="tl-tip-reason">{bar.phase.reason}</div>
    </div>
  );
}

/**
 * A loop's last 14 cycles on a real time axis (earliest start to now, local-midnight ticks), one
 * lane per phase, each phase a bar coloured by status. Hover or focus shows a tooltip; a click,
 * or Enter on the focused bar (arrow keys move), opens the phase detail.
 */
export function Timeline({ loop, cycles, selection, onSelect }: TimelineProps) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const now = useNow(60_000);
  const plotW = Math.max(0, width - LABEL_W - RIGHT);
  const layout = useMemo(() => (plotW > 0 ? timelineLayout(cycles, now, plotW) : null), [cycles, now, plotW]);
  const order = useMemo(() => (layout ? [...layout.bars].sort((a, b) => a.start - b.start || a.lane - b.lane) : []), [layout]);
  const [hover, setHover] = useState<TimelineBar | null>(null);
  const [active, setActive] = useState<number | null>(null);
  const [focused, setFocused] = useState(false);

  const lanes = layout?.lanes ?? [];
  const plotH = lanes.length * (LANE_H + LANE_GAP) - LANE_GAP;
  const height = TOP + Math.max(plotH, LANE_H) + AXIS_H;
  const activeBar = active !== null ? (order[Math.min(active, order.length - 1)] ?? null) : null;
  const shown = hover ?? (focused ? activeBar : null);
  const keyOf = (bar: TimelineBar): PhaseKey => ({ loop, date: bar.date, phase: bar.phase.name });
  const laneY = (lane: number) => TOP + lane * (LANE_H + LANE_GAP);

  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    if (order.length === 0) return;
    const cur = active ?? order.length - 1;
    const next = { ArrowRight: cur + 1, ArrowLeft: cur - 1, Home: 0, End: order.length - 1 }[e.key];
    setFocused(true);
    if (next !== undefined) {
      e.preventDefault();
      setActive(Math.max(0, Math.min(order.length - 1, next)));
    } else if ((e.key === 'Enter' || e.key === ' ') && order[cur]) {
      e.preventDefault();
      onSelect(keyOf(order[cur]));
    }
  };

  return (
    <div className="timeline" ref={box} data-testid={`timeline-${loop}`}>
      {layout === null ? (
        width > 0 ? <p className="muted small tl-empty">No phase has start or end times in the last {TIMELINE_CYCLES} cycles yet.</p> : null
      ) : (
        <svg
          width={width}
          height={height}
          role="group"
          tabIndex={0}
          aria-label={`Timeline of the last ${Math.min(cycles.length, TIMELINE_CYCLES)} cycles of ${loop}. Left and right arrows move between phases, Enter opens one.`}
          aria-activedescendant={focused && activeBar ? `tl-${loop}-${activeBar.date}-${activeBar.phase.name}` : undefined}
          onKeyDown={onKey}
          onFocus={(e) => {
            // Only keyboard focus shows the focused bar's tooltip; a click shows the detail panel instead.
            if (!e.currentTarget.matches(':focus-visible')) return;
            setFocused(true);
            if (active === null) setActive(order.length - 1);
          }}
          onBlur={() => setFocused(false)}
        >
          <defs>
            <pattern id={`tl-stripes-${loop}`} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" className="tl-stripe-a" />
              <rect width="3" height="6" className="tl-stripe-b" />
            </pattern>
          </defs>
          {lanes.map((name, i) => (
            <g key={name}>
              <text x={LABEL_W - 10} y={laneY(i) + LANE_H / 2} className="tl-lane-label" textAnchor="end" dominantBaseline="central">
                {name}
              </text>
              <rect x={LABEL_W} y={laneY(i)} width={plotW} height={LANE_H} className="tl-lane" rx={2} />
            </g>
          ))}
          {layout.ticks.map((t) => (
            <g key={t.t}>
              <line x1={LABEL_W + t.x} x2={LABEL_W + t.x} y1={TOP - 2} y2={TOP + plotH + 4} className="tl-tick" />
              {t.showLabel ? (
                <text x={LABEL_W + t.x + 3} y={TOP + plotH + 14} className="tl-tick-label">
                  {t.label}
                </text>
              ) : null}
            </g>
          ))}
          <line x1={LABEL_W + layout.nowX} x2={LABEL_W + layout.nowX} y1={TOP - 2} y2={TOP + plotH + 4} className="tl-now" />
          <text x={LABEL_W + layout.nowX} y={TOP - 6} className="tl-now-label" textAnchor="middle">
            now
          </text>
          {layout.bars.map((bar) => {
            const key = keyOf(bar);
            const selected = sameKey(selection, key);
            const isActive = focused && activeBar === bar;
            return (
              <rect
                key={`${bar.date}:${bar.phase.name}`}
                id={`tl-${loop}-${bar.date}-${bar.phase.name}`}
                role="img"
                aria-label={`${bar.phase.name}, cycle ${bar.date}: ${bar.phase.status}, ${spanText(bar)}`}
                className={`tl-bar status-${bar.phase.status}${selected ? ' selected' : ''}${isActive ? ' active' : ''}`}
                data-status={bar.phase.status}
                x={LABEL_W + bar.x}
                y={laneY(bar.lane)}
                width={bar.width}
                height={LANE_H}
                rx={2}
                fill={bar.running ? `url(#tl-stripes-${loop})` : undefined}
                onMouseEnter={() => setHover(bar)}
                onMouseLeave={() => setHover((h) => (h === bar ? null : h))}
                onClick={() => {
                  setActive(order.indexOf(bar));
                  onSelect(key);
                }}
              />
            );
          })}
        </svg>
      )}
      {layout && shown ? (
        <Tooltip
          bar={shown}
          left={Math.max(4, Math.min(LABEL_W + shown.x + shown.width / 2 - 140, width - 284))}
          top={laneY(shown.lane) + LANE_H + 6}
        />
      ) : null}
    </div>
  );
}
