import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotSchema, type HostState } from '../../../shared/domain';
import { isolatedSshEnv, sshHostYaml } from '../../../testing/ssh-fixture';
import { startSshd, type TestSshd } from '../../../testing/sshd';
import { createSession, type Session } from '../session/session';
import { Store } from '../store/store';
import { httpGet } from './http-over-ssh';
import { until } from '../../../testing/until';
import { TEST_CALLER } from '../../../testing/callers';
import { LOOPDECK_BIN } from '../../../testing/cli-run';

const DAY = '2026-11-29';
const NOW = () => new Date('2026-11-29T12:00:00Z');

interface Setup {
  readonly dir: string;
  readonly runs: string;
  readonly configPath: string;
  readonly dataDir: string;
}

function setup(sshd: TestSshd, trusted: boolean): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'loopdeck-sshloop-'));
  const runs = join(dir, 'runs');
  mkdirSync(join(runs, DAY), { recursive: true });
  const configPath = join(dir, 'config.yaml');
  writeFileSync(
    configPath,
    `hosts:\n  runner: ${sshHostYaml(sshd, trusted)}\nloops:\n  reliability:\n    host: runner\n    runs: ${JSON.stringify(runs)}\n`,
  );
  return { dir, runs, configPath, dataDir: join(dir, 'data') };
}

function core(s: Setup): Session {
  return createSession({ configPath: s.configPath, dataDir: s.dataDir, shell: 'serve', pollMs: 100, now: NOW, ssh: isolatedSshEnv() });
}

const host = (c: Session): HostState | undefined => c.snapshot().hosts[0];

describe('SSH hosts in the engine, against a real sshd', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd({ maxSessions: 10 });
  }, 30_000);
  afterAll(() => sshd?.stop());

  it('shows an unknown host key as untrusted with its OpenSSH fingerprint, reads nothing, and follows once trusted', async () => {
    const s = setup(sshd, false);
    writeFileSync(join(s.runs, DAY, 'audit.status'), 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    const c = core(s);
    await c.start();
    try {
      await until(() => host(c)?.state === 'untrusted', 10_000, 'untrusted');
      const expected = execFileSync('ssh-keygen', ['-lf', join(sshd.dir, 'host_ed25519.pub'), '-E', 'sha256'], { encoding: 'utf8' }).split(' ')[1];
      expect(host(c)?.fingerprint).toBe(expected);
      await c.pollOnce();
      expect(c.snapshot().loops[0]?.cycles).toEqual([]);

      const wrong = await (async () => c.handlers['hosts.trust']({ host: 'runner', fingerprint: 'SHA256:AAAA' }, TEST_CALLER))().then(
        () => 'trusted',
        (e: Error) => e.message,
      );
      expect(wrong).toMatch(/now presents SHA256:.*not SHA256:AAAA; nothing was trusted/);

      await c.handlers['hosts.trust']({ host: 'runner', fingerprint: expected ?? '' }, TEST_CALLER);
      await until(() => host(c)?.state === 'connected', 10_000, 'connected after trust');
      await c.pollOnce();
      expect(c.snapshot().loops[0]?.cycles[0]?.phases[0]?.status).toBe('running');
    } finally {
      await c.close();
    }
    // The trust is remembered in Loopdeck's store, not in ~/.ssh.
    const again = core(s);
    await again.start();
    await until(() => host(again)?.state === 'connected', 10_000, 'connected on restart');
    await again.close();
  }, 60_000);

  it('refuses a changed host key, naming the host and both fingerprints, and reads nothing', async () => {
    const other = await startSshd();
    try {
      const s = setup(other, true);
      other.changeHostKey();
      await other.restart();
      const c = core(s);
      await c.start();
      try {
        await until(() => host(c)?.state === 'hostkey-mismatch', 10_000, 'hostkey-mismatch');
        expect(host(c)?.error).toMatch(/Host runner: the host key of 127\.0\.0\.1:\d+ CHANGED — it presented SHA256:\S+, but .*known_hosts records SHA256:\S+/);
        await c.pollOnce();
        expect(c.snapshot().loops[0]?.cycles).toEqual([]);
        await expect(c.handlers['hosts.trust']({ host: 'runner', fingerprint: host(c)?.fingerprint ?? '' }, TEST_CALLER)).rejects.toThrow(/no untrusted key/);
      } finally {
        await c.close();
      }
    } finally {
      await other.stop();
    }
  }, 60_000);

  it('follows 30 files read concurrently on one host under MaxSessions 10 (the session cap keeps channels at 8)', async () => {
    const s = setup(sshd, true);
    for (let d = 1; d <= 10; d++) {
      const date = `2026-11-${String(d).padStart(2, '0')}`;
      mkdirSync(join(s.runs, date));
      for (const phase of ['audit', 'remediate', 'deliver']) {
        // A deliver's exit 0 is only OK with its verdict: the wrapper's own PR stamp is one.
        const end = phase === 'deliver' ? '0 PR(s), nothing to merge' : 'OK';
        writeFileSync(join(s.runs, date, `${phase}.status`), `${phase} ${date}T01:00:00+00:00 STARTED\n${phase} ${date}T02:00:00+00:00 ${end}\n`);
      }
    }
    const c = core(s);
    await c.start();
    try {
      await until(() => host(c)?.state === 'connected', 10_000, 'connected');
      await c.pollOnce();
      const cycles = c.snapshot().loops[0]?.cycles ?? [];
      const oks = cycles.flatMap((cy) => cy.phases).filter((p) => p.status === 'ok');
      expect(oks).toHaveLength(30);
      expect(c.snapshot().problems).toEqual([]);
    } finally {
      await c.close();
    }
  }, 60_000);

  it('resumes after Loopdeck restarts between appends: no duplicate, no gap', async () => {
    const s = setup(sshd, true);
    const file = join(s.runs, DAY, 'audit.status');
    writeFileSync(file, 'audit 2026-11-29T00:00:04+00:00 STARTED\n');
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) {
      const c = core(s);
      await c.start();
      await until(() => host(c)?.state === 'connected', 10_000, 'connected');
      for (let i = 0; i < 50; i++) {
        lines.push(`r${round}-${i}`);
        appendFileSync(file, `r${round}-${i}\n`);
      }
      await c.pollOnce();
      await c.close(); // mid-stream from the runner's point of view: it keeps appending
      for (let i = 50; i < 60; i++) {
        lines.push(`r${round}-${i}`);
        appendFileSync(file, `r${round}-${i}\n`);
      }
    }
    const c = core(s);
    await c.start();
    await until(() => host(c)?.state === 'connected', 10_000, 'connected');
    await c.pollOnce();
    await c.close();
    const store = Store.open(join(s.dataDir, 'loopdeck.db'));
    const details = store.records(store.file('runner', file).id).flatMap((r) => (r.kind === 'detail' ? [r.text] : []));
    store.close();
    expect(details).toEqual(lines);
  }, 90_000);

  describe('HTTP to the host\'s loopback over the connection', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/slow') return; // never answers
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: req.url }));
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it('gets through forwardOut, times out, and closes every channel', async () => {
      const s = setup(sshd, true);
      const c = core(s);
      await c.start();
      const { SshHost } = await import('./ssh-host');
      const ssh = new SshHost('runner', { ssh: `${sshd.user}@127.0.0.1:${sshd.port}`, identityFile: sshd.clientKey, knownHosts: sshd.knownHosts }, {
        store: Store.open(':memory:'),
        ...isolatedSshEnv(),
      });
      ssh.connection.start();
      await ssh.connection.ready(10_000);
      try {
        const reply = await httpGet(ssh.connection, `http://127.0.0.1:${port}/_crossbar/hosts?x=1`);
        expect(reply.status).toBe(200);
        expect(JSON.parse(reply.body)).toEqual({ path: '/_crossbar/hosts?x=1' });
        await expect(httpGet(ssh.connection, `http://127.0.0.1:${port}/slow`, 300)).rejects.toThrow(/no answer within 300 ms/);
        const local = await httpGet(null, `http://127.0.0.1:${port}/direct`);
        expect(JSON.parse(local.body)).toEqual({ path: '/direct' });
        await until(() => ssh.connection.openChannels === 0, 5_000, 'channels closed');
      } finally {
        ssh.connection.close();
        await c.close();
      }
    }, 30_000);
  });

  it('snapshot exits non-zero naming a host that is not connected', async () => {
    const s = setup(sshd, false);
    const bin = LOOPDECK_BIN;
    const home = mkdtempSync(join(tmpdir(), 'loopdeck-home-'));
    const r = await promisify(execFile)(process.execPath, [bin, 'snapshot', '--config', s.configPath, '--data', s.dataDir, '--json'], {
      env: { ...process.env, HOME: home, SSH_AUTH_SOCK: '' },
      timeout: 40_000,
    }).then(
      (ok) => ({ code: 0, ...ok }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/host runner is untrusted/);
    expect(SnapshotSchema.parse(JSON.parse(r.stdout)).hosts[0]).toMatchObject({ name: 'runner', state: 'untrusted' });
  }, 60_000);
});
