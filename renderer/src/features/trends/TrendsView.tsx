import { useEffect, useMemo, useRef, useState } from 'react';
import { deriveChurn } from '../../../../shared/churn';
import { trendsReport, type TrendsReportInput } from '../../../../shared/loop-measures';
import { createTrendsMemo, TREND_RANGES, type TrendRange } from '../../../../shared/trends';
import { summaryShown, useDeck } from '../../store';
import { useNow } from '../../ui/react-hooks';
import '../../trends.css';
import { TrendsLoop } from './TrendsLoop';

/** Is each loop getting healthier or worse: nightly series and regressions over 7, 30 or 90 nights. */
export function TrendsView() {
  const [days, setDays] = useState<TrendRange>(30);
  const loopMap = useDeck((s) => s.loops);
  const findings = useDeck((s) => s.findings);
  const backlog = useDeck((s) => s.backlog);
  const nightMap = useDeck((s) => s.nights);
  const contract = useDeck((s) => s.contract);
  const prs = useDeck((s) => s.prs);
  // The PRs awaiting merge are aged on the clock (a minute's step), the nights on the day.
  const clock = useNow();
  const loadNights = useDeck((s) => s.loadNights);
  const loaded = useDeck((s) => summaryShown(s.stage));
  // The nights kept past the followed window: asked for when the view opens (and after a reload).
  useEffect(() => {
    if (loaded) void loadNights();
  }, [loaded, loadNights]);
  // One memo for the view's life: a change re-derives only the nights it touched.
  const memo = useRef(createTrendsMemo()).current;
  const today = new Date().toISOString().slice(0, 10);
  const loops = useMemo(() => Object.values(loopMap), [loopMap]);
  const history = useMemo(() => Object.values(nightMap), [nightMap]);
  // Churn only when the ledgers change (a walk over the findings), the report on every change.
  const churn = useMemo(() => deriveChurn(findings, backlog), [findings, backlog]);
  const trends = useMemo(() => {
    // The Broken contract list counts the followed nights' breaches (the report passes it on to the memo).
    const input: TrendsReportInput = { loops, findings, backlog, days, now: `${today}T12:00:00Z`, history, contract, prs, at: new Date(clock).toISOString() };
    return trendsReport(memo, input, churn);
  }, [memo, loops, findings, backlog, days, today, history, contract, churn, prs, clock]);

  if (loops.length === 0) {
    return (
      <div className="empty card" data-testid="trends">
        <h2>No loops configured</h2>
        <p>Trends show each loop&apos;s nights once a loop is followed.</p>
      </div>
    );
  }
  return (
    <div className="trends" data-testid="trends" data-from={trends.from} data-to={trends.to}>
      <div className="card trends-head">
        <h2>Trends</h2>
        <div className="cap-ranges" role="group" aria-label="Range">
          {TREND_RANGES.map((r) => (
            <button key={r} type="button" className={`toggle${r === days ? ' on' : ''}`} aria-pressed={r === days} data-testid={`trends-range-${r}`} onClick={() => setDays(r)}>
              {r} nights
            </button>
          ))}
        </div>
        <span className="muted small num">
          {trends.from} → {trends.to}
        </span>
        <p className="muted small trends-note" data-testid="trends-note">
          Nights are the cycles Loopdeck follows (each loop&apos;s <code>cycles</code> setting, 14 by default), the
          nights it keeps past them (<code>history</code>, 90 by default) and the ledgers&apos; dates. A finding opens on its audit section&apos;s date (else the day Loopdeck first read it) and closes on
          the date of its backlog item&apos;s DONE row in the log; done findings whose log row has no date are left out of the
          backlog. Cap hits are phases decided incomplete past the loop&apos;s cap. Flags: a phase&apos;s last run over twice its
          30-night median, a night with more new P0 findings than any in the 30 before, a success rate down by a third week
          over week. Broken contract: the items of the list on each followed night; a night past them keeps the count it had
          when last kept, and one kept before breaches were counted shows —. Churn: a DONE backlog item the log later gives another outcome, and a new finding at a DONE
          one&apos;s <code>file:line</code> and category within 30 days. Remediate → green: from a night&apos;s remediate start to its deliver&apos;s green verdict, or
          the next fire&apos;s when its deliver ended INCOMPLETE; — when never green. Awaiting merge: PRs green and neither merged nor closed, at each night&apos;s end (— before the followed cycles).
        </p>
      </div>
      {trends.loops.map((l) => (
        <TrendsLoop key={l.loop} trends={l} />
      ))}
    </div>
  );
}
