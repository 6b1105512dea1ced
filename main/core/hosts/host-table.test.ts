import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config';
import { Store } from '../store/store';
import { addTrustedKey, removeTrustedKeys } from '../ssh/trusted-keys';
import { HostTable } from './host-table';

// The hosts' states are published when one moved: a connection's status, a passphrase asked for,
// or a key trusted or forgotten — also by another process writing the same data folder.

const opened: Store[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

function table(hosts: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'ld-hosts-')), 'loopdeck.sqlite');
  const store = Store.open(file);
  const other = Store.open(file); // `loopdeck untrust` in another process
  opened.push(store, other);
  const lines = Array.from({ length: hosts }, (_, i) => `  h${i}: { ssh: "op@127.0.0.1:${2200 + i}" }`);
  const config = parseConfig('/c.yaml', `hosts:\n  here: { local: true }\n${lines.join('\n')}\n`);
  return { hosts: new HostTable(config.hosts, store), other };
}

const key = (port: number) => ({ host: '127.0.0.1', port, keyType: 'ssh-ed25519', keyBase64: 'AAAA', fingerprint: 'SHA256:x', addedAt: '2026-12-03T06:00:00Z' });

describe('HostTable.changed', () => {
  it('returns the states once, then nothing while no host moved, the same objects each look', () => {
    const { hosts } = table(3);
    const first = hosts.changed();
    expect(first?.map((h) => h.name)).toEqual(['here', 'h0', 'h1', 'h2']);
    expect(hosts.changed()).toBeNull();
    const again = hosts.states();
    again.forEach((h, i) => expect(h).toBe(first?.[i]));
  });

  it('sees a key trusted and forgotten by another process on the next look, and makes only that host again', () => {
    const { hosts, other } = table(3);
    const first = hosts.changed() ?? [];
    addTrustedKey(other, key(2201));
    const trusted = hosts.changed() ?? [];
    expect(trusted.map((h) => h.trustedInLoopdeck)).toEqual([false, false, true, false]);
    expect(trusted[0]).toBe(first[0]);
    expect(trusted[1]).toBe(first[1]);
    expect(trusted[2]).not.toBe(first[2]);
    expect(hosts.changed()).toBeNull();
    expect(removeTrustedKeys(other, '127.0.0.1', 2201)).toBe(1);
    expect(hosts.changed()?.map((h) => h.trustedInLoopdeck)).toEqual([false, false, false, false]);
  });

  it('a key for another port of the same address is not this host’s', () => {
    const { hosts, other } = table(1);
    hosts.changed();
    addTrustedKey(other, key(22));
    expect(hosts.changed()).toBeNull();
  });
});
