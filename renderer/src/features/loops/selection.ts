import type { Cycle, LoopState, Phase } from '../../../../shared/domain';

/** Which phase the detail panel shows, by names, so live updates keep it open on the same phase. */
export interface PhaseKey {
  readonly loop: string;
  readonly date: string;
  readonly phase: string;
}

/** Whether two keys name the same phase. */
export function sameKey(a: PhaseKey | null, b: PhaseKey): boolean {
  return !!a && a.loop === b.loop && a.date === b.date && a.phase === b.phase;
}

/** The cycle and phase a key names in the current state, when they still exist. */
export function findPhase(loop: LoopState | undefined, key: PhaseKey): { cycle: Cycle; phase: Phase } | null {
  const cycle = loop?.cycles.find((c) => c.date === key.date);
  const phase = cycle?.phases.find((p) => p.name === key.phase);
  return cycle && phase ? { cycle, phase } : null;
}
