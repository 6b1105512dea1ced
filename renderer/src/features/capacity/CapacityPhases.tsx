import { useRef } from 'react';
import type { PhaseBand } from './capacity';
import { formatDuration } from '../../ui/format';
import { useElementWidth } from '../../ui/react-hooks';
import { PLOT_LEFT, PLOT_RIGHT, type ChartFrame } from './CapacityChart';

const LANE = 15;
const GAP = 3;
const WHEN = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

function title(b: PhaseBand): string {
  return `${b.loop} · ${b.phase} · cycle ${b.date} · ${b.status}\n${WHEN.format(b.start)} → ${b.running ? 'now' : WHEN.format(b.end)} (${formatDuration(b.end - b.start)})`;
}

/**
 * The loops' phases on the charts' time axis, one lane per loop, so the shaded bands behind the
 * charts can be told apart: which loop, which phase. Hover a bar for its times.
 */
export function CapacityPhases({ frame }: { frame: ChartFrame }) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const loops = [...new Set(frame.bands.map((b) => b.loop))];
  const plotW = Math.max(1, width - PLOT_LEFT - PLOT_RIGHT);
  const span = Math.max(1, frame.to - frame.from);
  const xOf = (t: number) => PLOT_LEFT + ((t - frame.from) / span) * plotW;
  const height = loops.length * (LANE + GAP);
  return (
    <div className="cap-phases" data-testid="capacity-phases">
      <div ref={box}>
      {loops.length === 0 ? (
        <p className="muted small cap-phases-none">No loop phase ran in this window.</p>
      ) : width > 0 ? (
        <svg width={width} height={height} role="img" aria-label={`Phases of ${loops.join(', ')} in this window`}>
          {loops.map((loop, i) => {
            const y = i * (LANE + GAP);
            return (
              <g key={loop}>
                <rect x={PLOT_LEFT} y={y} width={plotW} height={LANE} className="tl-lane" rx={2} />
                {frame.bands
                  .filter((b) => b.loop === loop)
                  .map((b) => {
                    const x = xOf(b.x1);
                    const w = Math.max(2, xOf(b.x2) - x);
                    return (
                      <g key={b.key} className={`cap-phase status-${b.status}`}>
                        <title>{title(b)}</title>
                        <rect x={x} y={y} width={w} height={LANE} rx={2} />
                        {w > 64 ? (
                          <text x={x + 4} y={y + LANE / 2} dominantBaseline="central" className="cap-phase-name">
                            {b.phase}
                          </text>
                        ) : null}
                      </g>
                    );
                  })}
                <text x={PLOT_LEFT - 6} y={y + LANE / 2} textAnchor="end" dominantBaseline="central" className="cap-phase-loop">
                  {loop.length > 7 ? `${loop.slice(0, 6)}…` : loop}
                  <title>{loop}</title>
                </text>
              </g>
            );
          })}
        </svg>
      ) : null}
      </div>
    </div>
  );
}
