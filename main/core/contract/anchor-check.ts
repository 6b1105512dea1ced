import type { ContractBreach } from '../../../shared/contract-breach';
import type { AuditMark } from '../../../shared/ledger-domain';
import type { LoopConfig } from '../config/schema';
import type { HostShell } from '../hosts/host-shell';
import { hostPath } from '../preflight/runner-probe';
import { shellQuote } from '../sources/remote-shell';

// `anchor`, the SHA half (issue 43, kind 9; the count half is anchorCount in ledger-contract.ts):
// the latest `Audited through: <sha> on <date>` line of a loop's audit names a commit its clone
// (`loops.<name>.dir`) cannot resolve. Resolution is asked of the runner host, through the host's
// shell, with `git -C <dir> cat-file -e <sha>^{commit}`, once per (loop, sha): a SHA that resolved
// stays resolved; one that did not is asked again at most every UNRESOLVED_RETRY_MS (a fetch may
// bring it). A SHA that is not 7 to 40 hex digits is a breach without asking. When Loopdeck cannot
// observe (the host unreachable, git missing, the clone missing, the script failing) it claims no
// breach and says why in `problem(loop)`.

/** An unresolved SHA is asked again at most this often: a fetch in the clone may bring it. */
export const UNRESOLVED_RETRY_MS = 10 * 60_000;
/**
 * A check that could not observe (host down, git or the clone missing) is tried again after this,
 * then after twice as long each time the same SHA meets a problem again, up to
 * UNRESOLVED_RETRY_MS: a clone that is not there is not asked about every minute all day (a spawn
 * of `sh` and `git` on a local runner, whose fork costs more the more history serve holds).
 */
export const PROBLEM_RETRY_MS = 60_000;

/** How long after its `tries`-th problem in a row a SHA is asked about again. */
export function problemRetryMs(tries: number): number {
  return Math.min(PROBLEM_RETRY_MS * 2 ** Math.max(0, tries - 1), UNRESOLVED_RETRY_MS);
}
/** How long the host may take to answer. */
export const ANCHOR_CHECK_TIMEOUT_MS = 20_000;
/** SHAs remembered per loop (the oldest asked are forgotten first). */
const MAX_REMEMBERED = 64;

/** What `git cat-file` can be asked about: a commit SHA as written, 7 to 40 hex digits. */
const SHA = /^[0-9a-f]{7,40}$/i;

const NONE: readonly ContractBreach[] = Object.freeze([]);

/** The anchor line read: its SHA and date as written, and its line (1-based) in the audit. */
export type AnchorMark = Pick<AuditMark, 'sha' | 'date' | 'line'>;

/** What the host said about one SHA, or why it could not be asked. */
export type AnchorAnswer =
  | { readonly kind: 'resolved' }
  | { readonly kind: 'unresolved'; readonly why: string; readonly at: number; readonly problem: string | null }
  | { readonly kind: 'problem'; readonly problem: string; readonly at: number; readonly tries?: number };

interface LoopState {
  /** Bumped by every check: an answer that arrives for an older check is not applied. */
  generation: number;
  breaches: readonly ContractBreach[];
  problem: string | null;
}

/** The latest anchor line: the newest date, and of one date the last line. */
export function latestAnchor<M extends AnchorMark>(marks: readonly M[]): M | null {
  let latest: M | null = null;
  for (const m of marks) if (latest === null || m.date > latest.date || (m.date === latest.date && m.line >= latest.line)) latest = m;
  return latest;
}

/**
 * The script asked of the host: `A none` without git; `A norepo` and git's first error line when
 * `dir` is not a clone; else `A rc <n>` and `git cat-file`'s stderr. Shell builtins and git only.
 */
export function anchorScript(dir: string, sha: string): string {
  const d = hostPath(dir);
  return [
    'LC_ALL=C; export LC_ALL; GIT_TERMINAL_PROMPT=0; export GIT_TERMINAL_PROMPT',
    "command -v git >/dev/null 2>&1 || { echo 'A none'; exit 0; }",
    `e=$(git -C ${d} rev-parse --git-dir 2>&1 >/dev/null </dev/null) || { echo 'A norepo'; printf '%s\\n' "$e"; exit 0; }`,
    `e=$(git -C ${d} cat-file -e ${shellQuote(`${sha}^{commit}`)} 2>&1 </dev/null); r=$?`,
    `echo "A rc $r"; printf '%s\\n' "$e"; exit 0`,
  ].join('\n');
}

const firstLine = (lines: readonly string[]): string | null => lines.map((l) => l.trim()).find((l) => l !== '') ?? null;

/** Read the script's answer. `where` names the host and the clone for a problem. */
export function parseAnchorAnswer(out: { code: number | null; stdout: Buffer | string; stderr: string }, where: string, now: number): AnchorAnswer {
  const lines = out.stdout.toString().split('\n');
  const at = lines.findIndex((l) => l.startsWith('A '));
  const head = at < 0 ? undefined : lines[at];
  if (out.code !== 0 || head === undefined) {
    const said = firstLine(out.stderr.split('\n'));
    const how = out.code === null ? 'ended without an exit code' : `exited ${out.code}`;
    return { kind: 'problem', problem: `${where}: the anchor check ${head === undefined && out.code === 0 ? 'said nothing' : how}${said ? `: ${said}` : ''}`, at: now };
  }
  const rest = lines.slice(at + 1);
  if (head === 'A none') return { kind: 'problem', problem: `${where}: git is not installed (not on the PATH of the host's shell)`, at: now };
  if (head === 'A norepo') return { kind: 'problem', problem: `${where}: not a git clone${firstLine(rest) ? ` (${firstLine(rest)})` : ''}`, at: now };
  const rc = Number(/^A rc (\d+)$/.exec(head)?.[1] ?? NaN);
  if (rc === 0) return { kind: 'resolved' };
  // 128 (and 1 for a bare `-e`) is git saying the name does not resolve to a commit; anything else
  // (a signal, a timeout) is not an answer about the SHA.
  if (rc === 128 || rc === 1) return { kind: 'unresolved', why: firstLine(rest) ?? `exit ${rc}`, at: now, problem: null };
  return { kind: 'problem', problem: `${where}: git cat-file ${Number.isNaN(rc) ? 'gave no exit code' : `exited ${rc}`}${firstLine(rest) ? `: ${firstLine(rest)}` : ''}`, at: now };
}

const sameBreaches = (a: readonly ContractBreach[], b: readonly ContractBreach[]): boolean =>
  a.length === b.length && a.every((x, i) => JSON.stringify(x) === JSON.stringify(b[i]));

/**
 * The SHA half of the `anchor` rule, per loop, with what each loop's clone said remembered in
 * memory. `check` looks at the loop's latest anchor line and asks the host only when it must;
 * `breaches` is the same array while nothing changed; `problem` says why it could not observe.
 */
export class AnchorCheck {
  private readonly loops = new Map<string, LoopState>();
  /** loop → sha → the host's answer (Map order: the oldest asked first). */
  private readonly answers = new Map<string, Map<string, AnchorAnswer>>();
  /** `loop\0sha` → the question in flight: concurrent checks ask once. */
  private readonly inFlight = new Map<string, Promise<AnchorAnswer>>();

  /**
   * Check `loop`'s latest anchor line (`marks`, read from `auditPath`) against its clone
   * (`config.dir`) on its host, asked through `shell` (null: the host has no shell, its config
   * failed). Resolves to whether `breaches(loop)` changed. Never rejects: a host that cannot be
   * asked is a `problem`, and no breach is claimed.
   */
  async check(
    loop: string,
    config: Pick<LoopConfig, 'host' | 'dir'>,
    marks: readonly AnchorMark[],
    auditPath: string,
    shell: Pick<HostShell, 'exec'> | null,
    now: Date,
  ): Promise<boolean> {
    const state = this.state(loop);
    const generation = ++state.generation;
    const mark = latestAnchor(marks);
    let breaches: readonly ContractBreach[] = NONE;
    let problem: string | null = null;
    if (mark !== null) {
      const base = { kind: 'anchor', loop, date: mark.date, phase: null, id: mark.sha, since: mark.date, evidence: { file: auditPath, line: mark.line, url: null } } as const;
      const quoted = `The anchor "Audited through: ${mark.sha} on ${mark.date}"`;
      if (!SHA.test(mark.sha)) {
        breaches = [{ ...base, detail: `${quoted} names ${mark.sha}, which is not a commit SHA (7 to 40 hex digits)` }];
      } else if (config.dir === undefined) {
        problem = `loops.${loop}.dir is not set: the SHA of the anchor on line ${mark.line} of ${auditPath} cannot be checked against a clone`;
      } else if (shell === null) {
        problem = `host ${config.host} (loops.${loop}.host) has no shell: the SHA ${mark.sha} was not checked against the clone at ${config.dir}`;
      } else {
        const { answer, problem: said } = await this.answer(loop, mark.sha, config.dir, config.host, shell, now);
        if (answer?.kind === 'unresolved') breaches = [{ ...base, detail: `${quoted} names ${mark.sha}, which the clone at ${config.dir} cannot resolve (git cat-file: ${answer.why})` }];
        problem = said;
      }
    }
    if (generation !== state.generation) return false; // a newer check of this loop has applied its own
    state.problem = problem;
    if (sameBreaches(state.breaches, breaches)) return false;
    state.breaches = breaches;
    return true;
  }

  /** The loop's `anchor` (SHA) breaches as last checked: the same array while unchanged. */
  breaches(loop: string): readonly ContractBreach[] {
    return this.loops.get(loop)?.breaches ?? NONE;
  }

  /** Why the last check of `loop` could not observe (host down, git or the clone missing), or null. */
  problem(loop: string): string | null {
    return this.loops.get(loop)?.problem ?? null;
  }

  /** Forget a loop that left the config (its breaches, problem and remembered answers). */
  forget(loop: string): void {
    this.loops.delete(loop);
    this.answers.delete(loop);
  }

  private state(loop: string): LoopState {
    let s = this.loops.get(loop);
    if (!s) this.loops.set(loop, (s = { generation: 0, breaches: NONE, problem: null }));
    return s;
  }

  /**
   * The remembered answer while it holds, else the host's (one question in flight per loop and
   * SHA). A host that cannot be asked again leaves an unresolved answer it gave before standing
   * (nothing new was observed), to be asked again after PROBLEM_RETRY_MS; a problem again and again
   * is asked about less and less often (problemRetryMs).
   */
  private async answer(loop: string, sha: string, dir: string, host: string, shell: Pick<HostShell, 'exec'>, now: Date): Promise<{ answer: AnchorAnswer | null; problem: string | null }> {
    const known = this.answers.get(loop)?.get(sha);
    const t = now.getTime();
    if (known?.kind === 'resolved') return { answer: known, problem: null };
    if (known?.kind === 'unresolved' && t - known.at < UNRESOLVED_RETRY_MS) return { answer: known, problem: known.problem };
    if (known?.kind === 'problem' && t - known.at < problemRetryMs(known.tries ?? 1)) return { answer: null, problem: known.problem };
    const key = `${loop}\u0000${sha}`;
    let asking = this.inFlight.get(key);
    if (!asking) {
      asking = this.ask(sha, dir, host, shell, now).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, asking);
    }
    const answer = await asking;
    if (answer.kind === 'problem' && known?.kind === 'unresolved') {
      const kept: AnchorAnswer = { ...known, at: Math.min(known.at, t - UNRESOLVED_RETRY_MS + PROBLEM_RETRY_MS), problem: answer.problem };
      this.remember(loop, sha, kept);
      return { answer: kept, problem: answer.problem };
    }
    this.remember(loop, sha, answer.kind === 'problem' && known?.kind === 'problem' ? { ...answer, tries: (known.tries ?? 1) + 1 } : answer);
    return answer.kind === 'problem' ? { answer: null, problem: answer.problem } : { answer, problem: null };
  }

  private async ask(sha: string, dir: string, host: string, shell: Pick<HostShell, 'exec'>, now: Date): Promise<AnchorAnswer> {
    const where = `the clone at ${dir} on ${host}`;
    try {
      return parseAnchorAnswer(await shell.exec(anchorScript(dir, sha), ANCHOR_CHECK_TIMEOUT_MS), where, now.getTime());
    } catch (err) {
      return { kind: 'problem', problem: `${where}: could not ask the host: ${err instanceof Error ? err.message : String(err)}`, at: now.getTime() };
    }
  }

  private remember(loop: string, sha: string, answer: AnchorAnswer): void {
    let shas = this.answers.get(loop);
    if (!shas) this.answers.set(loop, (shas = new Map()));
    shas.delete(sha);
    shas.set(sha, answer);
    for (const oldest of shas.keys()) {
      if (shas.size <= MAX_REMEMBERED) break;
      shas.delete(oldest);
    }
  }
}
