import { useEffect } from 'react';
import type { PhaseKey } from './selection';
import { useDeck } from '../../store';
import { LoopSection } from './LoopSection';

/** Props of the loops view. */
export interface LoopsViewProps {
  selection: PhaseKey | null;
  onSelect: (key: PhaseKey) => void;
  /** The loop named by `#/loops/<loop>`: scrolled to and highlighted. */
  focusLoop?: string | null;
}

/** Every configured loop with its recent cycles, or what to do when there are none. */
export function LoopsView({ selection, onSelect, focusLoop = null }: LoopsViewProps) {
  const names = useDeck((s) => s.loopNames);
  const loops = useDeck((s) => s.loops);
  const configPath = useDeck((s) => s.info?.config.path);
  const focusKnown = focusLoop !== null && names.includes(focusLoop);
  useEffect(() => {
    if (!focusKnown || focusLoop === null) return;
    const el = document.querySelector<HTMLElement>(`[data-testid="loop-${CSS.escape(focusLoop)}"]`);
    el?.scrollIntoView({ block: 'start' });
    el?.focus({ preventScroll: true });
  }, [focusLoop, focusKnown]);
  if (names.length === 0) {
    return (
      <div className="empty card">
        <h2>No loops configured</h2>
        <p>
          Add a loop under <code>loops:</code> in <code>{configPath ?? 'the config file'}</code>, naming its host, its{' '}
          <code>runs</code> folder and its phases. Loopdeck picks the change up when you save.
        </p>
      </div>
    );
  }
  return (
    <div className="loops">
      {names.map((name) => {
        const loop = loops[name];
        return loop ? <LoopSection key={name} loop={loop} selection={selection} onSelect={onSelect} focused={name === focusLoop} /> : null;
      })}
    </div>
  );
}
