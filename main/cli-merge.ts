import { mergeBlockers, type DeskMerge, type DeskPr } from '../shared/pr-desk';
import { escapeUnsafe } from '../shared/unsafe-text';
import { CliError } from './cli-args';
import { openEngine } from './cli-common';
import { checkLoop, checksText, noGithubLine, readDesk, reportFailures, sizeText, terminalLines, type DeskFlags } from './cli-prs';
import { confirm } from './cli-terminal';
import { DeskRefusal } from './core/prs/desk-service';
import { logSafe } from './core/logging/log-text';
import { localUser } from './rpc/local-caller';

// `loopdeck merge LOOP NUMBER --sha SHA [--method M] [--yes]`: one PR of the merge desk merged, only
// of the head the operator reviewed (`--sha`, also GitHub's own precondition), after showing it and
// asking; recorded under the local account, as the console records its merges.

const USAGE = 'Usage: loopdeck merge LOOP NUMBER --sha SHA [--method merge|squash|rebase] [--yes]';
/** GitHub's merge methods (DeskMerge['method']). */
const METHODS: readonly DeskMerge['method'][] = ['merge', 'squash', 'rebase'];

/** The PR as the confirmation shows it: number, title, base, size, checks, head, Next steps; escaped (terminalLines). */
export function mergeSummary(pr: DeskPr): string {
  const lines = [
    `PR #${pr.number} of ${pr.loop}: ${pr.title}`,
    `  ${pr.url}`,
    `  into ${pr.base} from ${pr.head}, head ${pr.headSha}`,
    `  size: ${sizeText(pr)} in ${pr.changedFiles ?? '—'} file(s)${pr.large ? ' (large)' : ''}`,
    `  checks: ${checksText(pr.checks)}`,
    ...pr.checks.map((c) => `    ${c.name}  ${c.state}${c.url === null ? '' : `  ${c.url}`}`),
  ];
  if (pr.next.length > 0) lines.push(`  next: ${pr.next.filter((s) => s.doneAt !== null).length}/${pr.next.length} done`);
  if (pr.overlaps.length > 0) lines.push(`  overlaps: ${pr.overlaps.map((n) => `#${n}`).join(' ')} (open PRs touching the same files)`);
  return terminalLines(lines);
}

/** The checked words and flags of `merge`: usage mistakes exit 2 before anything is opened. */
function parse(flags: DeskFlags, words: readonly string[]): { loop: string; number: number; sha: string; method: DeskMerge['method'] | undefined } {
  const [loop, numberText, extra] = words;
  if (loop === undefined || numberText === undefined || extra !== undefined) throw new CliError(USAGE);
  if (!/^[1-9]\d{0,9}$/.test(numberText)) throw new CliError(`NUMBER: expected a PR number such as 88, got ${JSON.stringify(numberText)}.\n${USAGE}`);
  if (flags.sha === undefined) throw new CliError(`--sha: required: the head commit you reviewed (40 hex digits; \`loopdeck prs --json\` prints it as headSha), so that a PR that moved since is refused, not merged.\n${USAGE}`);
  if (!/^[0-9a-f]{40}$/i.test(flags.sha)) throw new CliError(`--sha: expected the head commit's 40 hex digits, got ${JSON.stringify(flags.sha)}.`);
  const method = flags.method;
  if (method !== undefined && !(METHODS as readonly string[]).includes(method)) throw new CliError(`--method: expected one of ${METHODS.join(', ')}, got ${JSON.stringify(method)} (default: prs.mergeMethod in the config).`);
  return { loop, number: Number(numberText), sha: flags.sha.toLowerCase(), method: method as DeskMerge['method'] | undefined };
}

/**
 * Merge PR NUMBER of LOOP: refused (exit 2) without a terminal to confirm in unless --yes; shown,
 * then asked on a terminal; the desk's or GitHub's refusal said as they said it (exit 1); on
 * success `merged #N (sha, method) by USER`.
 */
export async function merge(flags: DeskFlags, words: readonly string[]): Promise<number> {
  const { loop, number, sha, method } = parse(flags, words);
  if (!flags.yes && !process.stdin.isTTY) throw new CliError(`Pass --yes to merge PR #${number} of ${loop} without a terminal to confirm in (after reviewing head ${sha}).`);
  const core = await openEngine(flags, 'merge');
  try {
    checkLoop(core, loop);
    if (!core.config.github) {
      console.error(logSafe(noGithubLine('merge', flags)));
      return 1;
    }
    await readDesk(core);
    reportFailures(core, 'merge');
    const pr = core.services.desk.list().find((p) => p.loop === loop && p.number === number);
    if (!pr) throw new CliError(`Not merged: no PR #${number} of loop ${loop} is on the merge desk (\`loopdeck prs ${loop}\` lists them).`, 1);
    console.log(mergeSummary(pr));
    // Asked only when the desk would merge it: otherwise its refusal says why, without a question first.
    const mergeable = mergeBlockers(pr).length === 0 && pr.headSha === sha;
    if (mergeable && !flags.yes && !(await confirm(`Merge #${number} into ${escapeUnsafe(pr.base)}? [y/N] `))) {
      console.log('Nothing was merged.');
      return 1;
    }
    let done: DeskMerge;
    try {
      done = await core.services.desk.merge(loop, number, sha, method, localUser());
    } catch (err) {
      if (err instanceof DeskRefusal) throw new CliError(err.message, 1);
      throw err;
    }
    console.log(escapeUnsafe(`merged #${number} (${done.sha}, ${done.method}) by ${done.by}`));
    return 0;
  } finally {
    await core.close();
  }
}
