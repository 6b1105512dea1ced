import type { PhaseStatus } from '../../../shared/domain';
import { STATUS_GLYPH } from './format';

/** A phase or cycle status as a coloured badge with a glyph, so it never relies on colour alone. */
export function StatusBadge({ status }: { status: PhaseStatus }) {
  return (
    <span className={`badge status-${status}`}>
      <span aria-hidden="true" className="glyph">
        {STATUS_GLYPH[status]}
      </span>
      {status}
    </span>
  );
}
