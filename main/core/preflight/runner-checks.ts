import { preflightCheck, type PreflightCheck } from '../../../shared/preflight';
import type { SchedulerConfig } from '../config/schema';
import type { OriginAnswer, SchedulerAnswer, SystemdScope } from './runner-probe';

// Whether the runner will fire tonight at all (issue 43, item 11): its scheduler entry installed,
// its clone's origin answering. A scheduler entry that was never installed is a night that
// silently does not happen (FORMATS §2.7, lesson 2026-08-24); an origin that does not answer is a
// night whose pushes and PR — the dead-man signal — fail. A tool the host does not have is said:
// the check could not tell, it is never taken for success.

/** What the host answered for a loop: null when it was not asked (the host cannot be read), a string when the probe failed. */
export type HostSaid<T> = T | string | null;

const q = (s: string): string => JSON.stringify(s);
const clip = (s: string, n = 160): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function notAsked(name: PreflightCheck['name'], what: string, host: string, said: string | null): PreflightCheck {
  return preflightCheck(name, 'unknown', said === null ? `${what} not checked: host ${host} cannot be read` : `${what} not checked on host ${host}: ${said}`);
}

/** What the scheduler declares, for a person: `cron line containing "…"`, `systemd unit x.timer`, `launchd label x`. */
export function schedulerText(s: SchedulerConfig): string {
  if ('cron' in s) return `a crontab line containing ${q(s.cron)}`;
  if ('systemd' in s) return `systemd unit ${s.systemd}`;
  return `launchd label ${s.launchd}`;
}

/** `loops.<loop>.scheduler` is installed on the host: a crontab line, an enabled (and scheduled) systemd unit, a loaded launchd label. */
export function schedulerCheck(loop: string, host: string, s: SchedulerConfig, said: HostSaid<SchedulerAnswer>): PreflightCheck {
  const key = `loops.${loop}.scheduler`;
  if (said === null || typeof said === 'string') return notAsked('scheduler', `scheduler (${schedulerText(s)})`, host, said);
  if (said.kind === 'no-tool') return preflightCheck('scheduler', 'unknown', `${said.tool} is not installed on ${host}: cannot tell whether ${schedulerText(s)} is installed (${key})`);
  if (said.kind === 'cron' && 'cron' in s) return cronCheck(key, host, s.cron, said);
  if (said.kind === 'systemd' && 'systemd' in s) return systemdCheck(key, host, s.systemd, said.scopes);
  if (said.kind === 'launchd' && 'launchd' in s) return launchdCheck(key, host, s.launchd, said);
  return preflightCheck('scheduler', 'unknown', `host ${host} said nothing about ${schedulerText(s)}`);
}

function cronCheck(key: string, host: string, pattern: string, a: Extract<SchedulerAnswer, { kind: 'cron' }>): PreflightCheck {
  if (a.rc === 0) {
    const line = a.lines[0];
    if (line !== undefined) return preflightCheck('scheduler', 'ok', `${host}'s crontab has ${q(clip(line.trim()))}`);
    return preflightCheck('scheduler', 'fail', `no line of ${host}'s crontab contains ${q(pattern)} (commented lines aside): tonight's fire is not installed (${key}.cron)`);
  }
  const error = a.error ?? `exit ${a.rc}`;
  // Vixie cron, cronie and BSD cron all say "no crontab for USER" for an empty one.
  if (/no crontab for/i.test(error)) return preflightCheck('scheduler', 'fail', `${host} has no crontab (crontab -l: ${clip(error)}): no line contains ${q(pattern)}, tonight's fire is not installed (${key}.cron)`);
  return preflightCheck('scheduler', 'unknown', `crontab -l failed on ${host}: ${clip(error)}: cannot tell whether a line contains ${q(pattern)}`);
}

/** is-enabled states of a unit that is installed and will be started (by itself, its timer, or a generator). */
const ENABLED = new Set(['enabled', 'enabled-runtime', 'static', 'indirect', 'generated', 'transient', 'alias']);
/** is-enabled states of a unit file that is there but will not be started. */
const OFF = new Set(['disabled', 'masked', 'masked-runtime', 'linked', 'linked-runtime', 'bad']);
const notFound = (e: string): boolean => e === 'not-found' || /no such file or directory|not found|does not exist/i.test(e);

/** The first `list-timers` token of a line: its next elapse, `n/a` (or `-` on newer systemd) when there is none. */
const noNext = (line: string): boolean => /^(n\/a|-)(\s|$)/.test(line.trim());

function systemdCheck(key: string, host: string, unit: string, scopes: readonly SystemdScope[]): PreflightCheck {
  const on = scopes.find((s) => ENABLED.has(s.enabled));
  if (on) {
    const where = `${unit} is ${on.enabled} (${on.scope}) on ${host}`;
    if (!unit.endsWith('.timer')) return preflightCheck('scheduler', 'ok', where);
    if (on.timers === null) return preflightCheck('scheduler', 'unknown', `${where}, but list-timers failed: ${clip(on.timersError ?? 'no answer')}: cannot tell its next fire`);
    const line = on.timers.find((l) => l.split(/\s+/).includes(unit));
    if (line === undefined) return preflightCheck('scheduler', 'fail', `${where} but not loaded (list-timers does not list it): start it with \`systemctl${on.scope === 'user' ? ' --user' : ''} start ${unit}\` (${key}.systemd)`);
    if (noNext(line)) return preflightCheck('scheduler', 'fail', `${where} but has no next fire (list-timers: ${q(clip(line.trim().replace(/\s+/g, ' ')))}): it is not active (${key}.systemd)`);
    return preflightCheck('scheduler', 'ok', `${where}; list-timers: ${clip(line.trim().replace(/\s+/g, ' '))}`);
  }
  const off = scopes.find((s) => OFF.has(s.enabled));
  if (off) return preflightCheck('scheduler', 'fail', `${unit} is ${off.enabled} (${off.scope}) on ${host}: tonight's fire will not start it (${key}.systemd)`);
  const unsure = scopes.filter((s) => !notFound(s.enabled));
  if (scopes.length > 0 && unsure.length === 0) return preflightCheck('scheduler', 'fail', `${unit} is not installed on ${host} (neither a system nor a user unit): tonight's fire will not happen (${key}.systemd)`);
  const why = unsure.map((s) => `${s.scope}: ${clip(s.enabled || 'no answer')}`).join('; ') || 'systemctl said nothing';
  return preflightCheck('scheduler', 'unknown', `systemctl is-enabled ${unit} could not tell on ${host} (${why})`);
}

function launchdCheck(key: string, host: string, label: string, a: Extract<SchedulerAnswer, { kind: 'launchd' }>): PreflightCheck {
  // `launchctl list`: PID, last exit status, label — tab-separated.
  const row = a.lines.map((l) => l.split('\t')).find((cols) => cols[2]?.trim() === label);
  if (row) {
    const status = row[1]?.trim();
    const pid = row[0]?.trim();
    const extra = [pid && pid !== '-' ? `running as PID ${pid}` : '', status && status !== '0' ? `last exit status ${status}` : ''].filter(Boolean).join(', ');
    return preflightCheck('scheduler', 'ok', `${label} is loaded on ${host} (launchctl list${extra ? `: ${extra}` : ''})`);
  }
  const domain = a.printed[0];
  if (domain !== undefined) return preflightCheck('scheduler', 'ok', `${label} is loaded on ${host} (launchctl print ${domain}/${label})`);
  if (a.rc !== 0) return preflightCheck('scheduler', 'unknown', `launchctl list failed on ${host}: ${clip(a.error ?? `exit ${a.rc}`)}: cannot tell whether ${label} is loaded`);
  return preflightCheck('scheduler', 'fail', `${label} is not loaded on ${host} (launchctl list does not list it): the plist was never installed or not bootstrapped, tonight's fire will not happen (${key}.launchd)`);
}

/** The clone's origin answers `git ls-remote --heads` within the bound. */
export function originCheck(host: string, dir: string, said: HostSaid<OriginAnswer>, boundS: number): PreflightCheck {
  if (said === null || typeof said === 'string') return notAsked('origin', `origin of clone ${dir}`, host, said);
  if (said.noGit) return preflightCheck('origin', 'unknown', `git is not installed on ${host}: cannot tell whether the origin of clone ${dir} answers`);
  if (said.notRepo) return preflightCheck('origin', 'fail', `clone ${dir} on ${host} is not a git repository${said.error ? ` (${clip(said.error)})` : ''}: no origin to push to`);
  const remote = said.url ? `origin ${said.url}` : 'origin';
  if (said.rc === null) return preflightCheck('origin', 'unknown', `host ${host} said nothing about the ${remote} of clone ${dir}`);
  if (said.rc === 0) return preflightCheck('origin', 'ok', `${remote} answers (git ls-remote --heads, clone ${dir})`);
  // 124: timeout's own code; 143 (SIGTERM) where the script's watchdog stopped git.
  if (said.rc === 124 || (said.via === 'watchdog' && said.rc === 143)) {
    const how = said.via === 'timeout' ? `timeout ${boundS} on ${host}` : `${host} has no timeout: the check's own watchdog`;
    return preflightCheck('origin', 'fail', `${remote} did not answer within ${boundS} s (the bound was hit: ${how}), from clone ${dir}: tonight's pushes and PR will fail`);
  }
  const first = said.error ? `: ${clip(said.error)}` : '';
  return preflightCheck('origin', 'fail', `${remote} does not answer from clone ${dir} on ${host} (git ls-remote exit ${said.rc})${first}`);
}
