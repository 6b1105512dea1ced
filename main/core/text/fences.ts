/** An open code fence: its character and run length (a closing fence needs at least as many). */
export interface OpenFence {
  readonly char: '`' | '~';
  readonly len: number;
}

const BACKTICK = 96;
const TILDE = 126;
const SPACE = 32;

/** The fence run at the start of a line (CommonMark: up to 3 spaces of indent, 3+ of one char). */
function fenceAt(text: string): { char: '`' | '~'; len: number; rest: string } | null {
  let i = 0;
  while (i < 3 && text.charCodeAt(i) === SPACE) i += 1;
  const c = text.charCodeAt(i);
  if (c !== BACKTICK && c !== TILDE) return null;
  let j = i;
  while (text.charCodeAt(j) === c) j += 1;
  if (j - i < 3) return null;
  return { char: c === BACKTICK ? '`' : '~', len: j - i, rest: text.slice(j) };
}

/**
 * The fence after a line: `undefined` when the line does not open or close one, else the new
 * open fence or null (closed). Shared by the transcript parser (verdicts inside a fence are prose)
 * and the ledger parser (tables inside a fence are examples).
 */
export function fenceChange(open: OpenFence | null, text: string): OpenFence | null | undefined {
  const f = fenceAt(text);
  if (!f) return undefined;
  if (open) {
    const closes = f.char === open.char && f.len >= open.len && f.rest.trim() === '';
    return closes ? null : undefined;
  }
  // A backtick fence's info string may not contain a backtick (that is inline code, not a fence).
  if (f.char === '`' && f.rest.includes('`')) return undefined;
  return { char: f.char, len: f.len };
}
