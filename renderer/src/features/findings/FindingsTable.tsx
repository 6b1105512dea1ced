import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { Finding } from '../../../../shared/domain';
import { formatClock } from '../../ui/format';
import { isNewFinding } from './findings';
import { DEFAULT_FINDING_SORT, sortedOrder, visibleRows, type FindingSort, type FindingSortId } from './findings-order';
import { isFinding, routeHash, type FindingRef } from '../../ui/route';
import { FindingStatusTag, SeverityTag } from './FindingTags';

/** Props of the findings table. */
export interface FindingsTableProps {
  /** All findings, as the store holds them (never copied). */
  findings: readonly Finding[];
  /** Which of them pass the filters, index for index. */
  mask: Uint8Array;
  reviewedAt: string | null;
  /** The open finding, by loop and id. */
  selected: FindingRef | null;
  onOpen: (f: Finding, replace?: boolean) => void;
}

const ROW_H = 32;
const SEEN_DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });

/** `17 Aug 01:12` in local time. */
function seen(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${SEEN_DAY.format(t)} ${formatClock(iso) ?? ''}` : iso;
}

interface Column {
  readonly id: FindingSortId | 'text';
  readonly header: string;
  readonly sortable: boolean;
  readonly cell: (f: Finding, reviewedAt: string | null) => ReactNode;
}

const COLUMNS: readonly Column[] = [
  {
    id: 'id',
    header: 'ID',
    sortable: true,
    cell: (f, reviewedAt) => (
      <>
        <a href={routeHash({ view: 'findings', loop: f.loop, id: f.id })} className="fid" tabIndex={-1}>
          {f.id}
        </a>
        {isNewFinding(f, reviewedAt) ? <span className="new-mark">new</span> : null}
      </>
    ),
  },
  { id: 'loop', header: 'Loop', sortable: true, cell: (f) => f.loop },
  { id: 'severity', header: 'Sev', sortable: true, cell: (f) => <SeverityTag severity={f.severity} written={f.severityText} /> },
  { id: 'status', header: 'Status', sortable: true, cell: (f) => <FindingStatusTag status={f.status} /> },
  { id: 'category', header: 'Category', sortable: true, cell: (f) => f.category ?? '' },
  { id: 'section', header: 'Section', sortable: true, cell: (f) => f.section },
  { id: 'where', header: 'Where', sortable: true, cell: (f) => f.where ?? '' },
  { id: 'text', header: 'Finding', sortable: false, cell: (f) => f.text },
  { id: 'firstSeen', header: 'First seen', sortable: true, cell: (f) => seen(f.firstSeenAt) },
];

/**
 * Every finding in one virtualised table. The sorted order is an index array memoised per
 * findings array and sort (lib/findings-order), the filter mask then picks rows in one pass, and
 * TanStack Virtual renders only the rows in view: opening the view again sorts nothing.
 */
export const FindingsTable = memo(function FindingsTable({ findings, mask, reviewedAt, selected: selected_, onOpen }: FindingsTableProps) {
  const [sort, setSort] = useState<FindingSort>(DEFAULT_FINDING_SORT);
  const order = useMemo(() => sortedOrder(findings, sort), [findings, sort]);
  const rows = useMemo(() => visibleRows(order, mask), [order, mask]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_H, overscan: 10 });
  const selectedIndex = useMemo(() => {
    if (selected_ === null) return -1;
    for (let i = 0; i < rows.length; i++) {
      const f = findings[rows[i] as number];
      if (f && isFinding(f, selected_)) return i;
    }
    return -1;
  }, [rows, findings, selected_]);

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: 15, PageUp: -15 }[e.key];
    if (step === undefined || rows.length === 0) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(rows.length - 1, (selectedIndex < 0 ? -1 : selectedIndex) + step));
    const f = findings[rows[next] as number];
    if (f) onOpen(f, true);
  };

  const toggle = (id: FindingSortId) => setSort((s) => (s.id === id ? { id, desc: !s.desc } : { id, desc: false }));

  return (
    <div
      className="ftable"
      ref={scroller}
      role="grid"
      aria-label="Findings. Up and down arrows move the selection."
      aria-rowcount={rows.length + 1}
      data-testid="findings-table"
      tabIndex={0}
      onKeyDown={onKey}
    >
      <div className="frow fhead" role="row" aria-rowindex={1}>
        {COLUMNS.map((c) => {
          const dir = sort.id === c.id ? (sort.desc ? 'desc' : 'asc') : null;
          return (
            <div
              key={c.id}
              role="columnheader"
              className={`fcell fcol-${c.id}`}
              aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
            >
              {c.sortable ? (
                <button type="button" className="sort" onClick={() => toggle(c.id as FindingSortId)} title="Sort">
                  {c.header}
                  <span className="sort-mark" aria-hidden="true">
                    {dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}
                  </span>
                </button>
              ) : (
                c.header
              )}
            </div>
          );
        })}
      </div>
      <div className="fbody" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((v) => {
          const index = rows[v.index] as number;
          const f = findings[index] as Finding;
          const selected = isFinding(f, selected_);
          return (
            <div
              key={index}
              role="row"
              aria-rowindex={v.index + 2}
              aria-selected={selected}
              className={`frow${selected ? ' selected' : ''}${v.index % 2 ? ' odd' : ''}`}
              data-testid={`finding-row-${f.id}`}
              data-loop={f.loop}
              data-row
              style={{ transform: `translateY(${v.start}px)` }}
              onClick={(e) => {
                e.preventDefault();
                onOpen(f);
              }}
            >
              {COLUMNS.map((c) => (
                <div key={c.id} role="gridcell" className={`fcell fcol-${c.id}`} title={c.id === 'text' ? f.text : c.id === 'severity' ? (f.severityText ?? undefined) : undefined}>
                  {c.cell(f, reviewedAt)}
                </div>
              ))}
            </div>
          );
        })}
      </div>
    </div>
  );
});
