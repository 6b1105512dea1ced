import type { Deadman } from '../../../../shared/domain';
import { routeHash } from '../../ui/route';
import type { LoopReview, StopPoint } from './review';
import { useDeck } from '../../store';
import { StatusBadge } from '../../ui/StatusBadge';

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

function Stop({ stop }: { stop: StopPoint }) {
  return (
    <div className="rv-stop">
      <span className="rv-where">
        <span className="num rv-cycle">{stop.cycle}</span>
        <StatusBadge status={stop.status} />
        <strong className="mono">{where(stop)}</strong>
        {stop.step && stop.status !== 'running' ? <span className="muted small">stopped at {stop.step}</span> : null}
      </span>
      <span className="rv-reason">{stop.reason}</span>
    </div>
  );
}

/** One loop in the review: dead-man state, the newest cycle and where it stopped, and other bad phases in the window. */
export function ReviewLoop({ review }: { review: LoopReview }) {
  const { loop, deadman, last, lastStop } = review;
  const reading = useDeck((s) => s.reading);
  const older = review.issues.filter((i) => !(lastStop && i.cycle === lastStop.cycle && i.phase === lastStop.phase));
  return (
    <li>
      <a
        className={`review-item rv-loop${review.attention ? ' attention' : ''}`}
        href={routeHash({ view: 'loops', loop })}
        data-testid={`review-loop-${loop}`}
      >
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
        {lastStop ? <Stop stop={lastStop} /> : null}
        {older.map((i) => (
          <Stop key={`${i.cycle}/${i.phase}`} stop={i} />
        ))}
      </a>
    </li>
  );
}
