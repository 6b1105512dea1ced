import { posix } from 'node:path';
import type { LoopConfig } from '../config/schema';
import type { LineParser } from '../text/line-parser';
import { EMPTY_RESULT, cleanLine, quote } from '../text/lines';

// The nightly branch's reflog (FORMATS.md §2.7): `<clone>/.git/logs/refs/heads/<branch>`, one
// line a move of the branch, `<old sha> <new sha> <name> <<email>> <unix seconds> <±hhmm>\t<message>`.
// What each phase committed, and the REL / R ids its commits name (issue 43, item 4).

/** What kind of move a reflog line records, from its message. */
export type ReflogKind = 'commit' | 'created' | 'reset' | 'rebase' | 'merge' | 'other';

/** One move of the nightly branch, as its reflog line says. */
export interface ReflogEntry {
  /** The line of the reflog file (1-based). */
  readonly line: number;
  /** The branch's tip before the move (all zeros when the move created the branch). */
  readonly oldSha: string;
  /** The branch's tip after the move. */
  readonly newSha: string;
  /** Who moved it, as git wrote it: `Name <email>`. */
  readonly who: string;
  /** When (ISO, UTC), from the line's unix seconds. */
  readonly at: string;
  /** The move's message (`commit: REL-050: shrink the pool`), cut at MAX_REFLOG_MESSAGE characters. */
  readonly message: string;
  readonly kind: ReflogKind;
  /** The `REL-###` and `R-###` ids the message names, first mention first, each once. */
  readonly ids: readonly string[];
}

/** The longest reflog line read (characters); git writes one subject line, so a longer line is not git's. */
export const MAX_REFLOG_LINE = 64 * 1024;
/** The longest message kept on an entry (characters); ids are taken from the whole message first. */
export const MAX_REFLOG_MESSAGE = 1000;
/** The most ids kept from one message. */
export const MAX_REFLOG_IDS = 64;
/** The longest header (everything before the tab) a line may have. */
const MAX_HEADER = 2048;

const ZERO = /^0+$/;
// Two SHAs of one length (SHA-1 or SHA-256), a name and email with no angle brackets, seconds, zone.
// No part can match past an angle bracket, so the match is linear in the header's length.
const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) ([^<>]*?) ?<([^<>]*)> (\d{1,12}) ([+-])(\d\d)(\d\d)$/i;
const ID = /(?<![A-Za-z0-9_-])(?:REL|R)-\d{1,9}(?![A-Za-z0-9_])/g;

/** What one line is: an entry, or why it is not one. */
type LineVerdict = { readonly entry: ReflogEntry } | { readonly why: string };

function readLine(raw: string, line: number): LineVerdict {
  if (raw.length > MAX_REFLOG_LINE) return { why: `line is ${raw.length} characters, longer than the ${MAX_REFLOG_LINE} a reflog line may be` };
  const text = cleanLine(raw, line);
  const tab = text.indexOf('\t');
  const header = tab < 0 ? text : text.slice(0, tab);
  if (header.length > MAX_HEADER) return { why: `expected "<old sha> <new sha> <name> <<email>> <seconds> <±hhmm>" before a tab, got ${quote(header)}` };
  const m = HEADER.exec(header);
  if (!m) return { why: `expected "<old sha> <new sha> <name> <<email>> <seconds> <±hhmm>" before a tab, got ${quote(header)}` };
  const [, oldSha = '', newSha = '', name = '', email = '', seconds = '', , hh = '', mm = ''] = m;
  if (oldSha.length !== newSha.length) return { why: `the old and new SHAs differ in length (${oldSha.length} and ${newSha.length} hex digits)` };
  if (Number(mm) >= 60) return { why: `time zone ${quote(m[6] + hh + mm)} has ${mm} minutes` };
  const ms = Number(seconds) * 1000;
  const at = new Date(ms);
  if (!Number.isFinite(at.getTime())) return { why: `time ${quote(seconds)} is out of range` };
  // Git writes no message (and no tab) for a move without one.
  const full = tab < 0 ? '' : text.slice(tab + 1);
  const message = full.length > MAX_REFLOG_MESSAGE ? `${full.slice(0, MAX_REFLOG_MESSAGE - 1)}…` : full;
  return {
    entry: {
      line,
      oldSha: oldSha.toLowerCase(),
      newSha: newSha.toLowerCase(),
      who: name === '' ? `<${email}>` : `${name} <${email}>`,
      at: at.toISOString(),
      message,
      kind: reflogKind(full),
      ids: namedIds(full),
    },
  };
}

/**
 * One reflog line (without its newline) as an entry, or null when it is not one: a header not in
 * git's shape, SHAs of two lengths, a time out of range, or a line longer than MAX_REFLOG_LINE
 * (hostile input is cut there, never scanned whole). The caller records a problem naming the file
 * and line for a null (reflogParser does).
 */
export function parseReflogLine(text: string, line: number): ReflogEntry | null {
  const out = readLine(text, line);
  return 'entry' in out ? out.entry : null;
}

/**
 * What kind of move a message records. Git's prefixes: `commit`, `commit (initial)`,
 * `commit (amend)`, `cherry-pick`, `revert` and `am` made a commit (`commit`); `commit (merge)`,
 * `merge …` and `pull` (without `--rebase`) merged (`merge`); `rebase …` and `pull --rebase …`
 * rebased (`rebase`); `branch: Created from …` made the branch (`created`); `reset: moving to …`
 * and `branch: Reset to …` moved it by hand (`reset`); anything else (a rename, an `update-ref`
 * without a message) is `other`.
 */
export function reflogKind(message: string): ReflogKind {
  const colon = message.indexOf(':');
  const action = (colon < 0 ? message : message.slice(0, colon)).trim().toLowerCase();
  if (action === 'branch') {
    const rest = message.slice(colon + 1).trimStart();
    if (rest.startsWith('Created from')) return 'created';
    if (rest.startsWith('Reset to')) return 'reset';
    return 'other';
  }
  if (action === 'commit (merge)') return 'merge';
  if (action === 'commit' || action.startsWith('commit (') || action === 'cherry-pick' || action === 'revert' || action === 'am') return 'commit';
  if (action.startsWith('rebase') || action.startsWith('pull --rebase') || action.startsWith('pull -r')) return 'rebase';
  if (action.startsWith('merge') || action.startsWith('pull')) return 'merge';
  if (action === 'reset') return 'reset';
  return 'other';
}

/** The `REL-###` and `R-###` ids a text names, first mention first, each once (at most MAX_REFLOG_IDS). */
export function namedIds(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(ID)) {
    if (!out.includes(m[0])) out.push(m[0]);
    if (out.length >= MAX_REFLOG_IDS) break;
  }
  return out;
}

/** Parser state for a reflog: none is needed (every line stands alone). Plain JSON. */
export type ReflogState = Readonly<Record<string, never>>;

/** The line parser the follower reads a reflog with: a line that is not an entry is a problem naming file and line. */
export const reflogParser: LineParser<ReflogState, ReflogEntry> = {
  initial: () => ({}),
  line(state, raw, lineNo, source) {
    if (raw.trim() === '') return { state, result: EMPTY_RESULT };
    const out = readLine(raw, lineNo);
    if ('entry' in out) return { state, result: { records: [out.entry], problems: [] } };
    return { state, result: { records: [], problems: [{ source, line: lineNo, message: `not a reflog line: ${out.why}; line skipped` }] } };
  },
};

const CYCLE_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The loop's branch for a cycle: its `branch` with `{date}` the cycle's date. */
export function branchOf(loop: Pick<LoopConfig, 'branch'>, date: string): string {
  return loop.branch.replaceAll('{date}', date);
}

/**
 * Why git would refuse a branch name (git check-ref-format's rules for `refs/heads/<name>`), or
 * null when it is a name git accepts. A refused name is never joined into a path: `..` or a
 * leading `/` would leave the clone's reflog folder.
 */
export function branchNameProblem(branch: string): string | null {
  if (branch === '' || branch.length > 1024) return `branch ${quote(branch)} is empty or longer than 1024 characters`;
  if (branch.startsWith('-')) return `branch ${quote(branch)} starts with "-"`;
  if (branch === '@' || branch === 'HEAD') return `branch ${quote(branch)} is not a branch name git allows`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(branch)) return `branch ${quote(branch)} has a space, a control character or one of ~ ^ : ? * [ \\`;
  if (branch.includes('..') || branch.includes('@{')) return `branch ${quote(branch)} contains ".." or "@{"`;
  if (branch.endsWith('.')) return `branch ${quote(branch)} ends with "."`;
  for (const part of branch.split('/')) {
    if (part === '') return `branch ${quote(branch)} has an empty path component (a leading, trailing or double "/")`;
    if (part.startsWith('.') || part.endsWith('.lock')) return `branch ${quote(branch)} has a component starting with "." or ending with ".lock"`;
  }
  return null;
}

/**
 * Where the clone keeps a cycle's branch reflog, joined POSIX-style (runner hosts are Linux or
 * macOS): `<dir>/.git/logs/refs/heads/<branch>`. Null without `dir`, with a date that is not
 * YYYY-MM-DD, or with a branch git would refuse (see branchNameProblem).
 */
export function reflogPath(loop: Pick<LoopConfig, 'dir' | 'branch'>, date: string): string | null {
  if (!loop.dir || !CYCLE_DATE.test(date)) return null;
  const branch = branchOf(loop, date);
  if (branchNameProblem(branch) !== null) return null;
  return posix.join(loop.dir, '.git', 'logs', 'refs', 'heads', branch);
}

/** Kinds of move that add commits to the branch (see commitsIn). */
const ADDS: ReadonlySet<ReflogKind> = new Set(['commit', 'merge', 'rebase']);

/**
 * The moves inside a phase's window that added commits, in reflog order: a `commit`, `merge`
 * (including a pull) or `rebase` move whose new tip differs from the old one (and is not all
 * zeros). `created`, `reset` and `other` moves never count: creating the branch adds no commit, a
 * reset only points it elsewhere. The window is `fromIso` to `toIso`, both inclusive, at the
 * reflog's one-second grain (a move in the second a phase ended counts for it); `toIso` null is a
 * phase still running (no end). Throws a RangeError for a bound that is not a date.
 */
export function commitsIn(entries: readonly ReflogEntry[], fromIso: string, toIso: string | null): ReflogEntry[] {
  const from = Math.floor(Date.parse(fromIso) / 1000);
  const to = toIso === null ? Infinity : Math.floor(Date.parse(toIso) / 1000);
  if (Number.isNaN(from)) throw new RangeError(`commitsIn: window start ${quote(fromIso)} is not a date`);
  if (Number.isNaN(to)) throw new RangeError(`commitsIn: window end ${quote(String(toIso))} is not a date`);
  return entries.filter((e) => {
    if (!ADDS.has(e.kind) || e.newSha === e.oldSha || ZERO.test(e.newSha)) return false;
    const at = Math.floor(Date.parse(e.at) / 1000);
    return at >= from && at <= to;
  });
}
