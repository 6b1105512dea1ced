import type { Cycle } from '../../../../shared/domain';
import { weekdayOf } from '../../ui/format';
import { sameKey, type PhaseKey } from './selection';
import { PhaseSegment } from './PhaseSegment';
import { StatusBadge } from '../../ui/StatusBadge';
import { routeHash } from '../../ui/route';

/** Props of one cycle row. */
export interface CycleRowProps {
  loop: string;
  cycle: Cycle;
  selection: PhaseKey | null;
  onSelect: (key: PhaseKey) => void;
}

/** One daily cycle: its date and status, then one segment per phase in configured order. */
export function CycleRow({ loop, cycle, selection, onSelect }: CycleRowProps) {
  return (
    <li className="cycle" data-testid={`cycle-${loop}-${cycle.date}`} data-status={cycle.status}>
      <div className="cycle-when">
        <div className="cycle-date">
          <span className="weekday">{weekdayOf(cycle.date)}</span>
          <span className="date">{cycle.date}</span>
        </div>
        <StatusBadge status={cycle.status} />
        {cycle.status !== 'pending' ? (
          <a className="console-link small cycle-compare" href={routeHash({ view: 'compare', loop, a: cycle.date, b: null })} data-testid={`compare-link-${loop}-${cycle.date}`} title="Compare this night with the last night before it whose cycle was ok or ready">
            compare with the last good night
          </a>
        ) : null}
      </div>
      <div className="bar">
        {cycle.phases.length === 0 ? <span className="muted small">No phases recorded for this cycle.</span> : null}
        {cycle.phases.map((phase) => {
          const key = { loop, date: cycle.date, phase: phase.name };
          return (
            <PhaseSegment
              key={phase.name}
              loop={loop}
              date={cycle.date}
              phase={phase}
              selected={sameKey(selection, key)}
              onSelect={() => onSelect(key)}
            />
          );
        })}
      </div>
    </li>
  );
}
