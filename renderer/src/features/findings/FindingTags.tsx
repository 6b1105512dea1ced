import type { FindingStatus, Severity } from '../../../../shared/domain';

/** A finding's severity as a small coloured tag (`—` when the ledger gave none). */
export function SeverityTag({ severity }: { severity: Severity | null }) {
  return <span className={`sev sev-${severity ?? 'none'}`}>{severity ?? '—'}</span>;
}

/** A finding's status as a small tag. */
export function FindingStatusTag({ status }: { status: FindingStatus }) {
  return <span className={`fst fst-${status}`}>{status}</span>;
}
