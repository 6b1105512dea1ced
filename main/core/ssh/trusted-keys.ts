import type { Store } from '../store/store';

// The host keys the operator trusted through Loopdeck (`trusted_keys`): what an SSH host checks a
// presented key against beside known_hosts, and what `untrust` forgets.

/** A host key trusted through Loopdeck (not through known_hosts). */
export interface TrustedKey {
  readonly host: string;
  readonly port: number;
  readonly keyType: string;
  readonly keyBase64: string;
  /** OpenSSH's `SHA256:…` form. */
  readonly fingerprint: string;
  readonly addedAt: string;
  /** Who trusted it (migration 14); absent for keys trusted before. */
  readonly addedBy?: string | null;
}

/** Host keys the operator trusted through Loopdeck for `host:port`. */
export function trustedKeys(store: Store, host: string, port: number): TrustedKey[] {
  return store
    .statement('SELECT host, port, key_type AS keyType, key_base64 AS keyBase64, fingerprint, added_at AS addedAt, trusted_by AS addedBy FROM trusted_keys WHERE host = ? AND port = ?')
    .all(host, port) as TrustedKey[];
}

/** The `host:port` key of an address, as trustedAddresses holds it. */
export const addressKey = (host: string, port: number): string => `${host}:${port}`;

/** Every address with a key trusted through Loopdeck (one query, however many hosts). */
export function trustedAddresses(store: Store): Set<string> {
  const rows = store.statement('SELECT DISTINCT host, port FROM trusted_keys').all() as { host: string; port: number }[];
  return new Set(rows.map((r) => addressKey(r.host, r.port)));
}

/** Remember a host key the operator trusted. */
export function addTrustedKey(store: Store, key: TrustedKey): void {
  store
    .statement('INSERT OR REPLACE INTO trusted_keys (host, port, key_type, key_base64, fingerprint, added_at, trusted_by) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(key.host, key.port, key.keyType, key.keyBase64, key.fingerprint, key.addedAt, key.addedBy ?? null);
}

/** Forget every host key trusted through Loopdeck for `host:port` (`loopdeck untrust`); returns how many. */
export function removeTrustedKeys(store: Store, host: string, port: number): number {
  return store.statement('DELETE FROM trusted_keys WHERE host = ? AND port = ?').run(host, port).changes;
}
