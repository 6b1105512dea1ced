const PIPE = 124;
const BACKSLASH = 92;

/** The longest line kept as a possible table header (real headers are short; state stays small). */
export const MAX_HEADER_CHARS = 4096;

/** Whether `s` has a `|` not preceded by a backslash. Linear, no regex. */
export function hasUnescapedPipe(s: string): boolean {
  for (let i = s.indexOf('|'); i !== -1; i = s.indexOf('|', i + 1)) {
    if (i === 0 || s.charCodeAt(i - 1) !== BACKSLASH) return true;
  }
  return false;
}

/** Whether a line belongs to a table: it starts with `|` or has an unescaped pipe somewhere. */
export function isTableLine(text: string): boolean {
  const s = text.trimStart();
  return s.charCodeAt(0) === PIPE || hasUnescapedPipe(s);
}

/**
 * Shortest string V8 makes as a slice of its parent rather than a copy (SlicedString::kMinLength):
 * a slice keeps its whole parent alive.
 */
const SLICE_MIN = 13;

/**
 * A cell as a string of its own. A record keeps its cells as long as the ledger is followed (a
 * year's ledgers: 60,000 rows); as slices of their row, each kept the whole line (51 MB of a 120 MB
 * heap at 365 days). `(' ' + c).slice(1)` copies the cell once (the join is flattened before it
 * is sliced), so what stays is the cell's own length.
 */
function own(c: string): string {
  return c.length < SLICE_MIN ? c : (' ' + c).slice(1);
}

function cell(s: string, from: number, to: number, escaped: boolean): string {
  const raw = s.slice(from, to);
  return own((escaped ? raw.split('\\|').join('|') : raw).trim());
}

/**
 * The cells of a table row: split on `|` not preceded by a backslash (the loop's own rule,
 * `(?<!\\)\|`), outer pipes dropped, each cell trimmed, `\|` turned into a literal `|`.
 */
export function splitCells(line: string): string[] {
  const s = line.trim();
  const start = s.charCodeAt(0) === PIPE ? 1 : 0;
  let end = s.length;
  if (end > start && s.charCodeAt(end - 1) === PIPE && s.charCodeAt(end - 2) !== BACKSLASH) end -= 1;
  const cells: string[] = [];
  let from = start;
  let escaped = false;
  for (let i = s.indexOf('|', start); i !== -1 && i < end; i = s.indexOf('|', i + 1)) {
    if (s.charCodeAt(i - 1) === BACKSLASH) {
      escaped = true;
      continue;
    }
    cells.push(cell(s, from, i, escaped));
    from = i + 1;
    escaped = false;
  }
  cells.push(cell(s, from, end, escaped));
  return cells;
}

const DELIMITER_CELL = /^:?-+:?$/;

/** Whether a line is a table's delimiter row (`|---|:--:|`): pipes, dashes, colons only. */
export function isDelimiterRow(text: string): boolean {
  if (!text.includes('|') || text.length > MAX_HEADER_CHARS) return false;
  const cells = splitCells(text);
  return cells.length > 0 && cells.every((c) => DELIMITER_CELL.test(c.replace(/\s+/g, '')));
}

/** A header cell as the column matcher reads it: lower case, markup stripped, spaces collapsed. */
export function headerName(cellText: string): string {
  return cellText.toLowerCase().replace(/[*`]/g, '').replace(/[_\s]+/g, ' ').replace(/:$/, '').trim();
}
