import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type Row,
  type SortingFn,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Finding } from '../../../shared/domain';
import { formatClock } from '../lib/format';
import { isNewFinding, severityRank } from '../lib/findings';
import { routeHash } from '../lib/route';
import { FindingStatusTag, SeverityTag } from './FindingTags';

/** Props of the findings table. */
export interface FindingsTableProps {
  /** All findings, as the store holds them (never copied). */
  findings: readonly Finding[];
  /** Which of them pass the filters, index for index. */
  mask: Uint8Array;
  reviewedAt: string | null;
  selectedId: string | null;
  onOpen: (id: string, replace?: boolean) => void;
}

const ROW_H = 32;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const byText: SortingFn<Finding> = (a, b, id) => collator.compare(String(a.getValue(id) ?? ''), String(b.getValue(id) ?? ''));
const byValue: SortingFn<Finding> = (a, b, id) => {
  const x = a.getValue<number | string>(id);
  const y = b.getValue<number | string>(id);
  return x < y ? -1 : x > y ? 1 : 0;
};
const SEEN_DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });

/** `17 Aug 01:12` in local time. */
function seen(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${SEEN_DAY.format(t)} ${formatClock(iso) ?? ''}` : iso;
}

function columns(reviewedAt: string | null): ColumnDef<Finding>[] {
  return [
    {
      id: 'id',
      header: 'ID',
      accessorKey: 'id',
      sortingFn: byText,
      cell: ({ row: { original: f } }) => (
        <>
          <a href={routeHash({ view: 'findings', id: f.id })} className="fid" tabIndex={-1}>
            {f.id}
          </a>
          {isNewFinding(f, reviewedAt) ? <span className="new-mark">new</span> : null}
        </>
      ),
    },
    { id: 'loop', header: 'Loop', accessorKey: 'loop', sortingFn: byText },
    {
      id: 'severity',
      header: 'Sev',
      accessorFn: (f) => severityRank(f.severity),
      sortingFn: byValue,
      cell: ({ row: { original: f } }) => <SeverityTag severity={f.severity} />,
    },
    { id: 'status', header: 'Status', accessorKey: 'status', sortingFn: byText, cell: ({ row: { original: f } }) => <FindingStatusTag status={f.status} /> },
    { id: 'section', header: 'Section', accessorKey: 'section', sortingFn: byText },
    { id: 'where', header: 'Where', accessorFn: (f) => f.where ?? '', sortingFn: byText },
    { id: 'text', header: 'Finding', accessorKey: 'text', enableSorting: false },
    { id: 'firstSeen', header: 'First seen', accessorKey: 'firstSeenAt', sortingFn: byValue, cell: ({ row: { original: f } }) => seen(f.firstSeenAt) },
  ];
}

/**
 * Every finding in one virtualised table: TanStack Table sorts (once per sort or data change), the
 * filter mask then picks rows, and TanStack Virtual renders only the rows in view.
 */
export const FindingsTable = memo(function FindingsTable({ findings, mask, reviewedAt, selectedId, onOpen }: FindingsTableProps) {
  const [sorting, setSorting] = useState<SortingState>([{ id: 'severity', desc: false }]);
  const cols = useMemo(() => columns(reviewedAt), [reviewedAt]);
  const table = useReactTable({
    data: findings as Finding[],
    columns: cols,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    sortDescFirst: false,
    enableSortingRemoval: false,
    getRowId: (f, i) => `${i}`,
  });
  const sorted = table.getSortedRowModel().rows;
  const rows = useMemo(() => sorted.filter((r) => mask[r.index] === 1), [sorted, mask]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_H, overscan: 10 });
  const selectedIndex = useMemo(() => (selectedId === null ? -1 : rows.findIndex((r) => r.original.id === selectedId)), [rows, selectedId]);

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = { ArrowDown: 1, ArrowUp: -1, PageDown: 15, PageUp: -15 }[e.key];
    if (step === undefined || rows.length === 0) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(rows.length - 1, (selectedIndex < 0 ? -1 : selectedIndex) + step));
    const row = rows[next];
    if (row) onOpen(row.original.id, true);
  };

  const header = table.getHeaderGroups()[0]?.headers ?? [];
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
        {header.map((h) => {
          const dir = h.column.getIsSorted();
          return (
            <div
              key={h.id}
              role="columnheader"
              className={`fcell fcol-${h.id}`}
              aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : undefined}
            >
              {h.column.getCanSort() ? (
                <button type="button" className="sort" onClick={h.column.getToggleSortingHandler()} title="Sort">
                  {flexRender(h.column.columnDef.header, h.getContext())}
                  <span className="sort-mark" aria-hidden="true">
                    {dir === 'asc' ? '▲' : dir === 'desc' ? '▼' : ''}
                  </span>
                </button>
              ) : (
                flexRender(h.column.columnDef.header, h.getContext())
              )}
            </div>
          );
        })}
      </div>
      <div className="fbody" role="rowgroup" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((v) => {
          const row = rows[v.index] as Row<Finding>;
          const f = row.original;
          const selected = f.id === selectedId;
          return (
            <div
              key={row.id}
              role="row"
              aria-rowindex={v.index + 2}
              aria-selected={selected}
              className={`frow${selected ? ' selected' : ''}${v.index % 2 ? ' odd' : ''}`}
              data-testid={`finding-row-${f.id}`}
              style={{ transform: `translateY(${v.start}px)` }}
              onClick={(e) => {
                e.preventDefault();
                onOpen(f.id);
              }}
            >
              {row.getVisibleCells().map((cell) => (
                <div key={cell.id} role="gridcell" className={`fcell fcol-${cell.column.id}`} title={cell.column.id === 'text' ? f.text : undefined}>
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </div>
              ))}
            </div>
          );
        })}
      </div>
    </div>
  );
});
