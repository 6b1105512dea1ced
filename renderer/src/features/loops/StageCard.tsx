import type { Stage } from '../../../../shared/domain';
import { failedStepText, stoppedAtText } from '../../ui/format';

function chipClass(rc: number | null): string {
  if (rc === null) return 'chip chip-notrun';
  return rc === 0 ? 'chip chip-ok' : 'chip chip-bad';
}

/** One stage of a phase: its steps as rc chips and, when unfinished, where it stopped (or is, while running). */
export function StageCard({ stage, running }: { stage: Stage; running: boolean }) {
  const stop = stoppedAtText(stage);
  const failed = stage.done ? failedStepText(stage) : null;
  return (
    <section className="stage" data-testid={`stage-${stage.name}`} data-done={String(stage.done)}>
      <header className="stage-head">
        <h4>{stage.name}</h4>
        <span className={`tag ${stage.done ? (failed ? 'tag-bad' : 'tag-ok') : 'tag-warn'}`}>
          {stage.done ? (failed ? 'done, failed' : 'done') : 'not finished'}
        </span>
      </header>
      {stage.steps.length === 0 ? (
        <p className="muted small">No planned steps in the rc file.</p>
      ) : (
        <ul className="chips" aria-label={`Steps of ${stage.name}`}>
          {stage.steps.map((step) => (
            <li
              key={step.name}
              className={`${chipClass(step.rc)}${stage.stoppedAt === step.name ? ' chip-stop' : ''}`}
              title={step.rc === null ? `${step.name}: not run` : `${step.name}: rc ${step.rc}`}
            >
              <span className="chip-name">{step.name}</span>
              <span className="chip-rc">{step.rc === null ? 'not run' : `rc ${step.rc}`}</span>
            </li>
          ))}
        </ul>
      )}
      {stop ? (
        <p className={`callout ${running ? 'callout-run' : 'callout-warn'}`} data-testid="stopped-at">
          {stage.stoppedAt && running ? (
            <>
              Now at <strong>{stage.stoppedAt}</strong>: the stage is still running (no value for this step and no DONE
              yet).
            </>
          ) : stage.stoppedAt ? (
            <>
              Stopped at <strong>{stage.stoppedAt}</strong>: the steps before it finished, no value was written for it,
              and the stage never wrote DONE.
            </>
          ) : (
            <>No DONE after last step: every step wrote a value, but the stage never wrote its DONE sentinel.</>
          )}
        </p>
      ) : null}
      {failed ? <p className="callout callout-bad">Failed step: {failed}</p> : null}
    </section>
  );
}
