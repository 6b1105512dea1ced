import type { FailureCause, FailureCauseKind } from './loop-domain';

// How a bad phase's cause is said, one rule for the console, the Markdown summary and the notices.

/** Who each cause kind puts a phase down to. */
export const CAUSE_LABEL: Readonly<Record<FailureCauseKind, string>> = { fleet: 'fleet', runner: 'runner', agent: 'agent', unknown: 'unknown' };

/** One line: the kind, then what happened (`fleet: gpu-a (via crossbar) was down for 40m (02:30–03:10 UTC) during the phase`). */
export function causeText(cause: FailureCause): string {
  return `${CAUSE_LABEL[cause.kind]}: ${cause.detail}`;
}
