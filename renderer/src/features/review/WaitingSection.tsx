import { WAITING_LABEL, type WaitingItem } from '../../../../shared/waiting';
import { formatAge, formatDateTime } from '../../ui/format';

/** The most rows the section lists; the rest are counted (a ledger with thousands of uncovered findings). */
export const WAITING_SHOWN = 50;

/** "Waiting on you": what the loops hand a person (shared/waiting.ts), one row per item, at the top of the Review. */
export function WaitingSection({ items, now }: { items: readonly WaitingItem[]; now: number }) {
  return (
    <section className="card rv-section" aria-labelledby="rv-waiting" data-testid="waiting">
      <header className="rv-section-head">
        <h2 id="rv-waiting">Waiting on you</h2>
        <span className="muted small">{items.length || 'nothing'}</span>
      </header>
      {items.length === 0 ? (
        <p className="empty-inline">Nothing the loops handed you is waiting.</p>
      ) : (
        <ul className="rv-list">
          {items.slice(0, WAITING_SHOWN).map((w) => (
            <li key={`${w.kind}\u0000${w.loop}\u0000${w.id}`}>
              <a className="review-item rv-waiting" href={w.href} data-testid={`waiting-${w.kind}-${w.loop}-${w.id}`}>
                <span className="rv-inc-head">
                  <span className={`tag ${w.kind === 'pr' ? 'tag-ok' : 'tag-warn'}`}>{WAITING_LABEL[w.kind]}</span>
                  <span className="mono rv-fid">{w.id}</span>
                  <span className="muted small">{w.loop}</span>
                  {w.since ? (
                    <span className="muted small rv-age" title={formatDateTime(w.since) ?? undefined}>
                      {formatAge(w.since, now) ? `for ${formatAge(w.since, now)}` : `since ${w.since}`}
                    </span>
                  ) : null}
                </span>
                <span className="rv-reason">{w.action}</span>
                {w.kind === 'stopped' && w.detail ? <span className="rv-reason small">{w.detail}</span> : null}
                {w.before.map((b) => (
                  <span key={b} className="rv-reason small">
                    Before the merge: {b}
                  </span>
                ))}
              </a>
            </li>
          ))}
        </ul>
      )}
      {items.length > WAITING_SHOWN ? (
        <p className="rv-more muted small" data-testid="waiting-more">
          and {(items.length - WAITING_SHOWN).toLocaleString('en-US')} more waiting
        </p>
      ) : null}
    </section>
  );
}
