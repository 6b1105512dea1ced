import { useMemo } from 'react';
import { nightsCostText, type LoopReport } from '../../../../shared/loop-measures';
import { TrendsChart, type TrendRow, type TrendSeries } from './TrendsChart';

const SERIES: readonly TrendSeries[] = [
  { key: 'useful', name: 'spent on phases that ended well', color: 'var(--accent)', stack: 'c' },
  { key: 'waste', name: 'spent on failed, incomplete, hung and hollow phases', color: 'var(--fail-line)', stack: 'c' },
];

/** What each night cost (`costs:` in the config), its waste in red, and the window's cost per DONE finding and merged PR. */
export function TrendsCost({ trends }: { trends: LoopReport }) {
  const l = trends;
  const rows = useMemo(() => l.nights.map((n): TrendRow => ({ date: n.date, useful: n.cost === null ? null : n.cost - (n.wasteCost ?? 0), waste: n.wasteCost })), [l.nights]);
  const window = l.measures.find((m) => m.nights >= l.nights.length) ?? l.measures.at(-1);
  if (!l.nights.some((n) => n.cost !== null)) return null;
  return (
    <TrendsChart id="cost" title="What each night cost" unit={window?.cost?.currency ?? ''} kind="bars" rows={rows} series={SERIES} format={(v) => v.toFixed(2)}>
      <p className="small" data-testid="trend-cost">
        {window ? `Over ${window.nights} nights: ${nightsCostText(window.cost)}` : null}
      </p>
    </TrendsChart>
  );
}
