import type { Phase, PhaseContention, Verdict } from '../../../../shared/domain';
import { contentionText } from './contention-text';
import { formatDateTime, formatDuration } from '../../ui/format';
import { routeHash } from '../../ui/route';
import { findPhase, type PhaseKey } from './selection';
import { useDeck } from '../../store';
import { ExternalLink } from '../../ui/ExternalLink';
import { StageCard } from './StageCard';
import { PhaseCommits } from './PhaseCommits';
import { StatusBadge } from '../../ui/StatusBadge';
import { CauseLine } from '../../ui/CauseLine';
import { UncertifiedNote } from '../../ui/UncertifiedNote';
import { PhaseSuites } from './PhaseSuites';
import { logClaims, loopBaselineAt } from '../../../../shared/night-suites';

// Only https URLs become links, opened outside the app (the system browser, in Electron).
function VerdictLinks({ verdict }: { verdict: Verdict }) {
  if (verdict.urls.length === 0) return null;
  return (
    <ul className="links" aria-label="Links in the verdict">
      {verdict.urls.map((raw, i) => (
        <li key={`${i}:${raw}`}>
          <ExternalLink url={raw} />
        </li>
      ))}
    </ul>
  );
}

const SIGNAL_WORDS = { hung: 'Hung', spinning: 'Spinning', watchdog: 'Killed by the stream watchdog' } as const;

/** What a running phase's transcript tells: "Hung since …, last line N", the line a link into the transcript. */
function SignalLine({ phase, selection }: { phase: Phase; selection: PhaseKey }) {
  const signal = phase.signal;
  if (!signal || phase.status !== 'running') return null;
  return (
    <p className={`callout ${signal.kind === 'spinning' ? 'callout-warn' : 'callout-bad'}`} data-testid="phase-signal" data-kind={signal.kind} title={signal.detail}>
      {SIGNAL_WORDS[signal.kind]} since {formatDateTime(signal.since) ?? signal.since}
      {signal.line === null ? null : (
        <>
          ,{' '}
          <a className="console-link" href={routeHash({ view: 'log', ...selection, line: signal.line })} data-testid="phase-signal-line">
            {signal.kind === 'hung' ? 'last line' : 'line'} {signal.line}
          </a>
        </>
      )}
    </p>
  );
}

/**
 * The runner's load while the phase ran, as sampled (contention-text.ts): a small line, a warning
 * when it was contended.
 */
function ContentionLine({ contention: c }: { contention: PhaseContention | undefined }) {
  if (!c) return null;
  return (
    <p className={c.contended ? 'callout callout-warn' : 'small'} data-testid="phase-contention" data-contended={c.contended} title="Sampled from the runner's load average, cores and free memory while the phase ran">
      {contentionText(c)}
    </p>
  );
}

/** Props of the detail panel. */
export interface PhaseDetailProps {
  selection: PhaseKey;
  onClose: () => void;
}

/**
 * The open phase: status and why, times, wrapper detail lines, the verdict verbatim and the
 * stages. It looks the phase up by name on every render, so live updates refresh it in place.
 */
export function PhaseDetail({ selection, onClose }: PhaseDetailProps) {
  const loop = useDeck((s) => s.loops[selection.loop]);
  const backlog = useDeck((s) => s.backlog);
  const found = findPhase(loop, selection);
  const phase = found?.phase;
  const started = phase ? formatDateTime(phase.startedAt) : null;
  const ended = phase ? formatDateTime(phase.endedAt) : null;
  const ms = phase?.startedAt && phase.endedAt ? Date.parse(phase.endedAt) - Date.parse(phase.startedAt) : NaN;
  return (
    <aside id="phase-detail" className="detail" data-testid="phase-detail" aria-label="Phase detail">
      <header className="detail-head">
        <div>
          <div className="detail-crumbs">
            {selection.loop} · {selection.date}
          </div>
          <h2>{selection.phase}</h2>
        </div>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close phase detail" title="Close (Esc)">
          ×
        </button>
      </header>
      {!phase ? (
        <p className="callout callout-muted">
          This phase is no longer in the current state (the cycle may have rotated out of the loop&apos;s history).
        </p>
      ) : (
        <div className="detail-body">
          <div className="detail-status">
            <StatusBadge status={phase.status} />
            <p className="reason">{phase.reason}</p>
          </div>
          {phase.cause ? (
            <p className="detail-cause">
              <span className="muted small">Put down to </span>
              <CauseLine cause={phase.cause} testId="phase-cause" />
            </p>
          ) : null}
          {phase.hollow ? (
            <p className="callout callout-bad" data-testid="phase-hollow">
              Hollow: stamped {phase.status}, but {phase.hollow.items.join(', ')} of this cycle&apos;s audit or earlier had no DONE, BLOCKED or operator-only outcome. The contract calls that a failed remediate.
            </p>
          ) : null}
          {phase.status !== 'pending' ? (
            <p>
              <a className="console-link" href={routeHash({ view: 'log', ...selection, line: null })} data-testid="open-transcript">
                {phase.status === 'running' ? 'Follow the transcript' : 'Read the transcript'} ({selection.phase}.log) →
              </a>
            </p>
          ) : null}
          <SignalLine phase={phase} selection={selection} />
          <ContentionLine contention={phase.contention} />
          <dl className="facts">
            <dt>Started</dt>
            <dd>{started ?? '—'}</dd>
            <dt>Ended</dt>
            <dd>{ended ?? (phase.status === 'running' ? 'still running' : '—')}</dd>
            {Number.isFinite(ms) ? (
              <>
                <dt>Duration</dt>
                <dd>{formatDuration(ms)}</dd>
              </>
            ) : null}
            {phase.rounds ? (
              <>
                <dt>Rounds</dt>
                <dd data-testid="phase-rounds">{phase.rounds} (STARTED {phase.rounds} times: continued after an incomplete round)</dd>
              </>
            ) : null}
            {phase.timesFrom ? (
              <>
                <dt>Times from</dt>
                <dd>{phase.timesFrom === 'files' ? 'file times (no wrapper stamps were found)' : 'wrapper stamps'}</dd>
              </>
            ) : null}
          </dl>
          {phase.detail.length > 0 ? (
            <section className="detail-section">
              <h3>Wrapper detail</h3>
              <pre className="mono block">{phase.detail.join('\n')}</pre>
            </section>
          ) : null}
          {phase.verdict ? (
            <section className="detail-section">
              <h3>Verdict line</h3>
              <pre className="mono block verdict">{phase.verdict.line}</pre>
              {phase.verdict.lineNumber ? (
                <p className="small">
                  <a className="console-link" href={routeHash({ view: 'log', ...selection, line: phase.verdict.lineNumber })} data-testid="verdict-line">
                    Line {phase.verdict.lineNumber.toLocaleString('en-US')} of {selection.phase}.log →
                  </a>
                </p>
              ) : null}
              <VerdictLinks verdict={phase.verdict} />
            </section>
          ) : null}
          <PhaseSuites phase={phase} selection={selection} baseline={loop ? loopBaselineAt(loop, selection.date) : null} claims={phase.name === 'remediate' ? logClaims(backlog, selection.loop, selection.date) : null} />
          <UncertifiedNote uncertified={phase.uncertified} testId="phase-uncertified" />
          <PhaseCommits loop={selection.loop} commits={phase.commits} />
          <section className="detail-section">
            <h3>Stages</h3>
            {phase.stages.length === 0 ? (
              <p className="muted small">No stage rc files for this phase.</p>
            ) : (
              phase.stages.map((stage) => <StageCard key={stage.name} stage={stage} running={phase.status === 'running'} />)
            )}
          </section>
        </div>
      )}
    </aside>
  );
}
