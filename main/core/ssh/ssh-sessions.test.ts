import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { Store } from '../store/store';
import type { SshHost } from './ssh-host';

// Also against a host whose login shell takes 0.5 s (pyenv in .bashrc): each exec session then
// holds its slot on the server that long, and nothing here may depend on how fast it starts.
describe.each([
  ['', undefined],
  [' (a login shell that takes 0.5 s)', 500],
])('channels over one connection%s', (_what, loginDelayMs) => {
  let sshd: TestSshd;
  let host: SshHost;
  beforeAll(async () => {
    // A server that allows fewer sessions than the client's cap: refusals must be absorbed.
    sshd = await startSshd({ maxSessions: 2, ...(loginDelayMs === undefined ? {} : { loginDelayMs }) });
    host = await connectTestHost(sshd, Store.open(':memory:'));
  }, 30_000);
  afterAll(async () => {
    host?.connection.close();
    await sshd?.stop();
  });

  it('runs scripts through one long-lived shell: binary-safe, exit codes, stderr apart, stdin never eaten', async () => {
    const c = host.connection;
    // Output that looks like a frame's end (another request's marker line) is just output.
    const fake = `LD${'0'.repeat(32)} 0`;
    const binary = await c.run(`printf 'a\\000b\\n${fake}\\n\\377'; printf '\\n${fake}\\n' >&2`);
    expect([...binary.stdout]).toEqual([...Buffer.from(`a\0b\n${fake}\n\xff`, 'latin1')]);
    expect(binary.stderr).toBe(`\n${fake}\n`);
    const big = await c.run('head -c 3000000 /dev/zero');
    expect(big.stdout.length).toBe(3_000_000);
    expect(big.stdout.every((b) => b === 0)).toBe(true);
    expect(await c.run('echo out; echo err >&2; exit 3')).toEqual({ code: 3, stdout: Buffer.from('out\n'), stderr: 'err\n' });
    // A command that reads stdin gets /dev/null, not the requests queued behind it.
    const [eats, after] = await Promise.all([c.run('cat; echo done'), c.run('echo next')]);
    expect(eats.stdout.toString()).toBe('done\n');
    expect(after.stdout.toString()).toBe('next\n');
    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => c.run(`echo ${i}`)));
    expect(many.map((m) => Number(m.stdout.toString()))).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  // The server has one slot for an exec (the long-lived shell holds the other), so these run one
  // after another, each as slow as the account's shell: on a loaded machine with pyenv in .bashrc
  // and the simulated delay that was 7 s a session (CI, Node 24 leg). What is tested is that a
  // refusal is waited out, not how fast: each exec gets a deadline that three such sessions fit in.
  it('retries a channel the server refused while its sessions are taken or not yet freed', async () => {
    const outs = await Promise.all(Array.from({ length: 3 }, (_, i) => host.connection.exec(`sleep 0.05; echo ${i}`, 100_000)));
    expect(outs.map((o) => o.stdout.toString().trim())).toEqual(['0', '1', '2']);
    expect(host.connection.openChannels).toBe(1); // only the long-lived shell session stays open
  }, 120_000);
});
