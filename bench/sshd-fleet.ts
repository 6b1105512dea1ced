/**
 * A fleet of SSH endpoints for figure 6d: `count` distinct ports on 127.0.0.1, each a real OpenSSH
 * sshd listener, so each host entry of the config has an address of its own and the connections
 * to it can be counted by port. One sshd listens on at most 16 sockets (OpenSSH's
 * MAX_LISTEN_SOCKS; with more it exits with "Too many listen sockets"), so the ports are spread
 * over ⌈count / 15⌉ sshd processes of testing/sshd.ts, 15 ports each. Distinct addresses
 * (127.0.0.x) would need a socket each just the same, and network namespaces need root and
 * `ip`: ports are the simplest that needs neither.
 *
 * The sessions get an empty HOME (`SetEnv`): bash, started by sshd for every session, sources
 * ~/.bashrc, and a hundred hosts' sessions would all run this machine's (pyenv init here: ~0.5 s
 * and a lock each) on its two cores at once, where real hosts each run their own on their own.
 */
import { writeFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { freePort, startSshd, type TestSshd } from '../testing/sshd';
import { onCleanup, tempDir } from './lib';

/** Ports a single sshd is given (the 16-socket limit, with one to spare). */
export const PORTS_PER_SSHD = 15;

/** One SSH endpoint of the fleet. */
export interface FleetEndpoint {
  readonly port: number;
  /** The client key its sshd accepts. */
  readonly clientKey: string;
}

/** The fleet: its endpoints, the one known_hosts file trusting them all, and its sshd processes. */
export interface SshdFleet {
  readonly endpoints: readonly FleetEndpoint[];
  readonly user: string;
  readonly knownHosts: string;
  readonly sshds: readonly TestSshd[];
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port }, () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Start enough sshd processes for `count` ports; stopped at cleanup. */
export async function startSshdFleet(count: number): Promise<SshdFleet> {
  const sshds: TestSshd[] = [];
  const endpoints: FleetEndpoint[] = [];
  const known: string[] = [];
  const home = tempDir('fleet-home');
  for (let left = count; left > 0; left -= PORTS_PER_SSHD) {
    const n = Math.min(PORTS_PER_SSHD, left);
    // A free port can be taken by someone else before sshd binds it (sshd then binds the rest):
    // such a group is started again on other ports.
    for (let tries = 1; ; tries++) {
      const extra: number[] = [];
      for (let i = 1; i < n; i++) extra.push(await freePort());
      const sshd = await startSshd({ loginDelayMs: 0, extraConfig: [`SetEnv HOME=${home}`, ...extra.map((p) => `ListenAddress 127.0.0.1:${p}`)].join('\n') });
      onCleanup(async () => {
        await sshd.stop();
        rmSync(sshd.dir, { recursive: true, force: true });
      });
      const ports = [sshd.port, ...extra];
      const up = await Promise.all(ports.map(listening));
      if (up.every(Boolean)) {
        sshds.push(sshd);
        for (const port of ports) {
          endpoints.push({ port, clientKey: sshd.clientKey });
          known.push(`[127.0.0.1]:${port} ${sshd.hostPublicKey}`);
        }
        break;
      }
      await sshd.stop();
      if (tries >= 3) throw new Error(`sshd could not listen on all of ports ${ports.join(', ')} (three tries)`);
    }
  }
  const knownHosts = join(tempDir('fleet'), 'known_hosts');
  writeFileSync(knownHosts, `${known.join('\n')}\n`);
  return { endpoints, user: sshds[0]?.user ?? 'root', knownHosts, sshds };
}
