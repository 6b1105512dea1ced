import { describe, expect, it } from 'vitest';
import type { NightComparison, PhaseComparison } from '../../../../shared/night-compare';
import { deltaText, firstParting, phaseDiffers, rcText, suiteDeltaText } from './compare';

const side = (status: 'ok' | 'failed') => ({ status, reason: '', startedAt: null, endedAt: null, durationMs: null, rounds: 1, cause: null, commits: { count: 0, first: [] }, transcriptBytes: 10 });
const phase = (name: string, over: Partial<PhaseComparison> = {}): PhaseComparison => ({ name, a: side('ok'), b: side('ok'), firstRcDivergence: null, firstLineDivergence: null, transcript: { lines: 10, stopped: null }, ...over });

describe('what the compare view says', () => {
  it('signed changes and rc values', () => {
    expect([deltaText(3), deltaText(-1234), deltaText(0), deltaText(null)]).toEqual(['+3', '−1,234', '±0', null]);
    expect([rcText(2), rcText(null)]).toEqual(['rc 2', 'not run']);
  });

  it('a runner on both nights, and on one', () => {
    const t = (passed: number, failed: number) => ({ passed, failed, skipped: 0, errors: 0 });
    expect(suiteDeltaText({ runner: 'pytest', a: t(32820, 9), b: t(32821, 8), passed: -1, failed: 1 })).toBe('pytest: 32,820 passed / 9 failed against 32,821 passed / 8 failed (failed +1, passed −1)');
    expect(suiteDeltaText({ runner: 'go', a: t(3, 0), b: null, passed: null, failed: null })).toBe('go: 3 passed / 0 failed against not run');
  });

  it('the first phase that differs: by status, an rc step, a line, or a suite count; none when they agree', () => {
    expect(phaseDiffers(phase('audit'))).toBe(false);
    expect(phaseDiffers(phase('x', { b: side('failed') }))).toBe(true);
    expect(phaseDiffers(phase('x', { firstRcDivergence: { stage: 'gates', step: 'suite', a: 1, b: 0 } }))).toBe(true);
    expect(phaseDiffers(phase('x', { firstLineDivergence: { lineA: 3, lineB: 3, a: 'a', b: 'b' } }))).toBe(true);
    expect(phaseDiffers(phase('x', { suites: [{ runner: 'pytest', a: null, b: null, passed: 0, failed: 2 }] }))).toBe(true);
    const c = { phases: [phase('audit'), phase('remediate', { b: side('failed') }), phase('deliver', { b: null })] } as unknown as NightComparison;
    expect(firstParting(c)?.name).toBe('remediate');
    expect(firstParting({ phases: [phase('audit')] } as unknown as NightComparison)).toBeNull();
  });
});
