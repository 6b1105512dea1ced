import type { LoopState } from '../../../../shared/domain';
import { newestFirst } from '../../ui/format';
import type { PhaseKey } from './selection';
import { useDeck } from '../../store';
import { CycleRow } from './CycleRow';
import { DeadmanBadge } from './DeadmanBadge';
import { Timeline } from './Timeline';

/** Props of one loop's section. */
export interface LoopSectionProps {
  loop: LoopState;
  selection: PhaseKey | null;
  onSelect: (key: PhaseKey) => void;
  /** Opened by `#/loops/<loop>`: highlighted (and focusable, so it can take focus). */
  focused?: boolean;
}

/** A loop: its name, dead-man state and host, a timeline of its recent cycles, then a row per cycle, newest first. */
export function LoopSection({ loop, selection, onSelect, focused = false }: LoopSectionProps) {
  const hostState = useDeck((s) => s.hosts.find((h) => h.name === loop.host)?.state);
  const cycles = newestFirst(loop.cycles);
  return (
    <section
      className={`loop card${focused ? ' focused' : ''}`}
      data-testid={`loop-${loop.name}`}
      aria-labelledby={`loop-title-${loop.name}`}
      tabIndex={focused ? -1 : undefined}
    >
      <header className="loop-head">
        <h2 id={`loop-title-${loop.name}`}>{loop.name}</h2>
        <DeadmanBadge loop={loop.name} deadman={loop.deadman} />
        <span className="loop-host">
          on <strong>{loop.host}</strong>
          {hostState && hostState !== 'connected' ? <span className="host-warn"> · host {hostState}</span> : null}
        </span>
        <span className="loop-count">
          {cycles.length} {cycles.length === 1 ? 'cycle' : 'cycles'}
        </span>
      </header>
      {cycles.length === 0 ? (
        <p className="empty-inline">
          No cycles found yet. The first one appears when the loop next fires and writes its run folder; check the
          loop&apos;s <code>runs</code> path in the config if it should already have run.
        </p>
      ) : (
        <>
          <Timeline loop={loop.name} cycles={loop.cycles} selection={selection} onSelect={onSelect} />
          <ol className="cycles">
            {cycles.map((cycle) => (
              <CycleRow key={cycle.date} loop={loop.name} cycle={cycle} selection={selection} onSelect={onSelect} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
