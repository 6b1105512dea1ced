import * as z from 'zod';
import { externalHttpsUrl, findingHash, transcriptHash } from './links';
import { codeSpan, escapeMarkdown, markdownUrl } from './markdown-text';

// "Broken contract": where the loop broke a rule of its own manual
// (shared/reference/reliability-loop-skill.txt), from evidence Loopdeck follows, never from what
// the loop says of itself. One list for the Review, the Markdown summary (`## Broken contract`),
// `snapshot --json` (`contract`), the notices (rule `contract-<kind>`) and /metrics
// (`loopdeck_contract_breaches{loop,kind}`).

/** The rules checked, in the order the list shows them. */
export const CONTRACT_KINDS = [
  'hollow',
  'unfinished-stage',
  'no-verdict',
  'no-op-after-commit',
  'no-pr',
  'two-prs',
  'deferred',
  'ledger-rewritten',
  'duplicate-id',
  'id-order',
  'anchor',
  'no-dead-man-comment',
] as const;
/** Which rule was broken. */
export const ContractKindSchema = z.enum(CONTRACT_KINDS);
/** Which rule was broken. */
export type ContractKind = z.infer<typeof ContractKindSchema>;

/** Where the evidence is: a file of the runner (and its line), or a URL (a PR, an issue). */
export const ContractEvidenceSchema = z
  .object({
    /** The runner's file (a transcript, an rc file, a ledger, the reflog), or null. */
    file: z.string().nullable(),
    /** Its line (1-based), or null. */
    line: z.number().int().positive().nullable(),
    /** A page (a PR, the rolling issue), or null. */
    url: z.string().nullable(),
  })
  .readonly();
/** Where a breach's evidence is. */
export type ContractEvidence = z.infer<typeof ContractEvidenceSchema>;

/** One broken rule: which, of which loop's cycle and phase, about what (`id`), since when. */
export const ContractBreachSchema = z
  .object({
    kind: ContractKindSchema,
    loop: z.string(),
    /** The cycle's date (YYYY-MM-DD), or null for a ledger-wide breach. */
    date: z.string().nullable(),
    /** The phase, or null when the breach is not one phase's. */
    phase: z.string().nullable(),
    /** What it is about: a REL or R id, a PR number (`#88`), a stage, a file; null when the phase says it all. */
    id: z.string().nullable(),
    /** One sentence for a person: what the evidence shows, and only that. */
    detail: z.string(),
    /** When Loopdeck first saw it (ISO), or the date its evidence carries. */
    since: z.string().nullable(),
    evidence: ContractEvidenceSchema,
  })
  .readonly();
/** One broken rule of the loop's manual. */
export type ContractBreach = z.infer<typeof ContractBreachSchema>;

/** How each kind is named, in the Review and the Markdown alike. */
export const CONTRACT_LABEL: Readonly<Record<ContractKind, string>> = {
  hollow: 'hollow remediate',
  'unfinished-stage': 'stage unfinished',
  'no-verdict': 'no deliver verdict',
  'no-op-after-commit': 'NO-OP after a commit',
  'no-pr': 'commits without a PR',
  'two-prs': 'two PRs for one branch',
  deferred: 'DEFERRED outcome',
  'ledger-rewritten': 'ledger rewritten',
  'duplicate-id': 'id used twice',
  'id-order': 'ids out of order',
  anchor: 'bad audit anchor',
  'no-dead-man-comment': 'no dead-man comment',
};

/** The manual's own sentence each kind enforces, verbatim (shown beside the item, and in the docs). */
export const CONTRACT_RULE: Readonly<Record<ContractKind, string>> = {
  hollow: 'A finding is done only as DONE, BLOCKED (root-cause hypothesis after three genuine attempts), or operator-only (an exact operator action for the PR\'s Next section); verified findings with no implementation is a failed remediate phase.',
  'unfinished-stage': 'The phase\'s completion marker must not be printed while any stage is still in flight.',
  'no-verdict': 'An exit-0 deliver phase without the line is INCOMPLETE.',
  'no-op-after-commit': 'Never emit it when you did commit. A commit is its own evidence.',
  'no-pr': 'Zero new findings still opens/updates the PR — the PR is the dead-man signal that the run happened.',
  'two-prs': 'Never open a second PR for a branch that already has one.',
  deferred: 'In remediate mode, `DEFERRED` is not an allowed outcome.',
  'ledger-rewritten': '`RELIABILITY_AUDIT.md` finding IDs (R-###) and backlog IDs (REL-###) continue their numbering; never renumber or rewrite prior entries. `RELIABILITY_LOG.md` is append-only.',
  'duplicate-id': 'Dedupe against ALL existing R-### findings … continuing R-numbers … continuing REL-numbers.',
  'id-order': 'Verify with an assertion that the emitted ids are strictly ascending before you commit.',
  anchor: 'Update the §Audit ledger line: `Audited through: <HEAD sha> on <date> — <n> new findings`.',
  'no-dead-man-comment': 'A missing daily comment means the runner did not fire.',
};

/** A breach's identity: the same breach read again is the same item (and the same notice). */
export function breachKey(b: Pick<ContractBreach, 'kind' | 'loop' | 'date' | 'phase' | 'id'>): string {
  return [b.kind, b.loop, b.date ?? '', b.phase ?? '', b.id ?? ''].join(':');
}

/** The list in the order shown: by kind (CONTRACT_KINDS), then newest cycle first, then loop, phase and id. */
export function sortBreaches(list: readonly ContractBreach[]): ContractBreach[] {
  const rank = (k: ContractKind): number => CONTRACT_KINDS.indexOf(k);
  return [...list].sort(
    (a, b) =>
      rank(a.kind) - rank(b.kind) ||
      (b.date ?? '').localeCompare(a.date ?? '') ||
      a.loop.localeCompare(b.loop) ||
      (a.phase ?? '').localeCompare(b.phase ?? '') ||
      (a.id ?? '').localeCompare(b.id ?? '', undefined, { numeric: true }),
  );
}

/** Kinds whose evidence is a ledger row rather than a phase's files. */
const LEDGER_KINDS: ReadonlySet<ContractKind> = new Set(['deferred', 'ledger-rewritten', 'duplicate-id', 'id-order', 'anchor']);

/**
 * Where an item links: its page (a PR, the rolling issue) when it has one; a ledger row's item
 * (the finding or backlog item its id names) or the ledgers; else the phase's transcript, at the
 * line when the evidence is a transcript line.
 */
export function breachHref(b: ContractBreach): string {
  if (b.evidence.url) return b.evidence.url;
  if (LEDGER_KINDS.has(b.kind)) return b.id && /^(?:REL|R)-\d+$/i.test(b.id) ? findingHash({ loop: b.loop, id: b.id }) : '#/ledgers';
  if (b.date && b.phase) return transcriptHash({ loop: b.loop, date: b.date, phase: b.phase }, b.evidence.file?.endsWith('.log') ? b.evidence.line : null);
  return '#/loops';
}

/** Where the evidence is, for a person: `file:line`, the file, or the page. */
export function evidenceText(e: ContractEvidence): string | null {
  if (e.file) return e.line === null ? e.file : `${e.file}:${e.line}`;
  return e.url;
}

/** The most items `## Broken contract` lists; the rest are counted. */
export const CONTRACT_MARKDOWN_LIMIT = 50;

/** `## Broken contract` of the Markdown summary: one line an item, its rule and its evidence; outside text escaped. */
export function contractMarkdown(list: readonly ContractBreach[]): string[] {
  const lines = list.slice(0, CONTRACT_MARKDOWN_LIMIT).map((b) => {
    const where = [b.loop, b.date, b.phase].filter((x): x is string => !!x).map(escapeMarkdown).join(' ');
    const evidence = b.evidence.url && externalHttpsUrl(b.evidence.url) ? ` (${markdownUrl(b.evidence.url)})` : b.evidence.file ? ` (${codeSpan(evidenceText(b.evidence) ?? '')})` : '';
    return `- **${CONTRACT_LABEL[b.kind]}** ${where}${b.id ? ` ${codeSpan(b.id)}` : ''}: ${escapeMarkdown(b.detail)}${evidence}`;
  });
  const more = list.length - CONTRACT_MARKDOWN_LIMIT;
  if (more > 0) lines.push(`- and ${more} more`);
  return lines;
}
