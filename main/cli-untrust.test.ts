import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../testing/sshd';
import { databasePath } from './core/config/paths';
import { Store } from './core/store/store';
import { sshHostYaml } from '../testing/ssh-fixture';
import { trustedKeys } from './core/ssh/trusted-keys';
import { LOOPDECK_BIN } from '../testing/cli-run';

const BIN = LOOPDECK_BIN;

/** Run the CLI with `input` on stdin (then closed), a home of its own and no agent. */
function loopdeck(home: string, input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('loopdeck untrust', () => {
  let sshd: TestSshd;
  let home: string;
  let flags: string[];
  let dataDir: string;
  beforeAll(async () => {
    sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-cli-untrust-'));
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(dir, 'config.yaml'), `hosts:\n  runner: ${sshHostYaml(sshd, false)}\n  box: { local: true }\n`);
    dataDir = join(dir, 'data');
    flags = ['--config', join(dir, 'config.yaml'), '--data', dataDir];
  }, 30_000);
  afterAll(() => sshd?.stop());

  const keysStored = (): number => {
    const store = Store.open(databasePath(dataDir));
    try {
      return trustedKeys(store, '127.0.0.1', sshd.port).length;
    } finally {
      store.close();
    }
  };

  it('forgets a key trusted with `loopdeck trust` after asking, and the next connection asks again', async () => {
    const trusted = await loopdeck(home, '', 'trust', 'runner', '--yes', ...flags);
    expect(trusted.stdout).toMatch(/Trusted SHA256:\S+ for runner; connected\./);
    expect(trusted.code).toBe(0);
    const fingerprint = /Trusted (SHA256:\S+)/.exec(trusted.stdout)?.[1];
    expect(keysStored()).toBe(1);

    const declined = await loopdeck(home, 'n\n', 'untrust', 'runner', ...flags);
    expect(declined.stdout).toContain(`Host runner (127.0.0.1:${sshd.port}) has 1 key(s) trusted in Loopdeck:`);
    expect(declined.stdout).toContain(fingerprint);
    expect(declined.stdout).toContain('Nothing was removed.');
    expect(declined.code).toBe(1);
    expect(keysStored()).toBe(1);

    const removed = await loopdeck(home, 'y\n', 'untrust', 'runner', ...flags);
    expect(removed.stdout).toContain('Removed 1 key(s) trusted in Loopdeck for runner. The next connection will ask to trust its key again');
    expect(removed.code).toBe(0);
    expect(keysStored()).toBe(0);

    const asks = await loopdeck(home, 'n\n', 'trust', 'runner', ...flags);
    expect(asks.stdout).toContain(`presents a ssh-ed25519 key:\n  ${fingerprint}`);
    expect(asks.stdout).toContain('Nothing was trusted.');
  }, 120_000);

  it('says when there is nothing to forget, and names a host it cannot untrust', async () => {
    const none = await loopdeck(home, '', 'untrust', 'runner', '--yes', ...flags);
    expect(none.stdout).toContain(`No host key of runner (127.0.0.1:${sshd.port}) is trusted in Loopdeck; nothing was removed.`);
    expect(none.code).toBe(0);
    const local = await loopdeck(home, '', 'untrust', 'box', '--yes', ...flags);
    expect([local.code, local.stderr.trim()]).toEqual([2, 'loopdeck: Host box is local: it has no host key to trust.']);
    const unknown = await loopdeck(home, '', 'untrust', 'nope', ...flags);
    expect(unknown.stderr).toMatch(/^loopdeck: No host named nope in the config \(hosts: runner, box\)\.\n$/);
    expect((await loopdeck(home, '', 'untrust', ...flags)).stderr).toContain('Usage: loopdeck untrust HOST [--yes]');
  }, 120_000);
});
