import { contractMarkdown } from './contract-breach';
import { markdownUrl } from './markdown-text';
import { needyLoops, reviewHeadline, section, waitingList, type ReviewSummary } from './review-summary';

/** The morning digest: a subject line, and the text every sink sends (Markdown; one line when there is nothing to say). */
export interface ReviewDigest {
  readonly subject: string;
  readonly text: string;
  /** Nothing waits on the operator, no contract is broken, no loop needs attention: the text is one line. */
  readonly quiet: boolean;
  /** The console's Review, when its address is known. */
  readonly url: string | null;
}

/**
 * The Review's first part as a push: its headline, Waiting on you and Broken contract, with a link
 * into the console (`consoleUrl`, when serve mode knows it). A night with nothing to say is one line.
 * `date` is the digest's local date (YYYY-MM-DD in its time zone).
 */
export function reviewDigest(s: ReviewSummary, date: string, consoleUrl: string | undefined): ReviewDigest {
  const headline = reviewHeadline(s);
  const url = consoleUrl ? `${consoleUrl.replace(/#.*$/, '').replace(/\/+$/, '')}/#/review` : null;
  const quiet = s.waiting.length === 0 && s.contract.length === 0 && needyLoops(s) === 0;
  const subject = `Loopdeck ${date}: ${quiet ? 'nothing needs you' : headline}`;
  if (quiet) return { subject, quiet, url, text: `Loopdeck ${date}: nothing needs you — ${headline}.${url ? ` ${url}` : ''}` };
  const text = [
    `# Loopdeck review, ${date}`,
    '',
    headline,
    ...(url ? ['', `Open the Review: ${markdownUrl(url)}`] : []),
    ...section('Waiting on you', waitingList(s.waiting), 'Nothing.'),
    ...section('Broken contract', contractMarkdown(s.contract), 'None.'),
    '',
  ].join('\n');
  return { subject, quiet, url, text };
}
