import { firstInt, idsIn, normalizeSeverity, redGreen, severityAsWritten } from './ledger-columns';
import type { ColumnRole, LedgerRecord, TableShape } from './ledger-records';

/** The role that names a row, per table kind: a row without it cannot become a record. */
const KEY: Record<Exclude<TableShape['kind'], 'other'>, ColumnRole> = {
  finding: 'id',
  backlog: 'id',
  outcome: 'id',
  task: 'task',
  'review-finding': 'number',
};

/** The first `prefix` id of a cell, else the cell as written (bold markers dropped). */
function idOf(cellText: string, prefix: string): string {
  return idsIn(cellText, prefix)[0] ?? cellText.replace(/\*\*/g, '').trim();
}

/**
 * Map one body row to a record. A row with more cells than the header (an unescaped `|` in an
 * older frozen row) is skipped with a problem; a short row is filled with nulls when its key cell
 * is there. Returns null for tables of no known kind, a string (the problem) for a skipped row.
 */
export function rowRecord(table: TableShape, cells: readonly string[], line: number, section: string): LedgerRecord | string | null {
  if (table.kind === 'other') return null;
  const { kind, cols, width } = table;
  if (cells.length > width) {
    return `row has ${cells.length} cells where the header has ${width} (probably an unescaped |); row skipped`;
  }
  const at = (role: ColumnRole): string | null => {
    const i = cols[role];
    const v = i === undefined ? undefined : cells[i];
    return v === undefined || v === '' ? null : v;
  };
  const key = at(KEY[kind]);
  if (key === null) {
    const short = cells.length < width ? `row has ${cells.length} cells where the header has ${width}, and ` : 'row has ';
    return `${short}no ${KEY[kind] === 'number' ? '#' : KEY[kind]} cell; row skipped`;
  }
  switch (kind) {
    case 'finding': {
      const written = severityAsWritten(at('severity'));
      return {
        kind,
        line,
        section,
        id: idOf(key, 'R'),
        severity: normalizeSeverity(at('severity')),
        ...(written === null ? {} : { severityText: written }),
        category: at('category'),
        where: at('where'),
        text: at('text') ?? '',
      };
    }
    case 'backlog': {
      const id = idOf(key, 'REL');
      const refs = cols.refs === undefined ? cells.filter((_, i) => i !== cols.id).join(' ') : (at('refs') ?? '');
      return { kind, line, section, id, findings: idsIn(refs, 'R'), severity: normalizeSeverity(at('severity')), acceptance: at('acceptance') ?? '' };
    }
    case 'outcome': {
      const counts = cols.redGreen !== undefined ? redGreen(at('redGreen')) : { red: firstInt(at('red')), green: firstInt(at('green')) };
      return { kind, line, id: idOf(key, 'REL'), date: at('date'), outcome: at('outcome') ?? '', ...counts, note: at('note') };
    }
    case 'task':
      return {
        kind,
        line,
        task: key,
        date: at('date'),
        status: at('status') ?? '',
        gateRuns: at('gateRuns'),
        firstGate: at('firstGate'),
        deviations: at('deviations'),
        notes: at('note'),
        model: at('model'),
      };
    case 'review-finding':
      return { kind, line, section, number: key, text: at('text') ?? '', severity: at('severity'), fault: at('fault') };
  }
}
