import type { FindingStatus, Severity } from '../../../../shared/domain';

/**
 * A finding's severity as a small coloured tag (`—` when the ledger gave none). With `written`
 * (the cell as the ledger wrote it, e.g. `P1 (contested: P0)`) the tag shows that text, coloured
 * by the severity it sorts by.
 */
export function SeverityTag({ severity, written }: { severity: Severity | null; written?: string | undefined }) {
  if (written !== undefined && written !== severity) {
    return (
      <span className={`sev sev-${severity ?? 'none'} sev-written`} title={`As written in the ledger: ${written}`} data-testid="severity-written">
        {written}
      </span>
    );
  }
  return <span className={`sev sev-${severity ?? 'none'}`}>{severity ?? '—'}</span>;
}

/** A finding's status as a small tag. */
export function FindingStatusTag({ status }: { status: FindingStatus }) {
  return <span className={`fst fst-${status}`}>{status}</span>;
}
