import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedSshEnv } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { Store } from '../store/store';
import { SshHost } from './ssh-host';
import { until } from '../../../testing/until';

describe('SSH authentication and ProxyJump against a real sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'loopdeck-auth-'));
  }, 30_000);
  afterAll(() => sshd?.stop());

  it('asks for the passphrase of an encrypted key, keeps it in memory only, and connects once unlocked', async () => {
    const key = join(dir, 'locked_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'correct horse', '-f', key]);
    appendFileSync(join(sshd.dir, 'authorized_keys'), readFileSync(`${key}.pub`));
    const dbFile = join(dir, 'passphrase.db');
    const store = Store.open(dbFile);
    const host = new SshHost('runner', { ssh: `${sshd.user}@127.0.0.1:${sshd.port}`, identityFile: key, knownHosts: sshd.knownHosts }, { store, ...isolatedSshEnv() });
    host.connection.start();
    try {
      await until(() => host.connection.status.state === 'auth-failed', 10_000, 'auth-failed');
      expect(host.needsPassphrase).toBe(key);
      expect(host.unlock('wrong')).toBe(false);
      expect(host.needsPassphrase).toBe(key);
      expect(host.unlock('correct horse')).toBe(true);
      await until(() => host.connection.status.state === 'connected', 10_000, 'connected after unlock');
      expect(host.needsPassphrase).toBeNull();
    } finally {
      host.connection.close();
      store.close();
    }
    const onDisk = ['', '-wal', '-shm'].filter((s) => existsSync(dbFile + s)).map((s) => readFileSync(dbFile + s).toString('latin1')).join('');
    expect(onDisk).not.toContain('correct horse');
  }, 30_000);

  it('authenticates through ssh-agent first, without any identity file', async () => {
    const sock = join(dir, 'agent.sock');
    const agent: ChildProcess = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    try {
      await until(() => existsSync(sock), 5_000, 'the agent socket');
      execFileSync('ssh-add', ['-q', sshd.clientKey], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
      const store = Store.open(':memory:');
      const env = { ...isolatedSshEnv(), agentSocket: sock };
      const host = new SshHost('runner', { ssh: `${sshd.user}@127.0.0.1:${sshd.port}`, identityFile: join(dir, 'no-such-key'), knownHosts: sshd.knownHosts }, { store, ...env });
      host.connection.start();
      await host.connection.ready(10_000);
      expect(host.connection.status.state).toBe('connected');
      host.connection.close();
    } finally {
      agent.kill();
    }
  }, 30_000);

  it('reports auth-failed, naming the user and host, when no method is accepted', async () => {
    const stranger = join(dir, 'stranger_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', stranger]);
    const host = new SshHost('runner', { ssh: `${sshd.user}@127.0.0.1:${sshd.port}`, identityFile: stranger, knownHosts: sshd.knownHosts }, { store: Store.open(':memory:'), ...isolatedSshEnv() });
    host.connection.start();
    try {
      await until(() => host.connection.status.state === 'auth-failed', 10_000, 'auth-failed');
      expect(host.connection.status.error).toMatch(new RegExp(`Host runner: authentication failed for ${sshd.user}@127\\.0\\.0\\.1`));
    } finally {
      host.connection.close();
    }
  }, 30_000);

  it('goes through a ProxyJump hop from ~/.ssh/config, verifying the hop\'s key too', async () => {
    const env = isolatedSshEnv();
    const sshConfig = join(env.home ?? dir, '.ssh', 'config');
    writeFileSync(
      sshConfig,
      [
        'Host bastion',
        '  HostName 127.0.0.1',
        `  Port ${sshd.port}`,
        `  User ${sshd.user}`,
        `  IdentityFile ${sshd.clientKey}`,
        'Host runner-behind',
        '  HostName 127.0.0.1',
        `  Port ${sshd.port}`,
        `  User ${sshd.user}`,
        `  IdentityFile ${sshd.clientKey}`,
        '  ProxyJump bastion',
        '',
      ].join('\n'),
    );
    const trusted = new SshHost('runner', { ssh: 'runner-behind', knownHosts: sshd.knownHosts }, { store: Store.open(':memory:'), ...env, sshConfigPath: sshConfig });
    expect(trusted.endpoint.jumps.map((j) => j.alias)).toEqual(['bastion']);
    trusted.connection.start();
    await trusted.connection.ready(10_000);
    const out = await trusted.connection.exec('echo through-the-jump');
    expect(out.stdout.toString().trim()).toBe('through-the-jump');
    trusted.connection.close();

    // Without a known key, the first hop is already refused: nothing is reached behind it.
    const untrusted = new SshHost('runner', { ssh: 'runner-behind' }, { store: Store.open(':memory:'), ...env, sshConfigPath: sshConfig });
    untrusted.connection.start();
    await until(() => untrusted.connection.status.state === 'untrusted', 10_000, 'untrusted hop');
    expect(untrusted.connection.status.presentedKey).toMatchObject({ host: '127.0.0.1', port: sshd.port });
    untrusted.connection.close();
  }, 30_000);
});
