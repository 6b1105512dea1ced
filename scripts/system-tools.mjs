// The system tools `npm test` needs, and where each is looked for: an override variable, else a
// fixed path (Debian's), or else the command name on PATH. One list, read by the check that opens
// `npm test` (check-system-tools.mjs) and by the test helpers that start the tools
// (testing/sshd.ts, testing/prometheus.ts, testing/alertmanager.ts, testing/reverse-proxy.ts,
// playwright.config.ts), so a
// tool is looked for exactly where the tests will run it. Plain Node ESM: it runs before anything
// is built or type-checked.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Every tool: `name` as the message says it, its Debian `package`, and either `env` (an override
 * variable) with `path` (the default), or `command` (found on PATH, as the tests run it).
 * @type {readonly import('./system-tools.d.mts').SystemTool[]}
 */
export const SYSTEM_TOOLS = Object.freeze([
  { name: 'chromium', package: 'chromium', env: 'LOOPDECK_CHROMIUM', path: '/usr/bin/chromium', usedBy: 'the Playwright suite (e2e/) runs in it' },
  { name: 'sshd', package: 'openssh-server', env: 'LOOPDECK_SSHD', path: '/usr/sbin/sshd', usedBy: 'the SSH tests start their own on loopback' },
  { name: 'ssh-keygen', package: 'openssh-client', command: 'ssh-keygen', usedBy: 'the SSH tests make throwaway keys with it' },
  { name: 'perl', package: 'perl-base', command: 'perl', usedBy: "the SSH watcher's Perl side is tested on this machine" },
  { name: 'pgrep', package: 'procps', command: 'pgrep', usedBy: 'the watcher tests look for leftover processes with it' },
  { name: 'prometheus', package: 'prometheus', env: 'LOOPDECK_PROMETHEUS', path: '/usr/bin/prometheus', usedBy: 'the fleet-source and exporter tests run one on loopback' },
  { name: 'promtool', package: 'prometheus', env: 'LOOPDECK_PROMTOOL', path: '/usr/bin/promtool', usedBy: 'the exporter test lints /metrics with it' },
  { name: 'prometheus-alertmanager', package: 'prometheus-alertmanager', env: 'LOOPDECK_ALERTMANAGER', path: '/usr/bin/prometheus-alertmanager', usedBy: 'the notice-sink tests run one on loopback' },
  { name: 'nginx', package: 'nginx', env: 'LOOPDECK_NGINX', path: '/usr/sbin/nginx', usedBy: 'the sign-in tests put the console behind it as a reverse proxy (basic auth, an identity header, WebSocket)' },
  { name: 'gh', package: 'gh', command: 'gh', usedBy: "the GitHub tests ask `gh auth token` for a token (their own GH_CONFIG_DIR)" },
]);

/** The tool called `name`; throws for a name not in SYSTEM_TOOLS (a typo in a helper). */
function tool(name) {
  const found = SYSTEM_TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`scripts/system-tools.mjs: no system tool named ${JSON.stringify(name)} (known: ${SYSTEM_TOOLS.map((t) => t.name).join(', ')})`);
  return found;
}

/** What the tests run for a tool: the override variable's value, else the default path, else the bare command (found on PATH when run). */
export function toolPath(name, env = process.env) {
  const t = tool(name);
  if (t.command) return t.command;
  return env[t.env] ?? t.path;
}

/** Why `file` cannot be run, or null when it is an executable file. */
function unrunnable(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 'not found';
  }
  if (!stat.isFile()) return 'not a file';
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return 'not executable';
  }
  return null;
}

/** The first executable `command` in the folders of `pathVar`, or null. */
export function onPath(command, pathVar) {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir && unrunnable(join(dir, command)) === null) return join(dir, command);
  }
  return null;
}

/**
 * Look a tool up as the tests will: `{ name, package, found }` with the file found, or
 * `found: null` and `why` (`LOOPDECK_SSHD=/nope/sshd: not found`, `/usr/bin/prometheus: not
 * found`, `not on PATH`); `overridden` when its variable chose the path (installing will not help).
 */
export function findTool(name, env = process.env) {
  const t = tool(name);
  if (t.command) {
    const found = onPath(t.command, env.PATH);
    return found ? { name, package: t.package, found, overridden: false } : { name, package: t.package, found: null, overridden: false, why: 'not on PATH' };
  }
  const overridden = env[t.env] !== undefined;
  const file = toolPath(name, env);
  const why = unrunnable(file);
  if (why === null) return { name, package: t.package, found: file, overridden };
  return { name, package: t.package, found: null, overridden, why: overridden ? `${t.env}=${file}: ${why}` : `${file}: ${why}` };
}

/** Every tool that cannot be found under `env`, in SYSTEM_TOOLS order. */
export function missingTools(env = process.env) {
  return SYSTEM_TOOLS.map((t) => findTool(t.name, env)).filter((r) => r.found === null);
}

/** The Debian packages that provide `missing`, each once, in order. */
export function packagesFor(missing) {
  return [...new Set(missing.map((m) => m.package))];
}

/**
 * The one message naming each missing tool and how to install it, e.g. "npm test needs system
 * tools that are missing: sshd (LOOPDECK_SSHD=/nope/sshd: not found), prometheus (…). Install
 * them with: sudo apt-get install openssh-server prometheus".
 */
export function missingMessage(missing, { root = false } = {}) {
  const list = missing.map((m) => `${m.name} (${m.why})`).join(', ');
  const install = `${root ? '' : 'sudo '}apt-get install ${packagesFor(missing).join(' ')}`;
  const vars = missing.filter((m) => m.overridden).map((m) => tool(m.name).env);
  const unset = vars.length ? ` — or point ${vars.join(', ')} at the installed tool${vars.length > 1 ? 's' : ''}, or unset ${vars.length > 1 ? 'them' : 'it'} for Debian's path` : '';
  return `npm test needs system tools that are missing: ${list}. Install them with: ${install}${unset}. (docs/development.md lists what each is for.)`;
}
