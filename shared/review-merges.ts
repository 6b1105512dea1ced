import type { PullRequest } from './domain';
import { codeSpan, escapeMarkdown, markdownUrl } from './markdown-text';
import type { DeskMerge, DeskPr } from './pr-desk';

// The merges made from the console's merge desk, as the Review and its summary show them: on a
// ready PR the tracker has not read merged yet, or listed after the ready ones once it has.

/** A PR merged from the console's merge desk in the window, once the PR tracker no longer lists it ready. */
export interface SummaryMerged {
  readonly loop: string;
  readonly url: string;
  readonly number: number;
  readonly head: string;
  readonly merged: DeskMerge;
}

/**
 * The merges made from the console in the window that are not on a ready PR (GitHub already said
 * merged): the Review lists them after the ready ones. One rule for the screen and the summary.
 */
export function mergedFromConsole(desk: readonly DeskPr[], ready: readonly Pick<PullRequest, 'loop' | 'number'>[], since: number): (DeskPr & { readonly merged: DeskMerge })[] {
  return desk.filter((d): d is DeskPr & { readonly merged: DeskMerge } => d.merged !== null && Date.parse(d.merged.at) >= since && !ready.some((p) => p.loop === d.loop && p.number === d.number));
}

/** A console merge in a sentence: by whom, when, the head and the method. */
export function mergeText(m: DeskMerge): string {
  return `merged from the console by ${escapeMarkdown(m.by)} at ${m.at} (${m.sha.slice(0, 7)}, ${m.method})`;
}

/** A PR merged from the console, as a Markdown list item. */
export function mergedLine(p: SummaryMerged): string {
  return `- ${escapeMarkdown(p.loop)} #${p.number} ${codeSpan(p.head)} — ${markdownUrl(p.url)} — ${mergeText(p.merged)}`;
}
