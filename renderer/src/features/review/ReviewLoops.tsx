import type { Deadman } from '../../../../shared/domain';
import { routeHash } from '../../ui/route';
import type { LoopReview, StopPoint } from './review';
import { useDeck } from '../../store';
import { StatusBadge } from '../../ui/StatusBadge';
import { CauseLine } from '../../ui/CauseLine';

const DEADMAN_LABEL: Readonly<Record<Deadman['state'], string>> = {
  ok: 'on schedule',
  late: 'late',
  missed: 'missed',
  stalled: 'stalled',
  overrun: 'overrun',
};

function where(stop: StopPoint): string {
  return [stop.phase, stop.stage, stop.step].filter(Boolean).join(' › ');
}

/** Where a phase stopped, a link to its transcript at the line it is about (its last screen when none). */
function Stop({ loop, stop }: { loop: string; stop: StopPoint }) {
  return (
    <a
      className="review-item rv-stop"
      href={routeHash({ view: 'log', loop, date: stop.cycle, phase: stop.phase, line: stop.line })}
      data-testid={`review-stop-${loop}-${stop.cycle}-${stop.phase}`}
      title={stop.line !== null ? `Open ${stop.phase}.log at line ${stop.line}` : `Open ${stop.phase}.log at its end`}
    >
      <span className="rv-where">
        <span className="num rv-cycle">{stop.cycle}</span>
        <StatusBadge status={stop.status} />
        <strong className="mono">{where(stop)}</strong>
        {stop.step && stop.status !== 'running' ? <span className="muted small">stopped at {stop.step}</span> : null}
      </span>
      <span className="rv-reason">{stop.reason}</span>
      {stop.cause ? <CauseLine cause={stop.cause} testId={`review-cause-${loop}-${stop.cycle}-${stop.phase}`} /> : null}
      {stop.suites ? (
        <span className="rv-suites small" data-testid={`review-suites-${loop}-${stop.cycle}-${stop.phase}`}>
          Suites: {stop.suites}
        </span>
      ) : null}
      <span className="rv-log small">{stop.line !== null ? `transcript line ${stop.line.toLocaleString('en-US')} →` : 'transcript →'}</span>
    </a>
  );
}

/**
 * One loop in the review: dead-man state and the newest cycle (a link to the loop), then where it
 * stopped and other bad phases in the window (each a link to its transcript).
 */
export function ReviewLoop({ review }: { review: LoopReview }) {
  const { loop, deadman, last, lastStop } = review;
  const reading = useDeck((s) => s.stage.state === 'reading');
  const older = review.issues.filter((i) => !(lastStop && i.cycle === lastStop.cycle && i.phase === lastStop.phase));
  return (
    <li className={`rv-loop${review.attention ? ' attention' : ''}`} data-testid={`review-loop-${loop}`}>
      <a className="review-item rv-loop-link" href={routeHash({ view: 'loops', loop })} data-testid={`review-loop-link-${loop}`}>
        <div className="rv-loop-head">
          <strong className="rv-loop-name">{loop}</strong>
          <span className="muted small">on {review.host}</span>
          {deadman ? (
            <span
              className={`deadman deadman-${deadman.state}`}
              data-testid={`review-deadman-${loop}`}
              data-state={deadman.state}
              title={deadman.reason}
            >
              <span className="dot" aria-hidden="true" />
              {DEADMAN_LABEL[deadman.state]}
            </span>
          ) : null}
          <span className="rv-last">
            {last ? (
              <>
                <span className="muted small">last cycle</span> <span className="num">{last.date}</span> <StatusBadge status={last.status} />
              </>
            ) : (
              <span className="muted small">{reading ? 'reading…' : 'no cycles yet'}</span>
            )}
          </span>
        </div>
        {review.hostProblem ? (
          <div className="rv-deadman-reason" data-testid={`review-host-${loop}`}>
            {review.hostProblem}
          </div>
        ) : null}
        {deadman && deadman.state !== 'ok' ? <div className="rv-deadman-reason">{deadman.reason}</div> : null}
      </a>
      {lastStop ? <Stop loop={loop} stop={lastStop} /> : null}
      {older.map((i) => (
        <Stop key={`${i.cycle}/${i.phase}`} loop={loop} stop={i} />
      ))}
    </li>
  );
}
