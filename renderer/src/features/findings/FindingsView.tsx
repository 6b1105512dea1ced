import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { emptyFindingFilter, formatCount, isFiltering, SEVERITIES, type FindingFilter, type SeverityCounts } from './findings';
import { cachedCounts, cachedMask } from './findings-order';
import { navigate, replaceRoute } from '../../ui/react-hooks';
import type { FindingRef } from '../../ui/route';
import type { Finding } from '../../../../shared/domain';
import { ledgersHeld, searchKeysOf, selectFindingFacets, selectLastReviewedAt, useDeck } from '../../store';
import { FindingsFilters } from './FindingsFilters';
import { FindingsTable } from './FindingsTable';

function SeverityCountsLine({ counts }: { counts: SeverityCounts }) {
  return (
    <span className="severity-counts" data-testid="severity-counts" aria-label="Visible findings by severity">
      {SEVERITIES.map((s, i) => (
        <span key={s} className={`sc${counts[s] === 0 ? ' zero' : ''}`}>
          {i > 0 ? <span className="sep" aria-hidden="true"> · </span> : null}
          <span className={`sc-name sev-text-${s}`}>{s}</span> <span className="num">{formatCount(counts[s])}</span>
        </span>
      ))}
      {counts.none > 0 ? (
        <span className="sc">
          <span className="sep" aria-hidden="true"> · </span>
          <span className="sc-name">no severity</span> <span className="num">{formatCount(counts.none)}</span>
        </span>
      ) : null}
    </span>
  );
}

function NoLedgers({ configPath }: { configPath: string | undefined }) {
  return (
    <div className="empty card" data-testid="findings-empty">
      <h2>No ledgers configured</h2>
      <p>
        Findings come from each loop&apos;s ledgers. In <code>{configPath ?? 'the config file'}</code>, give the loop its
        repository folder and ledger files:
      </p>
      <pre className="mono block">{`loops:\n  reliability:\n    dir: /path/to/repo\n    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md }`}</pre>
      <p className="muted">
        <code>audit</code> is the ledger with the findings tables, <code>log</code> the one with the backlog outcomes; both
        are relative to <code>dir</code>. Loopdeck reads them again whenever they change.
      </p>
    </div>
  );
}

/** The ledger rows are still on their way (they load in pages after the first paint). */
function LoadingLedgers({ expected }: { expected: number | null }) {
  return (
    <div className="empty card" data-testid="findings-loading" aria-busy="true">
      <h2>Loading findings…</h2>
      <p className="muted">{expected === null ? 'Reading the ledgers.' : `Reading ${formatCount(expected)} findings from the ledgers.`}</p>
    </div>
  );
}

/** All findings of every loop: filters, counts by severity, and the virtualised table. */
export function FindingsView({ selected }: { selected: FindingRef | null }) {
  const ledgersLoaded = useDeck((s) => ledgersHeld(s.stage));
  const expected = useDeck((s) => s.ledgerRows?.findings ?? null);
  if (!ledgersLoaded) return <LoadingLedgers expected={expected} />;
  return <LoadedFindings selected={selected} />;
}

function LoadedFindings({ selected }: { selected: FindingRef | null }) {
  const findings = useDeck((s) => s.findings);
  const backlogCount = useDeck((s) => s.backlog.length);
  const facets = useDeck(selectFindingFacets);
  const reviewedAt = useDeck(selectLastReviewedAt);
  const configPath = useDeck((s) => s.info?.config.path);
  const [filter, setFilter] = useState<FindingFilter>(emptyFindingFilter);
  const [text, setText] = useState('');
  // The box updates at once; the 20,000-row filter runs on a deferred copy, so typing never waits.
  const deferredText = useDeferredValue(text);
  const effective = useMemo(() => ({ ...filter, text: deferredText }), [filter, deferredText]);
  // Memoised beyond this mount: opening the view again with the same rows and filter costs nothing.
  const mask = useMemo(() => cachedMask(findings, () => searchKeysOf(findings), effective), [findings, effective]);
  const counts = cachedCounts(findings, mask);
  const visible = counts.P0 + counts.P1 + counts.P2 + counts.P3 + counts.none;
  const onOpen = useCallback((f: Finding, replace = false) => (replace ? replaceRoute : navigate)({ view: 'findings', loop: f.loop, id: f.id }), []);
  const filtering = isFiltering({ ...filter, text });
  const stale = deferredText !== text;

  if (findings.length === 0 && backlogCount === 0) return <NoLedgers configPath={configPath} />;

  return (
    <section className={`findings card${stale ? ' stale' : ''}`} aria-labelledby="findings-title" data-pending={stale}>
      <header className="findings-head">
        <h2 id="findings-title">Findings</h2>
        <span className="findings-count" data-testid="findings-count" aria-live="polite">
          {formatCount(visible)} of {formatCount(findings.length)}
        </span>
        <SeverityCountsLine counts={counts} />
      </header>
      <FindingsFilters
        filter={filter}
        text={text}
        loops={facets.loops}
        sections={facets.sections}
        categories={facets.categories}
        onText={setText}
        onChange={setFilter}
        onClear={() => {
          setFilter(emptyFindingFilter);
          setText('');
        }}
        filtering={filtering}
      />
      {findings.length === 0 ? (
        <p className="empty-inline">
          The ledgers have {formatCount(backlogCount)} backlog items but no findings tables yet; findings appear when an
          audit section with a findings table is written.
        </p>
      ) : visible === 0 && !stale ? (
        <p className="empty-inline">No findings match these filters.</p>
      ) : null}
      <FindingsTable findings={findings} mask={mask} reviewedAt={reviewedAt} selected={selected} onOpen={onOpen} />
    </section>
  );
}
