import type { Phase } from '../../../../shared/domain';
import { causeText } from '../../../../shared/causes';
import { navigate } from '../../ui/react-hooks';
import { STATUS_GLYPH, phaseSpan, phaseTimeLabel, stoppedAtText } from '../../ui/format';

/** Props of one phase segment. */
export interface PhaseSegmentProps {
  loop: string;
  date: string;
  phase: Phase;
  selected: boolean;
  onSelect: () => void;
}

function tooltip(phase: Phase): string {
  const parts = [`${phase.name}: ${phase.status}`];
  const span = phaseSpan(phase);
  if (span) parts.push(span + (phase.timesFrom === 'files' ? ' (file times)' : ''));
  for (const st of phase.stages) {
    const stop = stoppedAtText(st);
    if (stop) parts.push(`${st.name}: ${stop}`);
  }
  parts.push(phase.reason);
  if (phase.signal && phase.status === 'running') parts.push(`${phase.signal.kind}: ${phase.signal.detail}`);
  if (phase.cause) parts.push(`cause ${causeText(phase.cause)}`);
  return parts.join('\n');
}

/** One phase in a cycle's bar: a button (so Enter/Space work) that opens the detail panel. */
export function PhaseSegment({ loop, date, phase, selected, onSelect }: PhaseSegmentProps) {
  const span = phase.startedAt && phase.endedAt ? phaseSpan(phase) : null;
  const signal = phase.signal && phase.status === 'running' ? phase.signal.kind : null;
  return (
    <button
      type="button"
      className={`seg status-${phase.status}${selected ? ' selected' : ''}`}
      data-testid={`phase-${loop}-${date}-${phase.name}`}
      data-status={phase.status}
      data-row
      aria-pressed={selected}
      aria-controls={selected ? 'phase-detail' : undefined}
      title={`${tooltip(phase)}${phase.status === 'pending' ? '' : '\n(double-click: its transcript)'}`}
      onClick={onSelect}
      onDoubleClick={phase.status === 'pending' ? undefined : () => navigate({ view: 'log', loop, date, phase: phase.name, line: null })}
    >
      <span className="seg-body">
        <span className="seg-name">{phase.name}</span>
        <span className="seg-status">
          <span aria-hidden="true" className="glyph">
            {STATUS_GLYPH[phase.status]}
          </span>
          {phase.status}
          {signal ? <span className="seg-signal" data-testid={`signal-${loop}-${date}-${phase.name}`}> · {signal}</span> : null}
          {phase.cause ? (
            <span className={`seg-cause cause-${phase.cause.kind}`} data-testid={`cause-${loop}-${date}-${phase.name}`} data-cause={phase.cause.kind} aria-label={`cause: ${phase.cause.kind}`} role="img" />
          ) : null}
        </span>
        <span className="seg-time">
          {phaseTimeLabel(phase)}
          {span && phase.status !== 'running' ? <span className="seg-span"> · {span}</span> : null}
        </span>
      </span>
    </button>
  );
}
