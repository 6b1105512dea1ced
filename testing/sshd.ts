import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { toolPath } from '../scripts/system-tools.mjs';

/** OpenSSH's server: LOOPDECK_SSHD, else Debian's /usr/sbin/sshd (the rule is in scripts/system-tools.mjs). */
export const SSHD = toolPath('sshd');

/** A real OpenSSH sshd on 127.0.0.1 with throwaway keys, for integration tests. */
export interface TestSshd {
  readonly dir: string;
  readonly port: number;
  readonly user: string;
  /** The client's private key file (no passphrase) and its public key line. */
  readonly clientKey: string;
  /** The host's public key line (`ssh-ed25519 AAAA…`), for known_hosts. */
  readonly hostPublicKey: string;
  /** A known_hosts file that trusts this sshd. */
  readonly knownHosts: string;
  /** How long each session waits before its command runs (a slow login shell), ms. */
  readonly loginDelayMs: number;
  /** Kill sshd and every session process it forked (a crash mid-stream). */
  kill(): void;
  /** Start it again on the same port with the same keys. */
  restart(): Promise<void>;
  /** Freeze sshd and its sessions (SIGSTOP): packets go unanswered, like a black hole. */
  freeze(): void;
  /** Thaw after freeze (SIGCONT). */
  thaw(): void;
  /** Replace the host key (a changed key, as after a reinstall); takes effect on restart. */
  changeHostKey(): void;
  stop(): Promise<void>;
}

/** Options for a test sshd. */
export interface SshdOptions {
  readonly maxSessions?: number;
  /** Unauthenticated connections at once past which sshd drops new ones (default 100). */
  readonly maxStartups?: number;
  readonly extraConfig?: string;
  /**
   * Every session waits this long before its command runs, like an account whose rc file runs
   * `pyenv init` (0.5 s a shell). Default: LOOPDECK_TEST_LOGIN_DELAY_MS, else 0.
   */
  readonly loginDelayMs?: number;
  /**
   * A path: every session's command waits until a file exists there (a login shell that hangs
   * until the test lets it go), so a test can look at what is shown while a read is in flight.
   */
  readonly gate?: string;
}

/** The login delay every test sshd gets unless told otherwise (LOOPDECK_TEST_LOGIN_DELAY_MS). */
export function defaultLoginDelayMs(): number {
  const ms = Number(process.env.LOOPDECK_TEST_LOGIN_DELAY_MS ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * The ForceCommand of a slow-login sshd: sleep (and wait for the gate), then run what the client
 * asked for through the user's shell (or that shell alone), as a slow rc file would, without
 * touching the real one.
 */
function slowLoginScript(delayMs: number, gate: string | undefined): string {
  return [
    '#!/bin/sh',
    delayMs > 0 ? `sleep ${(delayMs / 1000).toFixed(3)}` : '',
    gate ? `while [ ! -e ${JSON.stringify(gate)} ]; do sleep 0.05; done` : '',
    'if [ -n "$SSH_ORIGINAL_COMMAND" ]; then exec "${SHELL:-/bin/sh}" -c "$SSH_ORIGINAL_COMMAND"; fi',
    'exec "${SHELL:-/bin/sh}"',
    '',
  ].join('\n');
}

/** A free port on 127.0.0.1 (bound, then released): nothing listens there until someone does. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function keygen(file: string, type = 'ed25519'): void {
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 'loopdeck-test', '-f', file], { stdio: 'ignore' });
}

/**
 * The sshd processes below `pid` (sshd forks one or two per connection). Only sshd's own
 * processes: a crash of sshd must not also SIGKILL the user's shells, which may hold locks of
 * their own (a login shell killed in the middle of its rc files can wedge every later login).
 */
function sshdDescendants(pid: number): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const kids = out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([p, comm]) => Number(p) > 0 && (comm ?? '').startsWith('sshd'))
    .map(([p]) => Number(p));
  return kids.flatMap((k) => [k, ...sshdDescendants(k)]);
}

function signal(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // already gone
    }
  }
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = createConnection({ host: '127.0.0.1', port }, () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Start a throwaway OpenSSH sshd on a free loopback port: its own config, host key, client key
 * and authorized_keys; `StrictModes no` because the key files live in a temp folder.
 */
export async function startSshd(options: SshdOptions = {}): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-sshd-'));
  mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort();
  const user = userInfo().username;
  const hostKey = join(dir, 'host_ed25519');
  const clientKey = join(dir, 'client_ed25519');
  keygen(hostKey);
  keygen(clientKey);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKey}.pub`));
  const config = join(dir, 'sshd_config');
  const loginDelayMs = options.loginDelayMs ?? defaultLoginDelayMs();
  const slowLogin = join(dir, 'slow-login.sh');
  const slow = loginDelayMs > 0 || options.gate !== undefined;
  if (slow) writeFileSync(slowLogin, slowLoginScript(loginDelayMs, options.gate), { mode: 0o755 });
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      `MaxSessions ${options.maxSessions ?? 10}`,
      `MaxStartups ${options.maxStartups ?? 100}`,
      'AllowTcpForwarding yes',
      'ClientAliveInterval 0',
      'LogLevel ERROR',
      slow ? `ForceCommand ${slowLogin}` : '',
      options.extraConfig ?? '',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<never>((_, reject) =>
      child?.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${stderr}`))),
    );
    await Promise.race([waitForPort(port), exited]);
  };
  const all = (): number[] => (child?.pid ? [child.pid, ...sshdDescendants(child.pid)] : []);
  const hostLine = (): string => readFileSync(`${hostKey}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostLine()}\n`);
  await launch();

  const kill = (): void => {
    signal(all(), 'SIGKILL');
    child = null;
  };
  return {
    dir,
    port,
    user,
    clientKey,
    get hostPublicKey() {
      return hostLine();
    },
    knownHosts,
    loginDelayMs,
    kill,
    restart: async () => {
      kill();
      await launch();
    },
    freeze: () => signal(all(), 'SIGSTOP'),
    thaw: () => signal(all(), 'SIGCONT'),
    changeHostKey: () => {
      execFileSync('rm', ['-f', hostKey, `${hostKey}.pub`]);
      keygen(hostKey);
    },
    stop: async () => {
      const pids = all();
      signal(pids, 'SIGCONT');
      signal(pids, 'SIGTERM');
      child = null;
    },
  };
}
