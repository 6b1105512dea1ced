import { appendFileSync, mkdtempSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followOnce } from '../follow/line-follower';
import { statusFileParser } from '../loops/status-file';
import { SshSource } from '../sources/ssh-source';
import { Store } from '../store/store';
import { connectTestHost } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import type { SshHost } from './ssh-host';
import { until } from '../../../testing/until';

const STAMP = 'audit 2026-11-30T00:00:04+00:00 STARTED\n';

/** The lines followed so far: the detail records after the first stamp, in order. */
function followed(store: Store, path: string): string[] {
  return store.records(store.file('runner', path).id).flatMap((r) => (r.kind === 'detail' ? [r.text] : []));
}

/** Keep following `path` until stopped, swallowing link errors as the engine does. */
function followLoop(source: SshSource, store: Store, path: string): { stop: () => Promise<void>; errors: string[] } {
  let running = true;
  const errors: string[] = [];
  const done = (async () => {
    while (running) {
      try {
        await followOnce(source, store, path, statusFileParser);
      } catch (err) {
        errors.push((err as Error).message);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    errors,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

describe('following files over a real OpenSSH sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  let store: Store;
  let host: SshHost;
  let source: SshSource;

  beforeAll(async () => {
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'loopdeck-remote-'));
    store = Store.open(join(dir, 'loopdeck.db'));
    host = await connectTestHost(sshd, store);
    source = new SshSource('runner', host.connection);
  }, 30_000);

  afterAll(async () => {
    host?.connection.close();
    store?.close();
    await sshd?.stop();
  });

  it('connects with the throwaway key and a verified host key', () => {
    expect(host.connection.status).toMatchObject({ state: 'connected', error: null });
  });

  it('delivers 10,000 lines appended in bursts exactly once and in order', async () => {
    const path = join(dir, 'burst.status');
    writeFileSync(path, STAMP);
    const loop = followLoop(source, store, path);
    const expected: string[] = [];
    for (let burst = 0; burst < 40; burst++) {
      const lines = Array.from({ length: 250 }, (_, i) => `line-${burst * 250 + i}`);
      expected.push(...lines);
      // A burst lands in pieces, sometimes mid-line, as a writer's buffer flushes do.
      const text = lines.join('\n') + '\n';
      const cut = (burst * 7919) % text.length;
      appendFileSync(path, text.slice(0, cut));
      await new Promise((r) => setTimeout(r, 3));
      appendFileSync(path, text.slice(cut));
    }
    await until(() => followed(store, path).length >= expected.length, 60_000, '10,000 lines');
    await loop.stop();
    expect(followed(store, path)).toEqual(expected);
    expect(loop.errors).toEqual([]);
  }, 90_000);

  it('loses and repeats nothing when sshd is killed mid-stream and restarted', async () => {
    const path = join(dir, 'killed.status');
    writeFileSync(path, STAMP);
    const loop = followLoop(source, store, path);
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      expected.push(`k-${i}`);
      appendFileSync(path, `k-${i}\n`);
      if (i === 1000) {
        sshd.kill();
        // The follow loop meets the dead link before sshd is back, however slow the machine.
        await until(() => loop.errors.length > 0, 20_000, 'the follow loop to fail on the dead link');
      }
      if (i === 1800) await sshd.restart();
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 5));
    }
    await until(() => host.connection.status.state === 'connected', 20_000, 'the reconnect');
    await until(() => followed(store, path).length >= expected.length, 30_000, 'all lines after the restart');
    await loop.stop();
    expect(followed(store, path)).toEqual(expected);
    expect(loop.errors.length).toBeGreaterThan(0); // the link really dropped
  }, 90_000);

  it('turns reconnecting within the keepalive bound when sshd is frozen, and recovers with nothing lost', async () => {
    const path = join(dir, 'frozen.status');
    writeFileSync(path, `${STAMP}before\n`);
    await until(async () => (await followOnce(source, store, path, statusFileParser), followed(store, path).length === 1), 10_000, 'first line');
    const frozenAt = Date.now();
    sshd.freeze();
    try {
      appendFileSync(path, 'during-1\nduring-2\n');
      await until(() => host.connection.status.state !== 'connected', 15_000, 'the dead link to be noticed');
      // FAST_TUNING: keepalive every 500 ms, 3 missed → about 2 s; allow for a loaded machine.
      expect(Date.now() - frozenAt).toBeLessThan(10_000);
      expect(host.connection.status.state).toBe('reconnecting');
    } finally {
      sshd.thaw();
    }
    await until(() => host.connection.status.state === 'connected', 30_000, 'the reconnect after SIGCONT');
    appendFileSync(path, 'after\n');
    await until(async () => {
      await followOnce(source, store, path, statusFileParser).catch(() => undefined);
      return followed(store, path).length >= 4;
    }, 20_000, 'lines after recovery');
    expect(followed(store, path)).toEqual(['before', 'during-1', 'during-2', 'after']);
  }, 90_000);

  it('detects truncation and rename-replacement on the host', async () => {
    const path = join(dir, 'rotated.status');
    writeFileSync(path, `${STAMP}old-1\nold-2\n`);
    await followOnce(source, store, path, statusFileParser);
    truncateSync(path, 0);
    appendFileSync(path, `${STAMP}new-1\n`);
    expect((await followOnce(source, store, path, statusFileParser)).reset).toBe('truncated');
    expect(followed(store, path)).toEqual(['new-1']);
    const tmp = `${path}.tmp`;
    writeFileSync(tmp, `${STAMP}replaced-1\nreplaced-2\n`);
    renameSync(tmp, path);
    expect((await followOnce(source, store, path, statusFileParser)).reset).toBe('replaced');
    expect(followed(store, path)).toEqual(['replaced-1', 'replaced-2']);
  });

  it('reads only the appended bytes, not the whole growing file', async () => {
    const path = join(dir, 'big.status');
    writeFileSync(path, STAMP + 'x'.repeat(200_000) + '\n');
    await followOnce(source, store, path, statusFileParser);
    appendFileSync(path, 'small\n');
    const out = await followOnce(source, store, path, statusFileParser);
    expect(out.bytesRead).toBe(6);
  });

  it('waits for a file that does not exist yet', async () => {
    const path = join(dir, 'later.status');
    expect((await followOnce(source, store, path, statusFileParser)).presence).toBe('absent');
    writeFileSync(path, `${STAMP}here\n`);
    await followOnce(source, store, path, statusFileParser);
    expect(followed(store, path)).toEqual(['here']);
  });
});
