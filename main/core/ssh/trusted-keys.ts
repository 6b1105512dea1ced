import type { Query, Store } from '../store/store';

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

/** The queries on `trusted_keys`, their parameters and rows declared once. */
interface TrustedKeyRows {
  readonly of: Query<[host: string, port: number], TrustedKey>;
  readonly addresses: Query<[], { host: string; port: number }>;
  readonly insert: Query<[host: string, port: number, keyType: string, keyBase64: string, fingerprint: string, addedAt: string, addedBy: string | null], never>;
  readonly remove: Query<[host: string, port: number], never>;
}

/** Declaring them prepares nothing (the store prepares each once, on first use). */
function rows(store: Store): TrustedKeyRows {
  return {
    of: store.query('SELECT host, port, key_type AS keyType, key_base64 AS keyBase64, fingerprint, added_at AS addedAt, trusted_by AS addedBy FROM trusted_keys WHERE host = ? AND port = ?'),
    addresses: store.query('SELECT DISTINCT host, port FROM trusted_keys'),
    insert: store.query('INSERT OR REPLACE INTO trusted_keys (host, port, key_type, key_base64, fingerprint, added_at, trusted_by) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    remove: store.query('DELETE FROM trusted_keys WHERE host = ? AND port = ?'),
  };
}

/** Host keys the operator trusted through Loopdeck for `host:port`. */
export function trustedKeys(store: Store, host: string, port: number): TrustedKey[] {
  return rows(store).of.all(host, port);
}

/** The `host:port` key of an address, as trustedAddresses holds it. */
export const addressKey = (host: string, port: number): string => `${host}:${port}`;

/** Every address with a key trusted through Loopdeck (one query, however many hosts). */
export function trustedAddresses(store: Store): Set<string> {
  return new Set(rows(store).addresses.all().map((r) => addressKey(r.host, r.port)));
}

/** Remember a host key the operator trusted. */
export function addTrustedKey(store: Store, key: TrustedKey): void {
  rows(store).insert.run(key.host, key.port, key.keyType, key.keyBase64, key.fingerprint, key.addedAt, key.addedBy ?? null);
}

/** Forget every host key trusted through Loopdeck for `host:port` (`loopdeck untrust`); returns how many. */
export function removeTrustedKeys(store: Store, host: string, port: number): number {
  return rows(store).remove.run(host, port).changes;
}
