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

/** The longest line that can be the watchdog's own: longer is output that mentions it. */
export const WATCHDOG_LINE_MAX = 400;
/** The watchdog's tag opening its own line: `[stream watchdog]`, `[watchdog]`, `stream watchdog:`, `watchdog:`. */
const WATCHDOG_TAG = /^(?:\[(?:stream[ -])?watchdog\]|(?:stream[ -])?watchdog:)/i;
/** The kill wording on a watchdog line ("no output for 600s; killing the agent process group"). */
const KILL = /\b(?:kill(?:ed|s|ing)?|died|timed? ?out|no progress|no output|terminat(?:ed|ing)|abort(?:ed|ing)?)\b/i;

/**
 * Whether a line is the stream watchdog's kill: its own line, opened by its tag at column 0
 * (styling aside), of bounded length, saying kill (or died, timed out, no progress). A sentence
 * that mentions the watchdog — the loop's manual says a subagent "died to the stream watchdog at
 * 600s with no progress" in the middle of a paragraph — is prose, never a kill.
 */
export function isWatchdogKill(text: string): boolean {
  if (text.length > WATCHDOG_LINE_MAX) return false;
  const t = text.charCodeAt(0) === 0x1b ? stripEscapes(text) : text;
  return WATCHDOG_TAG.test(t) && KILL.test(t);
}

/** What each kind looks like, strongest first (a watchdog kill line is not also a failure). */
const KINDS: readonly (readonly [TranscriptMarkKind, RegExp | ((text: string) => boolean)])[] = [
  ['watchdog', isWatchdogKill],
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
  for (const [kind, is] of KINDS) if (typeof is === 'function' ? is(text) : is.test(text)) return { line: lineNo, kind, text: quote() };
  return null;
}
