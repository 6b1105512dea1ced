import type { Deadman } from '../../../../shared/domain';
import { formatClock, formatDateTime } from '../../ui/format';

const LABEL: Readonly<Record<Deadman['state'], string>> = {
  ok: 'on schedule',
  late: 'late',
  missed: 'missed',
  stalled: 'stalled',
  overrun: 'overrun',
};

/** A loop's dead-man state (did it fire when the schedule said?, or "in maintenance" for a fire inside a window) and its next expected fire time. */
export function DeadmanBadge({ loop, deadman }: { loop: string; deadman: Deadman | null }) {
  if (!deadman) return null;
  const next = formatClock(deadman.expectedAt);
  return (
    <span className="deadman-wrap">
      <span
        className={`deadman deadman-${deadman.state}`}
        data-testid={`deadman-${loop}`}
        data-state={deadman.state}
        data-maintenance={deadman.maintenance ? 'true' : undefined}
        title={deadman.reason}
      >
        <span className="dot" aria-hidden="true" />
        {deadman.maintenance ? 'in maintenance' : LABEL[deadman.state]}
        <span className="visually-hidden">: {deadman.reason}</span>
      </span>
      {next ? (
        <span className="next-fire" title={`Next expected fire: ${formatDateTime(deadman.expectedAt) ?? ''}`}>
          next fire <time dateTime={deadman.expectedAt ?? undefined}>{next}</time>
        </span>
      ) : null}
    </span>
  );
}
