// The check that opens `npm test`: run as `npm test` runs it, as a child process, with the
// variables and PATH pointed at tools that are not there, or at stand-ins that are.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import playwrightConfig from '../playwright.config';
import { findTool, SYSTEM_TOOLS, toolPath } from '../scripts/system-tools.mjs';
import { ALERTMANAGER } from '../testing/alertmanager';
import { NGINX } from '../testing/reverse-proxy';
import { PROMETHEUS, PROMTOOL } from '../testing/prometheus';
import { SSHD } from '../testing/sshd';

const root = fileURLToPath(new URL('..', import.meta.url));
const CHECK = join(root, 'scripts', 'check-system-tools.mjs');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder, removed after the file's tests. */
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'loopdeck-tools-'));
  dirs.push(d);
  return d;
}

/** An executable stand-in at `file` (a script that exits 0). */
function stub(file: string): string {
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

/** Stand-ins for every tool: the variables' paths in one folder, the PATH ones in `bin`. */
function allPresent(): { env: Record<string, string>; bin: string } {
  const dir = folder();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const env: Record<string, string> = { PATH: bin };
  for (const t of SYSTEM_TOOLS) {
    if (t.env) env[t.env] = stub(join(dir, t.name));
    else stub(join(bin, t.command as string));
  }
  return { env, bin };
}

/**
 * Run the check with exactly `env` (and HOME), acting as root or not whatever this account is;
 * how it ended, what it said, and how long it took.
 */
function check(env: Record<string, string>, { root = false } = {}): { status: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const run = spawnSync(process.execPath, [CHECK], { env: { HOME: tmpdir(), LOOPDECK_CHECK_AS_ROOT: root ? '1' : '0', ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

const NOWHERE = {
  LOOPDECK_CHROMIUM: '/nope/chromium',
  LOOPDECK_SSHD: '/nope/sshd',
  LOOPDECK_PROMETHEUS: '/nope/prometheus',
  LOOPDECK_PROMTOOL: '/nope/promtool',
  LOOPDECK_ALERTMANAGER: '/nope/prometheus-alertmanager',
  LOOPDECK_NGINX: '/nope/nginx',
};

describe('scripts/check-system-tools.mjs, the first step of npm test', () => {
  it('is the first step of `npm test`', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test?.startsWith('node scripts/check-system-tools.mjs && ')).toBe(true);
  });

  it('with every tool missing, stops at once with one message naming each and the apt-get line', () => {
    const { status, stdout, stderr, ms } = check({ PATH: folder(), LOOPDECK_NO_INSTALL: '1', ...NOWHERE });
    expect(status).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const message = lines[0] as string;
    expect(message).toMatch(/^npm test needs system tools that are missing: /);
    for (const part of [
      'chromium (LOOPDECK_CHROMIUM=/nope/chromium: not found)',
      'sshd (LOOPDECK_SSHD=/nope/sshd: not found)',
      'ssh-keygen (not on PATH)',
      'perl (not on PATH)',
      'pgrep (not on PATH)',
      'prometheus (LOOPDECK_PROMETHEUS=/nope/prometheus: not found)',
      'promtool (LOOPDECK_PROMTOOL=/nope/promtool: not found)',
      'prometheus-alertmanager (LOOPDECK_ALERTMANAGER=/nope/prometheus-alertmanager: not found)',
      'nginx (LOOPDECK_NGINX=/nope/nginx: not found)',
      'gh (not on PATH)',
    ]) {
      expect(message).toContain(part);
    }
    expect(message).toContain(`Install them with: sudo apt-get install chromium openssh-server openssh-client perl-base procps prometheus prometheus-alertmanager nginx gh`);
    expect(message).toContain('or point LOOPDECK_CHROMIUM, LOOPDECK_SSHD, LOOPDECK_PROMETHEUS, LOOPDECK_PROMTOOL, LOOPDECK_ALERTMANAGER, LOOPDECK_NGINX at the installed tools');
  });

  it('names only what is missing, and why a file there cannot be run', () => {
    const { env, bin } = allPresent();
    rmSync(join(bin, 'perl'));
    const dir = folder();
    writeFileSync(join(dir, 'sshd'), 'not executable');
    mkdirSync(join(dir, 'prometheus'));
    const { status, stderr } = check({ ...env, LOOPDECK_SSHD: join(dir, 'sshd'), LOOPDECK_PROMETHEUS: join(dir, 'prometheus'), LOOPDECK_NO_INSTALL: '1' });
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(
      `npm test needs system tools that are missing: sshd (LOOPDECK_SSHD=${join(dir, 'sshd')}: not executable), perl (not on PATH), prometheus (LOOPDECK_PROMETHEUS=${join(dir, 'prometheus')}: not a file). ` +
        `Install them with: sudo apt-get install openssh-server perl-base prometheus — or point LOOPDECK_SSHD, LOOPDECK_PROMETHEUS at the installed tools, or unset them for Debian's path. (docs/development.md lists what each is for.)`,
    );
  });

  it('with every tool there, passes silently', () => {
    const { env } = allPresent();
    expect(check({ ...env, LOOPDECK_NO_INSTALL: '1' })).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  // A stand-in apt-get on a PATH that holds nothing else: the real one is never reached. The check
  // is told to act as root (LOOPDECK_CHECK_AS_ROOT, in `check`), so these run as any user.
  describe('as root with apt-get', () => {
    /** An apt-get that logs each call and, on install, puts `installs` in `bin`. */
    function fakeApt(bin: string, installs: readonly string[]): string {
      const log = join(bin, '..', 'apt.log');
      const make = installs.map((c) => `printf '#!/bin/sh\\nexit 0\\n' > ${bin}/${c}; /bin/chmod 755 ${bin}/${c}`).join('\n');
      writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> ${log}\nif [ "$1" = install ]; then\n${make || ':'}\nfi\nexit 0\n`);
      chmodSync(join(bin, 'apt-get'), 0o755);
      return log;
    }

    it('installs the missing packages (apt-get update, then install) and goes on', () => {
      const { env, bin } = allPresent();
      for (const c of ['perl', 'pgrep', 'ssh-keygen']) rmSync(join(bin, c));
      const log = fakeApt(bin, ['perl', 'pgrep', 'ssh-keygen']);
      const { status, stderr } = check(env, { root: true });
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([
        'DEBIAN_FRONTEND=noninteractive update -qq',
        'DEBIAN_FRONTEND=noninteractive install -y -qq --no-install-recommends openssh-client perl-base procps',
      ]);
      expect(stderr).toContain('npm test: installing openssh-client perl-base procps (missing: ssh-keygen, perl, pgrep)');
      expect(status).toBe(0);
    });

    it('still missing after installing: the message, and a failure', () => {
      const { env, bin } = allPresent();
      rmSync(join(bin, 'pgrep'));
      fakeApt(bin, []);
      const { status, stderr } = check(env, { root: true });
      expect(status).toBe(1);
      expect(stderr.trim().split('\n').at(-1)).toMatch(/^npm test needs system tools that are missing: pgrep \(not on PATH\)\. Install them with: apt-get install procps\./);
    });

    it('installs nothing for a tool a variable points elsewhere, nor with LOOPDECK_NO_INSTALL', () => {
      const { env, bin } = allPresent();
      const log = fakeApt(bin, []);
      expect(check({ ...env, LOOPDECK_SSHD: '/nope/sshd' }, { root: true }).status).toBe(1);
      rmSync(join(bin, 'pgrep'));
      expect(check({ ...env, LOOPDECK_NO_INSTALL: '1' }, { root: true }).status).toBe(1);
      expect(() => readFileSync(log, 'utf8')).toThrow(/ENOENT/);
    });
  });
});

describe('scripts/system-tools.mjs', () => {
  it('is where the test helpers and the Playwright config find their tools', () => {
    expect(SSHD).toBe(toolPath('sshd'));
    expect(PROMETHEUS).toBe(toolPath('prometheus'));
    expect(PROMTOOL).toBe(toolPath('promtool'));
    expect(ALERTMANAGER).toBe(toolPath('prometheus-alertmanager'));
    expect(NGINX).toBe(toolPath('nginx'));
    expect(playwrightConfig.use?.launchOptions?.executablePath).toBe(toolPath('chromium'));
  });

  it('takes the override variable first, then the default path; PATH tools by their command', () => {
    expect(toolPath('sshd', {})).toBe('/usr/sbin/sshd');
    expect(toolPath('sshd', { LOOPDECK_SSHD: '/opt/ssh/sbin/sshd' })).toBe('/opt/ssh/sbin/sshd');
    expect(toolPath('chromium', {})).toBe('/usr/bin/chromium');
    expect(toolPath('perl', { PATH: '/nowhere' })).toBe('perl');
    expect(findTool('perl', { PATH: '/nowhere' })).toMatchObject({ found: null, why: 'not on PATH', package: 'perl-base' });
    expect(() => toolPath('sshd2')).toThrow(/no system tool named "sshd2"/);
  });
});
