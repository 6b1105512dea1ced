import type { Phase } from '../../../../shared/domain';
import type { LogClaims, SuiteBaseline } from '../../../../shared/night-suites';
import { formatCount, phaseSuiteTotals, suiteSentence, type SuiteResult } from '../../../../shared/suite-summary';
import { formatDuration } from '../../ui/format';
import { routeHash } from '../../ui/route';
import type { PhaseKey } from './selection';

const RUNNER: Readonly<Record<SuiteResult['runner'], string>> = { pytest: 'pytest', vitest: 'vitest', jest: 'jest', node: 'node --test', go: 'go test', cargo: 'cargo test', prose: 'suite', gates: 'gates' };

/** One run's counts: `32,821 passed, 8 failed, 2 skipped` (gates: `3 passed, 1 failed: suite`). */
function counts(r: SuiteResult): string {
  const parts = [`${formatCount(r.passed)} passed`, `${formatCount(r.failed)} failed`];
  if (r.skipped > 0) parts.push(`${formatCount(r.skipped)} skipped`);
  if (r.errors > 0) parts.push(`${formatCount(r.errors)} errors`);
  return parts.join(', ') + (r.failedNames.length > 0 ? `: ${r.failedNames.join(', ')}` : '');
}

/**
 * The suites a phase's transcript ran (their summary lines and gate lines, FORMATS.md §2.8): the
 * phase's totals against the loop's baseline of known failures, then each run with a link to its line.
 */
export function PhaseSuites({ phase, selection, baseline, claims }: { phase: Phase; selection: PhaseKey; baseline: SuiteBaseline | null; claims: LogClaims | null }) {
  if ((!phase.suites || phase.suites.length === 0) && claims === null) return null;
  const totals = phase.suites ? phaseSuiteTotals(phase.suites) : null;
  return (
    <section className="detail-section" data-testid="phase-suites">
      <h3>Suites</h3>
      {claims ? (
        <p className="small" data-testid="phase-log-claims" title="What the night's RELIABILITY_LOG.md rows say, beside what the transcript printed">
          The log&apos;s rows of this night: {claims.rows.map((r) => `${r.id} ${r.outcome}${r.red !== null || r.green !== null ? ` (red ${r.red ?? '—'} / green ${r.green ?? '—'})` : ''}`).join(', ')}
          {claims.red !== null || claims.green !== null ? ` — red ${claims.red ?? '—'} / green ${claims.green ?? '—'} in all` : ''}
        </p>
      ) : null}
      {totals ? (
        <p className={totals.failed > (baseline?.failed ?? 0) ? 'suite-total suite-bad' : 'suite-total'} data-testid="phase-suite-total">
          {suiteSentence(totals, baseline?.failed ?? null)}
          {baseline ? <span className="muted small"> ({baseline.from === 'declared' ? 'knownFailures in the config' : `baseline learned from ${baseline.nights} green nights`})</span> : null}
        </p>
      ) : null}
      <ul className="suite-list">
        {(phase.suites ?? []).map((r) => (
          <li key={`${r.runner}:${r.line}`} className="small" data-testid={`phase-suite-${r.runner}`}>
            <span className="suite-runner">{RUNNER[r.runner]}</span> {counts(r)}
            {r.durationMs !== null ? <span className="muted"> in {formatDuration(r.durationMs)}</span> : null}{' '}
            <a className="console-link" href={routeHash({ view: 'log', ...selection, line: r.line })}>
              line {formatCount(r.line)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
