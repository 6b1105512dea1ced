import type { FailureCause } from '../../../shared/domain';
import { CAUSE_LABEL } from '../../../shared/causes';

/** Who a bad phase is put down to: a coloured tag (fleet, runner, agent) and what happened. */
export function CauseLine({ cause, testId }: { cause: FailureCause; testId: string }) {
  return (
    <span className={`cause-line cause-${cause.kind}`} data-testid={testId} data-cause={cause.kind}>
      <span className="cause-tag">{CAUSE_LABEL[cause.kind]}</span>
      <span className="cause-detail">{cause.detail}</span>
    </span>
  );
}
