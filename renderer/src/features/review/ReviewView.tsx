import { useMemo, useState, type ReactNode } from 'react';
import type { LoopState } from '../../../../shared/domain';
import type { DeskMerge } from '../../../../shared/pr-desk';
import { describeError } from '../../client';
import { formatAge, formatDateTime } from '../../ui/format';
import { routeHash } from '../../ui/route';
import { drillRunsSince, fleetIncidents, newFindings, readyPrs, reviewFindingsShown, reviewLoop, reviewSince } from './review';
import { useNow } from '../../ui/react-hooks';
import { ledgersHeld, useDeck, useMay, useRoleNeeded } from '../../store';
import { RoleNote } from '../../ui/RoleNote';
import { CopyMarkdownButton } from './CopyMarkdownButton';
import { argsText, DrillStatusBadge, runDuration } from '../drills/DrillParts';
import { SeverityTag } from '../findings/FindingTags';
import { ReviewLoop } from './ReviewLoops';
import { WaitingSection } from './WaitingSection';
import { ContractSection } from './ContractSection';
import { PreflightSection } from './PreflightSection';
import { waitingOnYou } from '../../../../shared/waiting';
import { newLessons } from '../ledgers/ledgers';
import { INCIDENT_LABEL } from '../../../../shared/fleet-incidents';
import { FLEET_HASH } from '../../../../shared/links';
import { mergedFromConsole } from '../../../../shared/review-merges';

/** How many new lessons the Review lists before pointing at the Ledgers view. */
const LESSONS_SHOWN = 8;

function Section({ title, count, id, children }: { title: string; count?: ReactNode; id: string; children: ReactNode }) {
  return (
    <section className="card rv-section" aria-labelledby={id}>
      <header className="rv-section-head">
        <h2 id={id}>{title}</h2>
        {count}
      </header>
      {children}
    </section>
  );
}

/** Mark reviewed, for a role that may; for one that may not, a quiet line saying which role does. */
function MarkButton() {
  const markReviewed = useDeck((s) => s.markReviewed);
  const may = useMay('review.mark');
  const needed = useRoleNeeded('review.mark');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onClick = async () => {
    setBusy(true);
    setError(null);
    try {
      await markReviewed();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  if (!may) {
    return (
      <RoleNote needed={needed} testId="review-role-note">
        Marking reviewed needs
      </RoleNote>
    );
  }
  return (
    <div className="rv-mark">
      <button type="button" className="primary" data-testid="review-mark" disabled={busy} onClick={() => void onClick()}>
        {busy ? 'Marking…' : 'Mark reviewed'}
      </button>
      {error ? (
        <p className="error-text small" role="alert">
          Could not mark reviewed: {error}
        </p>
      ) : null}
    </div>
  );
}

/** The default screen: what needs the operator since they last marked it reviewed (or in the last 24 h). */
export function ReviewView() {
  const now = useNow(60_000);
  const lastReviewedAt = useDeck((s) => s.lastReviewedAt);
  const lastReviewedBy = useDeck((s) => s.lastReviewedBy);
  const loopNames = useDeck((s) => s.loopNames);
  const loops = useDeck((s) => s.loops);
  const hosts = useDeck((s) => s.hosts);
  const findings = useDeck((s) => s.findings);
  // The findings come in pages after the first paint; until then the section says so.
  const ledgersLoaded = useDeck((s) => ledgersHeld(s.stage));
  // Main's first read has not caught up (nothing was saved): no verdict on the loops yet.
  const reading = useDeck((s) => s.stage.state === 'reading');
  const expected = useDeck((s) => s.ledgerRows?.findings ?? null);
  const prs = useDeck((s) => s.prs);
  const runs = useDeck((s) => s.drillRuns);
  const drills = useDeck((s) => s.drills);
  const capacity = useDeck((s) => s.capacity);
  const backlog = useDeck((s) => s.backlog);
  const tasks = useDeck((s) => s.tasks);
  const lessons = useDeck((s) => s.lessons);
  const preflight = useDeck((s) => s.preflight);
  const contract = useDeck((s) => s.contract);
  const since = reviewSince(lastReviewedAt, now);

  const loopReviews = useMemo(() => {
    const hostsByName = new Map(hosts.map((h) => [h.name, h]));
    return loopNames
      .map((n) => loops[n])
      .filter((l): l is LoopState => !!l)
      .map((l) => reviewLoop(l, since, hostsByName.get(l.host)));
  }, [loopNames, loops, hosts, since]);
  const fresh = useMemo(() => newFindings(findings, since), [findings, since]);
  const ready = useMemo(() => readyPrs(prs), [prs]);
  const desk = useDeck((s) => s.desk);
  // Merges made from the console (the merge desk): on the ready PR, or listed after them once GitHub says merged.
  const consoleMerge = (loop: string, number: number | null) => desk.find((d) => d.loop === loop && d.number === number)?.merged ?? null;
  const mergedHere = useMemo(() => mergedFromConsole(desk, ready, Date.parse(since)), [desk, ready, since]);
  const drillRuns = useMemo(() => drillRunsSince(runs, since), [runs, since]);
  const incidents = useMemo(() => fleetIncidents(capacity), [capacity]);
  const lessonsNew = useMemo(() => newLessons(lessons, since), [lessons, since]);
  // The loop states are not read by the list yet; drills with a cadence that are due are.
  const waiting = useMemo(() => waitingOnYou({ loops: [], findings, backlog, tasks, prs, drillRuns: runs, drills }, now), [findings, backlog, tasks, prs, runs, drills, now]);

  const needy = loopReviews.filter((l) => l.attention);
  const p0 = fresh.counts.P0;
  const tonightAtRisk = preflight.some((p) => p.state === 'at-risk');
  const nothing = ledgersLoaded && !tonightAtRisk && waiting.length === 0 && contract.length === 0 && needy.length === 0 && fresh.items.length === 0 && ready.length === 0 && mergedHere.length === 0 && drillRuns.length === 0 && incidents.length === 0;
  const reviewedLine = lastReviewedAt ? (
    <>
      Last reviewed <time dateTime={lastReviewedAt}>{formatDateTime(lastReviewedAt)}</time> ({formatAge(lastReviewedAt, now)} ago)
      {lastReviewedBy ? (
        <>
          {' by '}
          <span data-testid="review-reviewed-by">{lastReviewedBy}</span>
        </>
      ) : null}
      .
    </>
  ) : (
    <>Never marked reviewed: showing the last 24 hours.</>
  );

  if (nothing) {
    // A cycle still running has not finished, though nothing in it went wrong yet.
    const running = loopReviews.filter((l) => l.last?.status === 'running').length;
    const loopsLine = running === 0 ? 'Every loop fired on schedule and finished' : `Every loop fired on schedule and none stopped short (${running} still running)`;
    return (
      <div className="review" data-testid="review">
        <div className="empty card rv-empty" data-testid="review-empty">
          <h2>Nothing needs you</h2>
          <p className="muted">
            {reviewedLine} {loopsLine}, no new findings, no pull requests waiting, no drills run and the fleet is healthy.
          </p>
          <div className="rv-mark">
            <MarkButton />
            <CopyMarkdownButton since={since} />
          </div>
        </div>
        <PreflightSection list={preflight} />
      </div>
    );
  }

  const { shown, more, moreP0 } = reviewFindingsShown(fresh);
  const summary = [
    tonightAtRisk ? 'tonight at risk' : null,
    waiting.length ? `${waiting.length} waiting on you` : null,
    contract.length ? `${contract.length} broken contract` : null,
    needy.length ? `${needy.length} ${needy.length === 1 ? 'loop needs' : 'loops need'} you` : null,
    fresh.items.length ? `${fresh.items.length} new ${fresh.items.length === 1 ? 'finding' : 'findings'}${p0 ? ` (${p0} P0)` : ''}` : null,
    ready.length ? `${ready.length} ${ready.length === 1 ? 'PR' : 'PRs'} ready to merge` : null,
    mergedHere.length ? `${mergedHere.length} merged from the console` : null,
    incidents.length ? `${incidents.length} fleet ${incidents.length === 1 ? 'incident' : 'incidents'}` : null,
    drillRuns.length ? `${drillRuns.length} ${drillRuns.length === 1 ? 'drill run' : 'drill runs'}` : null,
    lessonsNew.length ? `${lessonsNew.length} new ${lessonsNew.length === 1 ? 'lesson' : 'lessons'}` : null,
  ].filter(Boolean);

  return (
    <div className="review" data-testid="review">
      <section className="card rv-head" aria-labelledby="review-title">
        <div className="rv-head-text">
          <h2 id="review-title">{lastReviewedAt ? 'Since you last reviewed' : 'In the last 24 hours'}</h2>
          <p className="muted small">{reviewedLine}</p>
          <p className="rv-summary">{summary.join(' · ')}</p>
        </div>
        <div className="rv-mark">
          <MarkButton />
          <CopyMarkdownButton since={since} />
        </div>
      </section>

      <PreflightSection list={preflight} />

      <WaitingSection items={waiting} now={now} />

      <ContractSection items={contract} now={now} />

      <Section title="Loops" id="rv-loops" count={<span className="muted small">{needy.length ? `${needy.length} of ${loopReviews.length} need you` : reading ? 'reading…' : 'all fine'}</span>}>
        <ul className="rv-list">
          {loopReviews.map((r) => (
            <ReviewLoop key={r.loop} review={r} />
          ))}
        </ul>
      </Section>

      <div className="rv-grid">
        <Section
          title="New findings"
          id="rv-findings"
          count={
            ledgersLoaded ? (
              <span className="rv-counts small" data-testid="review-finding-counts">
                {(['P0', 'P1', 'P2', 'P3'] as const).map((s) => (
                  <span key={s} className={fresh.counts[s] ? `rv-count sev-text-${s}` : 'rv-count zero'}>
                    <strong className="num">{fresh.counts[s]}</strong> {s}
                  </span>
                ))}
              </span>
            ) : (
              <span className="muted small">loading</span>
            )
          }
        >
          {!ledgersLoaded ? (
            <p className="empty-inline muted" data-testid="review-findings-loading" aria-busy="true">
              Loading {expected === null ? 'the findings' : `${expected.toLocaleString('en-US')} findings`}…
            </p>
          ) : fresh.items.length === 0 ? (
            <p className="empty-inline">No findings first seen in this window.</p>
          ) : (
            <ul className="rv-list">
              {shown.map((f) => (
                <li key={f.id}>
                  <a className="review-item rv-finding" href={routeHash({ view: 'findings', loop: f.loop, id: f.id })} data-testid={`review-finding-${f.id}`}>
                    <SeverityTag severity={f.severity} />
                    <span className="mono rv-fid">{f.id}</span>
                    <span className="rv-ftext">{f.text}</span>
                    <span className="muted small rv-fmeta">
                      {f.loop}
                      {f.where ? <> · <span className="mono">{f.where}</span></> : null}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
          {more > 0 ? (
            <a className="rv-more" href={routeHash({ view: 'findings', loop: null, id: null })} data-testid="review-findings-more">
              {more.toLocaleString('en-US')} more new {more === 1 ? 'finding' : 'findings'}
              {moreP0 > 0 ? ` (${moreP0.toLocaleString('en-US')} P0)` : ''} in Findings →
            </a>
          ) : null}
        </Section>

        <div className="rv-side">
          <Section title="Fleet incidents" id="rv-fleet" count={<span className="muted small">{incidents.length || 'none'}</span>}>
            {incidents.length === 0 ? (
              <p className="empty-inline">Every inference host is up with free slots, and no gateway is failing or near a limit.</p>
            ) : (
              <ul className="rv-list">
                {incidents.map((i) => (
                  <li key={`${i.proxy}/${i.host}/${i.kind}`}>
                    <a className={`review-item rv-incident rv-${i.kind}`} href={FLEET_HASH} data-testid={`review-incident-${i.kind}-${i.proxy}-${i.host}`} data-kind={i.kind}>
                      <span className="rv-inc-head">
                        <span className={`dot ${i.kind === 'down' || i.kind === 'error-burst' ? 'health-bad' : 'health-warn'}`} aria-hidden="true" />
                        <strong>{i.host}</strong>
                        <span className="muted small">via {i.proxy}</span>
                        <span className={`tag ${i.kind === 'down' || i.kind === 'error-burst' ? 'tag-bad' : 'tag-warn'}`}>{INCIDENT_LABEL[i.kind]}</span>
                        {i.planned ? (
                          <span className="tag tag-maint" data-testid={`review-incident-planned-${i.proxy}-${i.host}`} title={`Maintenance: ${i.planned.reason}, until ${formatDateTime(i.planned.until) ?? i.planned.until}`}>
                            planned
                          </span>
                        ) : null}
                        {i.kind === 'down' && i.since ? (
                          <span className="muted small rv-age" title={formatDateTime(i.since) ?? undefined}>
                            for {formatAge(i.since, now)}
                          </span>
                        ) : null}
                      </span>
                      <span className="rv-reason">{i.detail}</span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </Section>

          <Section title="Ready to merge" id="rv-prs" count={<span className="muted small">{ready.length || 'none'}</span>}>
            {ready.length === 0 && mergedHere.length === 0 ? (
              <p className="empty-inline">No pull requests waiting.</p>
            ) : (
              <ul className="rv-list">
                {ready.map((p) => (
                  <li key={p.url}>
                    <a className="review-item rv-pr" href={routeHash({ view: 'prs' })} data-testid={`review-pr-${p.number ?? p.url}`}>
                      <strong className="num">{p.number !== null ? `#${p.number}` : p.url}</strong>
                      <span className="muted small">{p.loop}</span>
                      <span className="mono small rv-branch">{p.branch ?? ''}</span>
                      <span className="muted small rv-age" title={formatDateTime(p.since) ?? undefined}>
                        {formatAge(p.since, now) ?? ''}
                      </span>
                      <MergedFromConsole merge={consoleMerge(p.loop, p.number)} />
                    </a>
                  </li>
                ))}
                {mergedHere.map((d) => (
                  <li key={`${d.loop}:${d.url}`}>
                    <a className="review-item rv-pr" href={routeHash({ view: 'prs' })} data-testid={`review-pr-${d.number}`}>
                      <strong className="num">#{d.number}</strong>
                      <span className="muted small">{d.loop}</span>
                      <span className="mono small rv-branch">{d.head}</span>
                      <MergedFromConsole merge={d.merged} />
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </Section>

          <Section title="Drills run" id="rv-drills" count={<span className="muted small">{drillRuns.length || 'none'}</span>}>
            {drillRuns.length === 0 ? (
              <p className="empty-inline">No drills run in this window.</p>
            ) : (
              <ul className="rv-list">
                {drillRuns.map((r) => (
                  <li key={r.id}>
                    <a className="review-item rv-drill" href={routeHash({ view: 'drills', runId: r.id })} data-testid={`review-drill-${r.id}`}>
                      <strong>{r.drill}</strong>
                      <DrillStatusBadge status={r.status} />
                      <span className="muted small">
                        {r.host} · {argsText(r.args)} · {r.user} · {runDuration(r, now) ?? '—'}
                        {r.rc !== null ? ` · rc ${r.rc}` : ''}
                      </span>
                      {r.override ? <span className="tag tag-warn">override</span> : null}
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </Section>

          <Section title="New lessons" id="rv-lessons" count={<span className="muted small">{lessonsNew.length || 'none'}</span>}>
            {lessonsNew.length === 0 ? (
              <p className="empty-inline">No lessons dated in this window.</p>
            ) : (
              <ul className="rv-list" data-testid="review-lessons">
                {lessonsNew.slice(0, LESSONS_SHOWN).map((l) => (
                  <li key={`${l.loop}:${l.source}:${l.line}`}>
                    <a className="review-item rv-lesson" href={routeHash({ view: 'ledgers' })} data-testid={`review-lesson-${l.loop}-${l.line}`}>
                      <span className="muted small">
                        {l.loop} · {l.date}
                        {l.tag ? ` (${l.tag})` : ''}
                      </span>
                      <span className="rv-reason">{l.text}</span>
                    </a>
                  </li>
                ))}
              </ul>
            )}
            {lessonsNew.length > LESSONS_SHOWN ? (
              <a className="rv-more" href={routeHash({ view: 'ledgers' })}>
                {lessonsNew.length - LESSONS_SHOWN} more in Ledgers →
              </a>
            ) : null}
          </Section>
        </div>
      </div>
    </div>
  );
}

/** A merge made from the console's merge desk: who merged it and when. */
function MergedFromConsole({ merge }: { merge: DeskMerge | null }) {
  if (!merge) return null;
  return (
    <span className="tag tag-ok" data-testid="review-pr-merged" title={`${merge.method} of ${merge.sha}`}>
      merged by {merge.by} at {formatDateTime(merge.at) ?? merge.at}
    </span>
  );
}
