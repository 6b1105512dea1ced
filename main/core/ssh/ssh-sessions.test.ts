import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { connectTestHost } from '../../testing/ssh-fixture';
import { Store } from '../store/store';
import type { SshHost } from './ssh-host';

describe('channels over one connection', () => {
  let sshd: TestSshd;
  let host: SshHost;
  beforeAll(async () => {
    // A server that allows fewer sessions than the client's cap: refusals must be absorbed.
    sshd = await startSshd({ maxSessions: 2 });
    host = await connectTestHost(sshd, Store.open(':memory:'));
  }, 30_000);
  afterAll(async () => {
    host?.connection.close();
    await sshd?.stop();
  });

  it('retries a channel the server refused while it frees a finished session', async () => {
    const outs = await Promise.all(Array.from({ length: 4 }, (_, i) => host.connection.exec(`sleep 0.05; echo ${i}`)));
    expect(outs.map((o) => o.stdout.toString().trim())).toEqual(['0', '1', '2', '3']);
    expect(host.connection.openChannels).toBe(0);
  });
});
