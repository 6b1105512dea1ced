import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedSshEnv } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { until } from '../../../testing/until';
import { Store } from '../store/store';
import { ConnectGate } from './connect-gate';
import { SshHost } from './ssh-host';

// Many host entries starting at once, against a real sshd: the connect gate spreads their
// handshakes, and a host whose handshake hangs keeps nobody else waiting.
describe('the connect gate, against a real sshd', () => {
  let sshd: TestSshd;
  let silent: Server;
  let silentPort = 0;
  const held = new Set<Socket>();
  const hosts: SshHost[] = [];
  const store = Store.open(':memory:');

  const host = (name: string, port: number, gate: ConnectGate, readyTimeoutMs = 3000): SshHost => {
    const env = isolatedSshEnv();
    const h = new SshHost(
      name,
      { ssh: `${sshd.user}@127.0.0.1:${port}`, identityFile: sshd.clientKey, knownHosts: sshd.knownHosts },
      { store, ...env, tuning: { ...env.tuning, readyTimeoutMs, connectGate: gate } },
    );
    hosts.push(h);
    return h;
  };

  beforeAll(async () => {
    // sshd drops every connection past four that have not authenticated yet (MaxStartups 4), as a
    // server with the default 10:30:100 drops them, at random, when a hundred arrive at once.
    sshd = await startSshd({ maxStartups: 4 });
    // A port that accepts TCP and never says a word: an SSH server whose handshake hangs.
    silent = createServer((s) => {
      held.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const addr = silent.address();
    silentPort = typeof addr === 'object' && addr ? addr.port : 0;
  }, 30_000);
  afterAll(async () => {
    for (const h of hosts) h.connection.close();
    for (const s of held) s.destroy();
    silent?.close();
    await sshd?.stop();
    store.close();
  });

  it('connects sixteen hosts started in one tick on their first attempt, none dropped past MaxStartups', async () => {
    const gate = new ConnectGate(2, 30_000);
    const batch = Array.from({ length: 16 }, (_, i) => host(`h${i}`, sshd.port, gate));
    const states = batch.map(() => new Set<string>());
    let peak = 0;
    batch.forEach((h, i) =>
      h.connection.on('status', (s: { state: string }) => {
        states[i]?.add(s.state);
        peak = Math.max(peak, gate.inUse);
      }),
    );
    for (const h of batch) h.connection.start();
    await until(() => batch.every((h) => h.connection.status.state === 'connected'), 30_000, 'all sixteen to connect');
    // Without the gate sshd drops most of them at once and they come back after a backoff.
    expect(states.map((s) => [...s])).toEqual(batch.map(() => ['connected']));
    expect(peak).toBeLessThanOrEqual(2);
    for (const h of batch) h.connection.close();
  }, 40_000);

  it('a host whose handshake hangs holds its turn only holdMs: the next host connects meanwhile', async () => {
    const gate = new ConnectGate(1, 300);
    const hung = host('hung', silentPort, gate, 20_000);
    hung.connection.start();
    await until(() => held.size > 0 && gate.inUse === 1, 5000, 'the hung handshake to hold the only turn');
    const t0 = Date.now();
    const ok = host('ok', sshd.port, gate);
    ok.connection.start();
    // Without the hold limit it would wait for the hung one's ready timeout (20 s).
    await until(() => ok.connection.status.state === 'connected', 5000, 'the other host to connect');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(hung.connection.status.state).toBe('connecting');
  }, 30_000);

  // `retry()` (a key trusted or untrusted, a passphrase given) while a handshake is in flight: the
  // teardown took that client's listeners, so its setup never settled and kept its turn for the
  // whole hold time; the new attempt waited behind it.
  it('retry() during a hung handshake ends it: its turn goes to the new attempt at once', async () => {
    const gate = new ConnectGate(1, 60_000);
    const hung = host('retried', silentPort, gate, 60_000);
    const before = held.size;
    hung.connection.start();
    await until(() => held.size === before + 1 && gate.inUse === 1, 5000, 'the first handshake to hold the only turn');
    hung.connection.retry();
    // Without the fix the second attempt waits for the first one's 60-s turn.
    await until(() => held.size === before + 2, 10_000, 'the second attempt to reach the host');
    expect(gate.inUse).toBe(1);
    // The first attempt's end is not the link's: no failure counted, no backoff begun.
    expect(hung.connection.status).toMatchObject({ state: 'connecting', attempt: 0, error: null });
    hung.connection.close();
  }, 30_000);
});
