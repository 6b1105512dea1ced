// The PR body's `Next` section: the loop's operator actions before the merge. The loop's PR
// formatter writes three sections, "Issue discovered", "What was done to fix it" and "Next"
// (reliability-loop-skill §Pull request output), Next bulleted `- **Component**: action.` when
// there is more than one, a plain sentence when one, and "Fixed with green deployment" (or, on a
// zero-finding night, "No deploy needed.") when nothing is left to do.

/** At most this many actions are kept from a Next section ("and N more" says the rest). */
export const MAX_NEXT_ITEMS = 12;
/** An action longer than this is cut (with "…"). */
export const MAX_NEXT_ITEM_CHARS = 400;
/** Only this much of a body is read (GitHub allows 65,536 characters). */
export const MAX_BODY_CHARS = 65_536;

/** `## Next`, `# Next:`, `**Next**`, or a line that is only `Next` / `Next:`; any case. */
const NEXT_HEADING = /^\s{0,3}(?:#{1,6}\s*)?(?:\*\*|__)?\s*next\s*:?\s*(?:\*\*|__)?\s*#*\s*$/i;
/** Any Markdown ATX heading, or a bold-only line, or one of the formatter's other section names alone. */
const OTHER_HEADING = /^\s{0,3}(?:#{1,6}\s+\S|(?:\*\*|__)[^*_]+(?:\*\*|__)\s*:?\s*$|(?:issue discovered|what was done to fix it)\s*:?\s*$)/i;
/** A setext underline (`---` or `===`) under a heading line. */
const SETEXT = /^\s{0,3}(?:=+|-+)\s*$/;
const BULLET = /^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$/;
/** What the formatter writes when nothing must happen outside CI. */
const NOTHING_TO_DO = /^(?:fixed with (?:a )?green deployment|no deploy(?:ment)? needed|none|nothing)\.?$/i;

const cut = (text: string): string => {
  // Bold markers are the formatter's (`- **Component**: action`); the console shows plain text.
  const s = text.replace(/\*\*|__/g, '');
  return s.length > MAX_NEXT_ITEM_CHARS ? `${s.slice(0, MAX_NEXT_ITEM_CHARS - 1).trimEnd()}…` : s;
};

/**
 * The actions of a PR body's Next section, one per bullet (a paragraph without bullets is one
 * action), bounded in number and length; [] when the section says nothing is left to do; null
 * when the body has no Next section.
 */
export function nextSection(body: string | null | undefined): string[] | null {
  if (!body) return null;
  const lines = body.slice(0, MAX_BODY_CHARS).replace(/\r\n?/g, '\n').split('\n');
  let start = -1;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    // A setext heading: `Next` over `----`.
    if (NEXT_HEADING.test(line)) {
      start = SETEXT.test(lines[i + 1] ?? 'x') ? i + 2 : i + 1;
      break;
    }
  }
  if (start < 0) return null;
  const items: string[] = [];
  let fence = false;
  for (let i = start; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (/^\s{0,3}(```|~~~)/.test(line)) fence = !fence;
    if (!fence && (OTHER_HEADING.test(line) || (SETEXT.test(lines[i + 1] ?? 'x') && line.trim() !== '' && !BULLET.test(line)))) break;
    const bullet = BULLET.exec(line);
    const text = (bullet ? bullet[1] : line)?.trim() ?? '';
    if (bullet) items.push(text);
    else if (text === '') {
      if (items.length > 0 && items.at(-1) !== '') items.push('');
    } else if (items.length > 0 && items.at(-1) !== '') items[items.length - 1] = `${items.at(-1)} ${text}`;
    else items.push(text);
  }
  const actions = items.filter((s) => s !== '' && !NOTHING_TO_DO.test(plain(s)));
  if (actions.length <= MAX_NEXT_ITEMS) return actions.map(cut);
  return [...actions.slice(0, MAX_NEXT_ITEMS - 1).map(cut), `… and ${actions.length - MAX_NEXT_ITEMS + 1} more in the PR's Next section`];
}

/** The text without emphasis markers, for comparing. */
function plain(s: string): string {
  return s.replace(/[*_`]/g, '').trim();
}
