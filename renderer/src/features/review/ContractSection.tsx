import { breachHref, breachKey, CONTRACT_LABEL, CONTRACT_RULE, evidenceText, type ContractBreach } from '../../../../shared/contract-breach';
import { externalHttpsUrl } from '../../../../shared/links';
import { formatAge, formatDateTime } from '../../ui/format';

/** The most rows the section lists; the rest are counted. */
export const CONTRACT_SHOWN = 50;

/**
 * "Broken contract": where the loops broke a rule of their own manual, from the evidence Loopdeck
 * follows (shared/contract-breach.ts). Each item names the rule, the loop's cycle and phase, what
 * the evidence shows, and links it. Between "Waiting on you" and what ran.
 */
export function ContractSection({ items, now }: { items: readonly ContractBreach[]; now: number }) {
  if (items.length === 0) return null;
  return (
    <section className="card rv-section" aria-labelledby="rv-contract" data-testid="contract">
      <header className="rv-section-head">
        <h2 id="rv-contract">Broken contract</h2>
        <span className="muted small">{items.length}</span>
      </header>
      <ul className="rv-list">
        {items.slice(0, CONTRACT_SHOWN).map((b) => {
          const href = breachHref(b);
          const external = href.startsWith('#') ? null : externalHttpsUrl(href);
          const where = evidenceText(b.evidence);
          return (
            <li key={breachKey(b)}>
              <a
                className="review-item rv-waiting"
                href={external ?? (href.startsWith('#') ? href : '#/review')}
                {...(external ? { target: '_blank', rel: 'noreferrer' } : {})}
                data-testid={`contract-${b.kind}-${b.loop}`}
                title={CONTRACT_RULE[b.kind]}
              >
                <span className="rv-inc-head">
                  <span className="tag tag-bad">{CONTRACT_LABEL[b.kind]}</span>
                  {b.id ? <span className="mono rv-fid">{b.id}</span> : null}
                  <span className="muted small">
                    {b.loop}
                    {b.date ? ` ${b.date}` : ''}
                    {b.phase ? ` ${b.phase}` : ''}
                  </span>
                  {b.since ? (
                    <span className="muted small rv-age" title={formatDateTime(b.since) ?? undefined}>
                      {formatAge(b.since, now) ? `${formatAge(b.since, now)} ago` : `since ${b.since}`}
                    </span>
                  ) : null}
                </span>
                <span className="rv-reason">{b.detail}</span>
                <span className="rv-reason small muted">
                  The manual: “{CONTRACT_RULE[b.kind].replaceAll('`', '')}”{where ? ` Evidence: ${where}` : ''}
                </span>
              </a>
            </li>
          );
        })}
      </ul>
      {items.length > CONTRACT_SHOWN ? (
        <p className="rv-more muted small" data-testid="contract-more">
          and {(items.length - CONTRACT_SHOWN).toLocaleString('en-US')} more
        </p>
      ) : null}
    </section>
  );
}
