import type { TranscriptMarkKind } from '../../../shared/transcript-domain';
import { stripEscapes } from '../../../shared/transcript-text';
import type { LineMark } from '../store/store';

/** The most characters of a line a mark quotes. */
export const MARK_TEXT_CHARS = 200;

/**
 * One cheap test a line: most transcript lines match none of these, and only the few that do are
 * looked at again to say which kind they are.
 */
const ANY = /Traceback|Error:|FAILED|exit(?:ed with)? (?:code|status)|watchdog|refused|denied|requires approval|not allowed to|wall-clock cap|cap reached|kill_round_group/i;

/** What each kind looks like, strongest first (a watchdog kill line is not also a failure). */
const KINDS: readonly (readonly [TranscriptMarkKind, RegExp])[] = [
  // "died to the stream watchdog at 600s with no progress" (reference/reliability-loop-skill.txt).
  ['watchdog', /\bstream watchdog\b|\bwatchdog\b.{0,60}\b(?:kill|killed|timed? ?out|no progress)/i],
  // The wrapper stopping the agent: its wall-clock cap, or its round's process group killed.
  ['stop', /\bwall-clock cap\b|\bcap reached\b|\bkill_round_group\b/i],
  // A command or a write the agent's sandbox or tool permissions refused.
  ['refused', /\brefused\b|\bpermission denied\b|\bhas been denied\b|\brequires approval\b|\bnot allowed to\b/i],
  ['failure', /^\s*Traceback \(most recent call last\)|\b[A-Za-z]*Error:|\bFAILED\b|\bexit(?:ed with)? (?:code|status) [1-9]\d*/],
];

/**
 * The mark of a transcript line, or null: the verdict (from the records the transcript parser
 * made of it), the stream watchdog's kill, the wrapper's stop, a refused command, a failure.
 */
export function transcriptMark(text: string, lineNo: number, records: readonly unknown[]): LineMark | null {
  const quote = (): string => stripEscapes(text.length > MARK_TEXT_CHARS * 4 ? text.slice(0, MARK_TEXT_CHARS * 4) : text).slice(0, MARK_TEXT_CHARS);
  if (records.some((r) => (r as { kind?: unknown }).kind === 'verdict')) return { line: lineNo, kind: 'verdict', text: quote() };
  if (!ANY.test(text)) return null;
  for (const [kind, re] of KINDS) if (re.test(text)) return { line: lineNo, kind, text: quote() };
  return null;
}
