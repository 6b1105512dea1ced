import type { DeskCheck, DeskPr } from '../shared/pr-desk';
import { waitText } from '../shared/merge-measures';
import { CliError, CONNECT_TIMEOUT_MS, type Flags } from './cli-args';
import { openEngine } from './cli-common';
import { defaultConfigPath } from './core/config/load-config';
import type { Core } from './core/session/core';
import { logSafe } from './core/logging/log-text';
import { escapeUnsafe } from '../shared/unsafe-text';

// `loopdeck prs [LOOP] [--json]`: the merge desk (issue 44) as the console shows it — every open
// PR of every loop as GitHub has it, with its size, checks, age and what to look at before merging
// — after one read of the runner and one round of asking GitHub. `loopdeck merge` (cli-merge.ts)
// reads the desk the same way (readDesk).

/** The options only the desk's verbs take (`merge --sha SHA --method M`), added to the CLI's own. */

/** The CLI's flags with the desk's. */
export type DeskFlags = Flags & { readonly sha?: string | undefined; readonly method?: string | undefined };

/** What `prs` and `merge` say on stderr when the config has no `github:` section. */
export function noGithubLine(command: string, flags: Flags): string {
  const path = flags.config ?? defaultConfigPath();
  return `loopdeck ${command}: ${path} has no github: section, so the merge desk is empty: add one (a token that may read pull requests) and, to each loop whose PRs to list, loops.<name>.repo (owner/name). See docs/integrations/github.md.`;
}

/** A desk check as `prs --json` prints it: its page under `link`. */
export interface PrsJsonCheck {
  readonly name: string;
  readonly state: DeskCheck['state'];
  readonly link: string | null;
}

/** One PR as `prs --json` prints it: the desk's PR, each check's `url` named `link`. */
export type PrsJsonPr = Omit<DeskPr, 'checks'> & { readonly checks: readonly PrsJsonCheck[] };

/** A desk PR for `prs --json`. */
export function prsJson(pr: DeskPr): PrsJsonPr {
  return { ...pr, checks: pr.checks.map((c) => ({ name: c.name, state: c.state, link: c.url })) };
}

/** Read the runner (every follower caught up), then ask GitHub once: the core's desk is current. */
export async function readDesk(core: Core): Promise<void> {
  const { engine, services } = core;
  await services.hosts.settle(CONNECT_TIMEOUT_MS);
  await engine.poll();
  // A large backlog is read in bounded chunks; the desk joins the verdicts that named its PRs.
  for (let i = 0; engine.behind() && i < 1000; i++) await engine.poll();
  await services.desk.pollOnce();
}

/** Refuse a LOOP the config does not declare (exit 2), naming the ones it does. */
export function checkLoop(core: Pick<Core, 'config'>, loop: string | undefined): void {
  const loops = Object.keys(core.config.loops);
  if (loop !== undefined && !loops.includes(loop)) throw new CliError(`Unknown loop ${JSON.stringify(loop)}: the config's loops are ${loops.join(', ') || 'none'}.`);
}

/** Print the sources that failed on stderr; whether any did. */
export function reportFailures(core: Core, command: string): boolean {
  const failures = core.engine.failures();
  for (const f of failures) console.error(logSafe(`loopdeck ${command}: ${f}`));
  return failures.length > 0;
}

/** `2/3 passing (failing: suite; pending: lint)`, or `none`. */
export function checksText(checks: readonly DeskCheck[]): string {
  if (checks.length === 0) return 'none';
  const passing = checks.filter((c) => c.state === 'passing').length;
  const named = (['failing', 'pending'] as const).flatMap((s) => {
    const names = checks.filter((c) => c.state === s).map((c) => c.name);
    return names.length > 0 ? [`${s}: ${names.join(', ')}`] : [];
  });
  return `${passing}/${checks.length} passing${named.length > 0 ? ` (${named.join('; ')})` : ''}`;
}

/** `+120/−30`, `—` while GitHub has not said. */
export const sizeText = (pr: Pick<DeskPr, 'additions' | 'deletions'>): string => (pr.additions === null || pr.deletions === null ? '—' : `+${pr.additions}/−${pr.deletions}`);

/** What to look at before merging: stale, large, overlaps #91, red after READY, merged by … */
function marksText(pr: DeskPr): string {
  const marks = [
    ...(pr.stale ? ['stale'] : []),
    ...(pr.large ? ['large'] : []),
    ...(pr.overlaps.length > 0 ? [`overlaps ${pr.overlaps.map((n) => `#${n}`).join(' ')}`] : []),
    ...(pr.redAfterReady ? ['red after READY'] : []),
    ...(pr.merged ? [`merged by ${pr.merged.by}`] : []),
  ];
  return marks.join(', ') || '—';
}

const TITLE_WIDTH = 48;
const titleCell = (title: string): string => (title.length > TITLE_WIDTH ? `${title.slice(0, TITLE_WIDTH - 1)}…` : title);

/** Lines for the terminal: each one's unsafe characters (a line break, an escape, U+202E in a title GitHub gave) shown as text. */
export const terminalLines = (lines: readonly string[]): string => lines.map((l) => escapeUnsafe(l)).join('\n');

/** The desk as a table, one PR a row, then each PR's link and any problem asking GitHub about it; escaped (terminalLines). */
export function deskTable(prs: readonly DeskPr[]): string {
  if (prs.length === 0) return 'No PRs on the merge desk.';
  const head = ['#', 'LOOP', 'STATE', 'TITLE', '+/−', 'FILES', 'CHECKS', 'AGE', 'MARKS', 'NEXT'];
  const rows = prs.map((p) =>
    [
      `#${p.number}`,
      p.loop,
      p.state,
      titleCell(p.title),
      sizeText(p),
      p.changedFiles === null ? '—' : String(p.changedFiles),
      checksText(p.checks),
      waitText(p.ageHours * 3_600_000),
      marksText(p),
      p.next.length === 0 ? '—' : `${p.next.filter((s) => s.doneAt !== null).length}/${p.next.length}`,
    ].map((cell) => escapeUnsafe(cell)),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
  const notes = prs.flatMap((p) => [`#${p.number} ${p.url}`, ...(p.problem === null ? [] : [`#${p.number}: ${p.problem}`])]);
  return terminalLines([line(head), ...rows.map(line), '', ...notes]);
}

/**
 * `loopdeck prs [LOOP] [--json]`: the desk's PRs (of LOOP), as a table or JSON. Without a `github:`
 * section it says so on stderr and exits 1 (`[]` and 0 with --json); exits 1 when a source failed.
 */
export async function prs(flags: Flags, words: readonly string[]): Promise<number> {
  const [loop, extra] = words;
  if (extra !== undefined) throw new CliError('Usage: loopdeck prs [LOOP] [--json]');
  const core = await openEngine(flags, 'prs');
  try {
    checkLoop(core, loop);
    if (!core.config.github) {
      console.error(logSafe(noGithubLine('prs', flags)));
      if (!flags.json) return 1;
      console.log('[]');
      return 0;
    }
    if (!Object.values(core.config.loops).some((l) => l.repo !== undefined)) {
      console.error('loopdeck prs: no loop names its repository (loops.<name>.repo, owner/name): only the PRs the loops\' verdicts named are listed.');
    }
    await readDesk(core);
    const list = core.services.desk.list().filter((p) => loop === undefined || p.loop === loop);
    if (flags.json) console.log(JSON.stringify(list.map(prsJson), null, 2));
    else console.log(deskTable(list));
    return reportFailures(core, 'prs') ? 1 : 0;
  } finally {
    await core.close();
  }
}
