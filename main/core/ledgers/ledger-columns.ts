import type { Severity } from '../../../shared/domain';
import type { ColumnMap, ColumnRole, TableKind } from './ledger-records';

type Name = (n: string) => boolean;

const oneOf =
  (...words: string[]): Name =>
  (n) =>
    words.includes(n);

// Header words, matched on `headerName` (lower case, markup stripped). Earlier matchers win when
// several columns could hold a role (a findings table's `Finding` beats its `Title`).
const ID: Name = (n) => oneOf('id', 'ref', 'key', 'item', 'r', 'rel', 'r-###', 'rel-###', 'r-id', 'rel-id', 'r#', 'rel#')(n) || n.endsWith(' id');
const NUMBER = oneOf('#', 'no', 'no.', 'n', 'nr', 'num', 'number');
const SEVERITY: Name = (n) => n.startsWith('sev') || oneOf('priority', 'prio', 'p', 'p-level')(n);
const CATEGORY: Name = (n) => n.startsWith('categ') || n.endsWith(' category') || oneOf('cat', 'area', 'class', 'kind', 'type')(n);
const WHERE: Name = (n) => n.includes('file:line') || oneOf('where', 'location', 'loc', 'file', 'files', 'cite', 'cites', 'site', 'evidence')(n);
const FINDING_WORD = oneOf('finding', 'findings');
const TEXT_WORD = oneOf('description', 'issue', 'text', 'summary', 'defect', 'problem', 'detail', 'details', 'what');
const TITLE_WORD = oneOf('title', 'name');
const REFS: Name = (n) =>
  oneOf('findings', 'finding(s)', 'finding', 'covers', 'covered', 'r-ids', 'r ids', 'r-numbers', 'r numbers', 'fixes', 'for')(n) ||
  n.startsWith('covers ') ||
  n.endsWith(' findings') ||
  n.startsWith('findings ');
const REFS_ONLY: Name = (n) => n !== 'finding' && REFS(n);
const ACCEPTANCE: Name = (n) => n.includes('accept') || n.includes('criteria') || n.includes('fault-injection') || n.includes('fault injection');
const OUTCOME_WORD = oneOf('outcome', 'outcomes', 'result', 'verdict');
const OUTCOME: Name = (n) => OUTCOME_WORD(n) || oneOf('status', 'state')(n);
const DATE = oneOf('date', 'day', 'when', 'on');
const RED_GREEN: Name = (n) => n.includes('red') && n.includes('green');
const RED: Name = (n) => n === 'red' || n.startsWith('red ');
const GREEN: Name = (n) => n === 'green' || n.startsWith('green ');
const NOTE: Name = (n) => n.startsWith('note') || n.includes('root cause') || n.includes('hypothesis') || oneOf('comment', 'comments', 'why', 'reason')(n);
const TASK = oneOf('task', 'tasks');
const STATUS = oneOf('status', 'state');
const GATE_RUNS: Name = (n) => n === 'gate runs' || n === 'gates' || n === 'gate count';
const FIRST_GATE: Name = (n) => n === 'first gate' || n === 'first run';
const DEVIATIONS: Name = (n) => n.startsWith('deviation');
const MODEL = oneOf('model', 'models');
const FAULT = oneOf('fault', 'faults', 'blame', 'cause', 'owner');

/** The first column matching any of `names`, trying the names in order; -1 when none does. */
function column(names: readonly string[], ...matchers: Name[]): number {
  for (const m of matchers) {
    const i = names.findIndex(m);
    if (i !== -1) return i;
  }
  return -1;
}

function build(names: readonly string[], roles: ReadonlyArray<readonly [ColumnRole, ...Name[]]>): ColumnMap {
  const cols: { [K in ColumnRole]?: number } = {};
  const taken = new Set<number>();
  for (const [role, ...matchers] of roles) {
    const i = column(
      names.map((n, j) => (taken.has(j) ? '\u0000' : n)),
      ...matchers,
    );
    if (i === -1) continue;
    cols[role] = i;
    taken.add(i);
  }
  return cols;
}

/**
 * Which kind of table a header row starts, and where each column is. Matching is by header words,
 * case-insensitive and lenient (see the matchers above); the first rule that fits wins:
 * task (`Task` + `Status`), review finding (`#` + `Finding` + severity or fault), then with an
 * ID column: backlog (an acceptance column), log outcome (outcome/status column), finding
 * (text + severity/category/where), backlog (a findings column naming R-ids). Else `other`.
 */
export function classifyHeader(names: readonly string[]): { kind: TableKind; cols: ColumnMap } {
  const has = (...m: Name[]) => column(names, ...m) !== -1;
  if (has(TASK) && has(STATUS)) {
    const cols = build(names, [
      ['task', TASK],
      ['date', DATE],
      ['status', STATUS],
      ['gateRuns', GATE_RUNS],
      ['firstGate', FIRST_GATE],
      ['deviations', DEVIATIONS],
      ['note', NOTE],
      ['model', MODEL],
    ]);
    return { kind: 'task', cols };
  }
  if (has(NUMBER) && has(FINDING_WORD, TEXT_WORD) && has(SEVERITY, FAULT)) {
    const cols = build(names, [
      ['number', NUMBER],
      ['text', FINDING_WORD, TEXT_WORD],
      ['severity', SEVERITY],
      ['fault', FAULT],
    ]);
    return { kind: 'review-finding', cols };
  }
  if (!has(ID)) return { kind: 'other', cols: {} };
  const locating = has(CATEGORY) || has(WHERE);
  if (has(ACCEPTANCE)) {
    const cols = build(names, [['id', ID], ['acceptance', ACCEPTANCE], ['severity', SEVERITY], ['refs', REFS]]);
    return { kind: 'backlog', cols };
  }
  // `Status` alone is common in findings tables: it names a log outcome only beside a date or counts.
  const outcome = has(OUTCOME_WORD) || (has(OUTCOME) && has(DATE, RED_GREEN, RED, GREEN) && !has(SEVERITY));
  if (outcome && !locating) {
    const cols = build(names, [
      ['id', ID],
      ['date', DATE],
      ['outcome', OUTCOME],
      ['redGreen', RED_GREEN],
      ['red', RED],
      ['green', GREEN],
      ['note', NOTE],
    ]);
    return { kind: 'outcome', cols };
  }
  if (has(FINDING_WORD, TEXT_WORD, TITLE_WORD) && (locating || has(SEVERITY))) {
    const cols = build(names, [
      ['id', ID],
      ['severity', SEVERITY],
      ['category', CATEGORY],
      ['where', WHERE],
      ['text', FINDING_WORD, TEXT_WORD, TITLE_WORD],
    ]);
    return { kind: 'finding', cols };
  }
  if (has(REFS_ONLY)) return { kind: 'backlog', cols: build(names, [['id', ID], ['refs', REFS], ['severity', SEVERITY]]) };
  return { kind: 'other', cols: {} };
}

/** Whether `c` (one character, or '' past either end) is an ASCII letter or digit. */
function isAlnum(c: string): boolean {
  return c !== '' && /[0-9A-Za-z]/.test(c);
}

const SEVERITY_AT = /[pP]([0-3])(?![0-9A-Za-z])/g;

/** `P0`..`P3` from a severity cell (`p1`, `**P1**`, `P1 (contested: P0)` → P1); else null. */
export function normalizeSeverity(cellText: string | null): Severity | null {
  if (cellText === null) return null;
  const s = cellText.length > 200 ? cellText.slice(0, 200) : cellText;
  SEVERITY_AT.lastIndex = 0;
  for (let m = SEVERITY_AT.exec(s); m !== null; m = SEVERITY_AT.exec(s)) {
    if (isAlnum(s.charAt(m.index - 1))) continue;
    return `P${m[1]}` as Severity;
  }
  return null;
}

/**
 * A severity cell as written when it says more than its severity (`P1 (contested: P0)`, `High`),
 * so the disagreement is shown, not lost; null when the cell is only the severity (`p1`, `**P1**`).
 */
export function severityAsWritten(cellText: string | null): string | null {
  if (cellText === null) return null;
  const text = cellText.replace(/\s+/g, ' ').trim();
  const bare = text.replace(/[*_`]/g, '').trim().toUpperCase();
  if (bare === '' || bare === normalizeSeverity(text)) return null;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * The ids with `prefix` (`R` or `REL`) in a text, in order and without duplicates: `R-125`,
 * `R-84`. A range `R-084…R-090` gives its two ends (ranges are not expanded).
 */
export function idsIn(text: string, prefix: string): string[] {
  const out: string[] = [];
  const needle = `${prefix}-`;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) {
    if (isAlnum(text.charAt(i - 1))) continue;
    let j = i + needle.length;
    while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j += 1;
    if (j === i + needle.length) continue;
    // One lower-case suffix letter belongs to the id (`REL-021b`); more letters mean it is not an id.
    if (/[a-z]/.test(text.charAt(j)) && !isAlnum(text.charAt(j + 1))) j += 1;
    if (isAlnum(text.charAt(j))) continue;
    const id = text.slice(i, j);
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

const INT = /\d+/g;

/** Where `word` first stands as a whole word in `s`, or -1. */
function wordAt(s: string, word: string): number {
  for (let i = s.indexOf(word); i !== -1; i = s.indexOf(word, i + 1)) {
    if (!/[a-z]/.test(s.charAt(i - 1)) && !/[a-z]/.test(s.charAt(i + word.length))) return i;
  }
  return -1;
}

/** The whole number right after (else right before) `word` in `s`, e.g. `red 3`, `red=3`, `3 red`. */
function numberBy(s: string, word: string): number | null {
  const at = wordAt(s, word);
  if (at === -1) return null;
  let j = at + word.length;
  while (j < s.length && ' :=\t'.includes(s.charAt(j))) j += 1;
  let k = j;
  while (k < s.length && s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) k += 1;
  if (k > j) return Number(s.slice(j, k));
  let b = at - 1;
  while (b >= 0 && s.charAt(b) === ' ') b -= 1;
  let a = b;
  while (a >= 0 && s.charCodeAt(a) >= 48 && s.charCodeAt(a) <= 57) a -= 1;
  return a < b ? Number(s.slice(a + 1, b + 1)) : null;
}

/** Red/green test counts from one cell: `1/1`, `red 3 green 3`, `3 red, 3 green`, `red=2 green=5`. */
export function redGreen(cellText: string | null): { red: number | null; green: number | null } {
  if (cellText === null) return { red: null, green: null };
  const s = (cellText.length > 200 ? cellText.slice(0, 200) : cellText).toLowerCase();
  const red = numberBy(s, 'red');
  const green = numberBy(s, 'green');
  if (red !== null || green !== null) return { red, green };
  const nums = s.match(INT) ?? [];
  if (nums.length >= 2) return { red: Number(nums[0]), green: Number(nums[1]) };
  return { red: null, green: null };
}

/** The first whole number of a cell, or null. */
export function firstInt(cellText: string | null): number | null {
  if (cellText === null) return null;
  const m = /\d+/.exec(cellText.length > 200 ? cellText.slice(0, 200) : cellText);
  return m ? Number(m[0]) : null;
}
