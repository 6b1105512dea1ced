import { PREFLIGHT_CHECK_LABEL, preflightReasons, preflightStateText, type Preflight } from '../../../../shared/preflight';
import { formatDateTime } from '../../ui/format';
import { routeHash } from '../../ui/route';

const STATE_TAG: Readonly<Record<Preflight['state'], string>> = { ready: 'tag-ok', 'at-risk': 'tag-bad', unknown: 'tag-warn', maintenance: 'tag-maint' };

/**
 * "Tonight": each loop's pre-flight before its next fire (shared/preflight.ts) — ready, or at risk
 * because of each failing check, and the warnings worth knowing (a deliver record to resume); in
 * maintenance when the fire falls inside a window (the checks still shown for what they say).
 * Shown once a pre-flight has run, inside a loop's lead before its fire.
 */
export function PreflightSection({ list }: { list: readonly Preflight[] }) {
  if (list.length === 0) return null;
  const atRisk = list.filter((p) => p.state === 'at-risk').length;
  return (
    <section className="card rv-section" aria-labelledby="rv-preflight" data-testid="preflight">
      <header className="rv-section-head">
        <h2 id="rv-preflight">Tonight</h2>
        <span className="muted small">{atRisk ? `${atRisk} of ${list.length} at risk` : `${list.length === 1 ? 'ready' : 'all ready'}`}</span>
      </header>
      <ul className="rv-list">
        {list.map((p) => {
          const reasons = preflightReasons(p);
          const warnings = p.checks.filter((c) => c.status === 'warn');
          return (
            <li key={p.loop}>
              <a className={`review-item rv-preflight rv-preflight-${p.state}`} href={routeHash({ view: 'loops', loop: p.loop })} data-testid={`preflight-${p.loop}`} data-state={p.state}>
                <span className="rv-inc-head">
                  <strong>{p.loop}</strong>
                  <span className={`tag ${STATE_TAG[p.state]}`}>{preflightStateText(p.state)}</span>
                  <span className="muted small" title={`checked ${formatDateTime(p.checkedAt) ?? p.checkedAt}`}>
                    fire {formatDateTime(p.fireAt) ?? p.fireAt}
                  </span>
                </span>
                <span className="rv-reason" data-testid={`preflight-headline-${p.loop}`}>
                  Tonight: {preflightStateText(p.state)}
                  {p.maintenance
                    ? ` (${p.maintenance.reason}), until ${formatDateTime(p.maintenance.until) ?? p.maintenance.until}${reasons.length ? '; the checks say' : ''}`
                    : p.state === 'ready'
                      ? ` — all ${p.checks.length} checks hold`
                      : reasons.length
                        ? ', because'
                        : ''}
                </span>
                {p.state === 'ready'
                  ? null
                  : reasons.map((c, i) => (
                      <span key={`${c.name}-${i}`} className="rv-reason small" data-testid={`preflight-check-${p.loop}-${c.name}`}>
                        <span className={`tag ${c.status === 'fail' ? 'tag-bad' : 'tag-warn'}`}>{PREFLIGHT_CHECK_LABEL[c.name]}</span> {c.detail}
                      </span>
                    ))}
                {warnings.map((c, i) => (
                  <span key={`w-${c.name}-${i}`} className="rv-reason small" data-testid={`preflight-check-${p.loop}-${c.name}`}>
                    <span className="tag tag-warn">{PREFLIGHT_CHECK_LABEL[c.name]}</span> {c.detail}
                  </span>
                ))}
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
