import type { AuditMarkRecord } from './ledger-records';

const SPACE = 32;
const HASH = 35;

/** An ATX heading (`## Delta audit 2026-08-22`): its level and text, closing `#`s dropped. */
export function headingOf(text: string): { level: number; text: string } | null {
  let i = 0;
  while (i < 3 && text.charCodeAt(i) === SPACE) i += 1;
  if (text.charCodeAt(i) !== HASH) return null;
  let j = i;
  while (j - i < 7 && text.charCodeAt(j) === HASH) j += 1;
  const level = j - i;
  if (level > 6) return null;
  if (j < text.length && text.charAt(j) !== ' ' && text.charAt(j) !== '\t') return null;
  let body = text.slice(j).trim();
  let k = body.length;
  while (k > 0 && body.charCodeAt(k - 1) === HASH) k -= 1;
  if (k === 0) body = '';
  else if (k < body.length && (body.charAt(k - 1) === ' ' || body.charAt(k - 1) === '\t')) body = body.slice(0, k).trim();
  return { level, text: body };
}

const PREFIX = 'audited through';
const SHA = /^[0-9a-f]{4,64}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}/;
const COUNT = /(\d{1,9})[ \t]*(?:new[ \t]+)?findings?\b/i;

/** Whether a line is meant as an audit-ledger line: `Audited through:` at its start (after list or bold markup). */
export function auditMarkText(text: string): string | null {
  let s = text.trimStart();
  if (s.startsWith('- ') || s.startsWith('* ') || s.startsWith('> ')) s = s.slice(2).trimStart();
  while (s.startsWith('*') || s.startsWith('_')) s = s.slice(1);
  if (s.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return null;
  s = s.slice(PREFIX.length);
  while (s.startsWith('*') || s.startsWith('_')) s = s.slice(1);
  if (!s.startsWith(':')) return null;
  return s.slice(1).replace(/^[*_]+/, '');
}

/**
 * Parse the rest of `Audited through: <sha> on <YYYY-MM-DD> — <n> new findings` (em dash, en
 * dash, `-` or `--`; "no new findings" counts 0). A string is why the line could not be read.
 */
export function parseAuditMark(rest: string, line: number): AuditMarkRecord | string {
  const words = rest.slice(0, 400).trim().split(/[ \t]+/);
  const sha = (words[0] ?? '').replace(/[`*]/g, '');
  if (!SHA.test(sha)) return `has ${JSON.stringify(sha)} where a commit SHA belongs`;
  if ((words[1] ?? '').toLowerCase() !== 'on' || !DATE.test(words[2] ?? '')) return 'has no "on <YYYY-MM-DD>" after the SHA';
  const date = (words[2] ?? '').slice(0, 10);
  const tail = words.slice(3).join(' ');
  const n = COUNT.exec(tail);
  const newFindings = n ? Number(n[1]) : /\bno[ \t]+new\b/i.test(tail) ? 0 : null;
  return { kind: 'audit-mark', line, sha, date, newFindings };
}
