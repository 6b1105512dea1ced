import type { SchedulerConfig } from '../config/schema';
import { shellQuote } from '../sources/remote-shell';

// The part of the pre-flight's one host script that asks whether a loop's runner will fire at all
// (issue 43, item 11): whether its scheduler entry is installed (`crontab -l`, `systemctl
// is-enabled` + `list-timers`, `launchctl list`) and whether its clone's `origin` answers
// (`git ls-remote --heads origin`, bounded). Only stock tools; a tool that is not there is said
// (`none`), never taken for an answer. Every line it prints names its loop's index, so the origin
// checks can run in the background, all at once, and a blackholed remote costs the bound once.

/** How long `git ls-remote` may take on the host (seconds). */
export const ORIGIN_BOUND_S = 20;

/** What one loop asks of its runner beyond its folders. */
export interface RunnerAsk {
  /** `loops.<name>.scheduler`; undefined: not checked. */
  readonly scheduler?: SchedulerConfig | undefined;
  /** The clone (`loops.<name>.dir`); undefined: no origin to check. */
  readonly dir?: string | undefined;
}

/** What `systemctl` said in one scope. */
export interface SystemdScope {
  readonly scope: 'system' | 'user';
  /** The first line of `systemctl is-enabled UNIT` (a state such as `enabled`, or an error). */
  readonly enabled: string;
  /** `list-timers --all` lines naming the unit; null when list-timers itself failed. */
  readonly timers: readonly string[] | null;
  /** list-timers' first error line when it failed. */
  readonly timersError: string | null;
}

/** What the host said about a loop's scheduler. */
export type SchedulerAnswer =
  | { readonly kind: 'no-tool'; readonly tool: 'crontab' | 'systemctl' | 'launchctl' }
  /** `crontab -l`'s exit code, the uncommented lines containing the pattern, or its first error line. */
  | { readonly kind: 'cron'; readonly rc: number; readonly lines: readonly string[]; readonly error: string | null }
  | { readonly kind: 'systemd'; readonly scopes: readonly SystemdScope[] }
  /** `launchctl list`'s exit code, its lines naming the label, the domains where `launchctl print` found it. */
  | { readonly kind: 'launchd'; readonly rc: number; readonly lines: readonly string[]; readonly error: string | null; readonly printed: readonly string[] };

/** What the host said about a clone's origin. */
export interface OriginAnswer {
  /** git is not on the host's PATH. */
  readonly noGit: boolean;
  /** The clone is not a git repository (or is not there): `error` says which. */
  readonly notRepo: boolean;
  /** `git remote get-url origin`, when it has one. */
  readonly url: string | null;
  /** How the bound was held: GNU/BSD `timeout`, or the script's own watchdog where there is none. */
  readonly via: 'timeout' | 'watchdog' | null;
  /** ls-remote's exit code (124: the bound was hit); null when the host said nothing. */
  readonly rc: number | null;
  /** git's first stderr line (with the next when it ends with a colon). */
  readonly error: string | null;
}

/** What the host said for one loop. */
export interface RunnerAnswer {
  readonly scheduler: SchedulerAnswer | null;
  readonly origin: OriginAnswer | null;
}

/** A shell word for a path on the host: `~/x` is the host's home, anything else as written. */
export function hostPath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2))}`;
  return shellQuote(path);
}

// The shell functions, defined once a script. Each prints plain lines; the caller prefixes them.
const FUNCTIONS = [
  // crontab -l: its exit code, then the uncommented lines containing the pattern, or its first error line.
  `ld_cron() { if ! command -v crontab >/dev/null 2>&1; then echo 'none'; return; fi; t=$(crontab -l 2>&1 </dev/null); r=$?; echo "rc $r"; if [ "$r" -eq 0 ]; then printf '%s\\n' "$t" | grep -v '^[[:space:]]*#' | grep -F -e "$1" | head -n 3 | sed 's/^/+ /'; else printf '%s\\n' "$t" | head -n 1 | sed 's/^/! /'; fi; }`,
  // systemctl, in the system scope then the user's: is-enabled's first line, list-timers' lines naming the unit.
  `ld_sd() { if ! command -v systemctl >/dev/null 2>&1; then echo 'none'; return; fi; for s in system user; do e=$(systemctl --$s is-enabled "$1" 2>&1 </dev/null | head -n 1); printf 'en %s %s\\n' "$s" "$e"; t=$(systemctl --$s list-timers --all --no-legend --no-pager 2>&1 </dev/null); r=$?; if [ "$r" -eq 0 ]; then echo "T $s"; printf '%s\\n' "$t" | grep -F -e "$1" | head -n 3 | sed "s/^/T+ $s /"; else printf '%s\\n' "$t" | head -n 1 | sed "s/^/T! $s /"; fi; done; }`,
  // launchctl list: its exit code, the lines naming the label; launchctl print in the user's and the system's domain.
  `ld_ld() { if ! command -v launchctl >/dev/null 2>&1; then echo 'none'; return; fi; t=$(launchctl list 2>&1 </dev/null); r=$?; echo "rc $r"; if [ "$r" -eq 0 ]; then printf '%s\\n' "$t" | grep -F -e "$1" | head -n 3 | sed 's/^/+ /'; else printf '%s\\n' "$t" | head -n 1 | sed 's/^/! /'; fi; for d in "gui/$(id -u)" system; do launchctl print "$d/$1" >/dev/null 2>&1 </dev/null && echo "P $d"; done; }`,
  // git ls-remote --heads origin in the clone, bounded: timeout where it is, else a watchdog that marks
  // the bound and then kills git (marked first: woken by the kill, the caller stops the watchdog at once).
  `ld_git() { if ! command -v git >/dev/null 2>&1; then echo 'none'; return; fi; GIT_TERMINAL_PROMPT=0; export GIT_TERMINAL_PROMPT; e=$(git -C "$1" rev-parse --git-dir 2>&1 >/dev/null </dev/null) || { echo 'norepo'; printf '%s\\n' "$e" | head -n 2 | sed 's/^/! /'; return; }; printf 'url %s\\n' "$(git -C "$1" remote get-url origin 2>/dev/null </dev/null)"; if command -v timeout >/dev/null 2>&1; then echo 'via timeout'; e=$(timeout "$2" git -C "$1" ls-remote --heads origin 2>&1 >/dev/null </dev/null); r=$?; else echo 'via watchdog'; f=$(mktemp "\${TMPDIR:-/tmp}/loopdeck-pf.XXXXXX" 2>/dev/null || echo /dev/null); git -C "$1" ls-remote --heads origin >/dev/null 2>"$f" </dev/null & p=$!; ( sleep "$2" >/dev/null 2>&1 </dev/null; echo k; kill "$p" 2>/dev/null ) >"$f.k" 2>/dev/null </dev/null & w=$!; wait "$p"; r=$?; kill "$w" 2>/dev/null; [ -s "$f.k" ] && r=124; e=$(cat "$f" 2>/dev/null); [ "$f" = /dev/null ] || rm -f "$f" "$f.k"; fi; echo "rc $r"; printf '%s\\n' "$e" | grep -v '^[[:space:]]*$' | head -n 2 | sed 's/^/! /'; }`,
];

/**
 * The script lines for the loops' runner asks, by index: the scheduler checks in the foreground,
 * the origin checks started first in the background (their output printed whole, one write a
 * loop) and waited for at the end. Empty when no loop asks anything.
 */
export function runnerScript(asks: readonly (RunnerAsk | undefined)[], boundS: number = ORIGIN_BOUND_S): string[] {
  const lines: string[] = [];
  asks.forEach((ask, i) => {
    if (ask?.dir === undefined) return;
    lines.push(`( o=$(ld_git ${hostPath(ask.dir)} ${Math.max(1, Math.round(boundS))}); printf '%s\\n' "$o" | sed 's/^/O ${i} /' ) &`);
  });
  asks.forEach((ask, i) => {
    const s = ask?.scheduler;
    if (!s) return;
    const call = 'cron' in s ? `ld_cron ${shellQuote(s.cron)}` : 'systemd' in s ? `ld_sd ${shellQuote(s.systemd)}` : `ld_ld ${shellQuote(s.launchd)}`;
    lines.push(`${call} | sed 's/^/S ${i} /'`);
  });
  return lines.length === 0 ? [] : [...FUNCTIONS, ...lines, 'wait'];
}

const LINE = /^([SO]) (\d+) (.*)$/;

/** Parse the runner lines of the script's output, one answer an ask (null where it asked nothing or the host said nothing). */
export function parseRunner(stdout: string, asks: readonly (RunnerAsk | undefined)[]): RunnerAnswer[] {
  const said = new Map<string, string[]>();
  for (const line of stdout.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const key = `${m[1]}${m[2]}`;
    said.set(key, [...(said.get(key) ?? []), m[3] ?? '']);
  }
  return asks.map((ask, i) => ({
    scheduler: ask?.scheduler ? parseScheduler(ask.scheduler, said.get(`S${i}`) ?? []) : null,
    origin: ask?.dir !== undefined ? parseOrigin(said.get(`O${i}`) ?? []) : null,
  }));
}

const after = (lines: readonly string[], prefix: string): string[] => lines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
const rcOf = (lines: readonly string[]): number | null => {
  const rc = after(lines, 'rc ')[0];
  return rc === undefined || !/^\d+$/.test(rc) ? null : Number(rc);
};

function parseScheduler(s: SchedulerConfig, lines: readonly string[]): SchedulerAnswer | null {
  if (lines.length === 0) return null;
  const tool = 'cron' in s ? 'crontab' : 'systemd' in s ? 'systemctl' : 'launchctl';
  if (lines[0] === 'none') return { kind: 'no-tool', tool };
  if ('systemd' in s) {
    const scopes = (['system', 'user'] as const).flatMap((scope): SystemdScope[] => {
      const enabled = after(lines, `en ${scope} `)[0];
      if (enabled === undefined) return [];
      const listed = lines.includes(`T ${scope}`);
      return [{ scope, enabled, timers: listed ? after(lines, `T+ ${scope} `) : null, timersError: listed ? null : (after(lines, `T! ${scope} `)[0] ?? null) }];
    });
    return { kind: 'systemd', scopes };
  }
  const rc = rcOf(lines);
  if (rc === null) return null;
  const base = { rc, lines: after(lines, '+ '), error: after(lines, '! ')[0] ?? null };
  return 'cron' in s ? { kind: 'cron', ...base } : { kind: 'launchd', ...base, printed: after(lines, 'P ') };
}

function parseOrigin(lines: readonly string[]): OriginAnswer | null {
  if (lines.length === 0) return null;
  if (lines[0] === 'none') return { noGit: true, notRepo: false, url: null, via: null, rc: null, error: null };
  const url = after(lines, 'url ')[0]?.trim() || null;
  const via = after(lines, 'via ')[0];
  // git's first stderr line; one that ends with a colon goes on in the next ("unable to connect to host:" / "errno=Connection refused").
  const [first, second] = after(lines, '! ');
  const error = first === undefined ? null : first.trimEnd().endsWith(':') && second !== undefined ? `${first.trimEnd()} ${second.trim()}` : first;
  return { noGit: false, notRepo: lines.includes('norepo'), url, via: via === 'timeout' || via === 'watchdog' ? via : null, rc: rcOf(lines), error };
}
