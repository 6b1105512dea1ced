import type { BacklogItem } from '../../../../shared/domain';
import { formatDateTime } from '../../ui/format';
import { isNewFinding } from './findings';
import { ledgersHeld, selectBacklogItem, selectFinding, selectLastReviewedAt, useDeck } from '../../store';
import type { FindingRef } from '../../ui/route';
import { FindingStatusTag, SeverityTag } from './FindingTags';

function redGreen(red: number | null, green: number | null): string {
  if (red === null && green === null) return '—';
  return `${red ?? '?'} red / ${green ?? '?'} green`;
}

function BacklogCard({ item }: { item: BacklogItem }) {
  return (
    <div className="backlog-item" data-testid={`backlog-${item.id}`} data-loop={item.loop}>
      <div className="backlog-head">
        <strong className="mono">{item.id}</strong>
        <SeverityTag severity={item.severity} />
        <FindingStatusTag status={item.status} />
        <span className="muted small num">{redGreen(item.red, item.green)}</span>
      </div>
      <h4>Acceptance criteria</h4>
      <p className="acceptance">{item.acceptance || <span className="muted">None written.</span>}</p>
      <h4>Outcomes in the log</h4>
      {item.outcomes.length === 0 ? (
        <p className="muted small">No outcome recorded yet.</p>
      ) : (
        <table className="outcomes">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Outcome</th>
              <th scope="col">Red / green</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {item.outcomes.map((o) => (
              <tr key={o.line}>
                <td className="num">{o.date ?? '—'}</td>
                <td>
                  <span className={`outcome outcome-${o.outcome.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{o.outcome}</span>
                </td>
                <td className="num">{o.red === null && o.green === null ? '—' : `${o.red ?? '?'} / ${o.green ?? '?'}`}</td>
                <td>{o.note ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** A backlog item the finding names, from the finding's own loop's backlog. */
function BacklogEntry({ loop, id }: { loop: string; id: string }) {
  const item = useDeck((s) => selectBacklogItem(s, loop, id));
  return item ? (
    <BacklogCard item={item} />
  ) : (
    <p className="muted small">
      <span className="mono">{id}</span> is named by the finding but not found in {loop}&apos;s backlog.
    </p>
  );
}

/** The open finding: full text, where, section, status, and the backlog items covering it with their outcomes. */
export function FindingDetail({ finding: ref, onClose }: { finding: FindingRef; onClose: () => void }) {
  const { id } = ref;
  const finding = useDeck((s) => selectFinding(s, ref));
  const reviewedAt = useDeck(selectLastReviewedAt);
  const ledgersLoaded = useDeck((s) => ledgersHeld(s.stage));
  return (
    <aside className="detail" data-testid="finding-detail" aria-label="Finding detail">
      <header className="detail-head">
        <div>
          <div className="detail-crumbs">{finding ? `${finding.loop} · ${finding.section}` : 'Finding'}</div>
          <h2 className="finding-title">
            <span className="mono">{id}</span>
            {finding ? <SeverityTag severity={finding.severity} written={finding.severityText} /> : null}
            {finding ? <FindingStatusTag status={finding.status} /> : null}
            {finding && isNewFinding(finding, reviewedAt) ? <span className="new-mark">new</span> : null}
          </h2>
        </div>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close finding detail" title="Close (Esc)">
          ×
        </button>
      </header>
      {!finding && !ledgersLoaded ? (
        <p className="callout callout-muted" data-testid="finding-detail-loading" aria-busy="true">
          Loading the ledgers…
        </p>
      ) : !finding ? (
        <p className="callout callout-muted">
          There is no finding {id} in the current ledgers (it may have been renamed, or its ledger is not read yet).
        </p>
      ) : (
        <div className="detail-body">
          <p className="finding-text">{finding.text}</p>
          <dl className="facts">
            <dt>Where</dt>
            <dd className="mono">{finding.where ?? '—'}</dd>
            <dt>Section</dt>
            <dd>{finding.section}</dd>
            {finding.category ? (
              <>
                <dt>Category</dt>
                <dd>{finding.category}</dd>
              </>
            ) : null}
            <dt>First seen</dt>
            <dd>{formatDateTime(finding.firstSeenAt) ?? finding.firstSeenAt}</dd>
            <dt>Ledger</dt>
            <dd className="mono">
              {finding.source}:{finding.line}
            </dd>
          </dl>
          <section className="detail-section">
            <h3>Backlog</h3>
            {finding.backlog.length === 0 ? (
              <p className="muted small">No backlog item covers this finding yet.</p>
            ) : (
              finding.backlog.map((rel) => (
                <BacklogEntry key={rel} loop={finding.loop} id={rel} />
              ))
            )}
          </section>
        </div>
      )}
    </aside>
  );
}
