import type { NightComparison, PhaseComparison, PhaseSide, SuiteDelta } from '../../../../shared/night-compare';
import { formatCount } from '../../../../shared/suite-summary';

// What the compare view says of two nights, as plain text: each rule once, tested without a page.

/** A signed change: `+3`, `−2`, `±0`; null when either night did not run it. */
export function deltaText(n: number | null): string | null {
  if (n === null) return null;
  return n > 0 ? `+${formatCount(n)}` : n < 0 ? `−${formatCount(-n)}` : '±0';
}

/** One runner's counts on both nights and their change: `pytest: 32,821 passed / 40 failed against 32,822 / 39 (failed +1)`. */
export function suiteDeltaText(d: SuiteDelta): string {
  const side = (t: SuiteDelta['a']): string => (t === null ? 'not run' : `${formatCount(t.passed)} passed / ${formatCount(t.failed)} failed`);
  const failed = deltaText(d.failed);
  return `${d.runner}: ${side(d.a)} against ${side(d.b)}${failed === null ? '' : ` (failed ${failed}, passed ${deltaText(d.passed) ?? '—'})`}`;
}

/** Whether a phase differs between the nights at all: its status, an rc step, a transcript line or a suite count. */
export function phaseDiffers(p: PhaseComparison): boolean {
  return (
    p.a?.status !== p.b?.status ||
    p.firstRcDivergence !== null ||
    p.firstLineDivergence !== null ||
    (p.suites ?? []).some((s) => (s.failed ?? 0) !== 0 || (s.passed ?? 0) !== 0 || (s.a === null) !== (s.b === null))
  );
}

/** The first phase where the nights part (the one to read first), or null when they agree throughout. */
export function firstParting(c: NightComparison): PhaseComparison | null {
  return c.phases.find(phaseDiffers) ?? null;
}

/** A phase's rounds, as a word: `—` when it never stamped STARTED. */
export function roundsText(side: PhaseSide | null): string {
  return side === null || side.rounds === 0 ? '—' : String(side.rounds);
}

/** An rc value as the rc file has it: a number, or `not run`. */
export function rcText(rc: number | null): string {
  return rc === null ? 'not run' : `rc ${rc}`;
}
