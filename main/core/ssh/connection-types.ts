import type { AnyAuthMethod } from 'ssh2';
import type { HostConnState } from '../../../shared/domain';
import type { ConnectGate } from './connect-gate';

/** One SSH endpoint to reach, after alias resolution; `jumps` are ProxyJump hops, in order. */
export interface SshEndpoint {
  readonly alias: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly identityFiles: readonly string[];
  readonly jumps: readonly SshEndpoint[];
}

/** A host key a server presented that is not trusted (yet), kept so the operator can trust it. */
export interface PresentedKey {
  readonly host: string;
  readonly port: number;
  readonly keyType: string;
  readonly keyBase64: string;
  readonly fingerprint: string;
}

/** What the host-key check decided for one hop. */
export type KeyDecision =
  | { readonly kind: 'trusted' }
  | { readonly kind: 'unknown'; readonly key: PresentedKey }
  | { readonly kind: 'mismatch'; readonly key: PresentedKey; readonly message: string };

/** The connection's state as the UI and `snapshot.hosts[]` show it. */
export interface ConnectionStatus {
  readonly state: HostConnState;
  /** When the current state began (for `reconnecting`: when the link was lost). */
  readonly since: string;
  /** Failed attempts in the current outage. */
  readonly attempt: number;
  readonly error: string | null;
  /** For `untrusted`: the key the server presented. */
  readonly presentedKey: PresentedKey | null;
}

/** Options for a connection. */
export interface SshConnectionOptions {
  /** The host's name in the config, for messages. */
  readonly name: string;
  readonly endpoint: SshEndpoint;
  /** Decide whether a hop's presented host key (raw SSH blob) is trusted. */
  readonly checkHostKey: (host: string, port: number, keyBlob: Buffer) => KeyDecision;
  /** Authentication methods to try for one hop, in order (agent first, then identity files). */
  readonly auth: (endpoint: SshEndpoint) => AnyAuthMethod[];
  readonly keepaliveIntervalMs?: number;
  readonly keepaliveCountMax?: number;
  readonly readyTimeoutMs?: number;
  /** Most channels open at once; OpenSSH's MaxSessions defaults to 10. */
  readonly maxSessions?: number;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  /** The gate its handshakes wait at (processConnectGate by default: shared by every host). */
  readonly connectGate?: ConnectGate;
}

/** The result of a command run on the host. */
export interface ExecResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** The link is down: the caller should try again after the connection recovers. */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
}

/** Why a connection stopped for good until `retry()`: a host key the operator must act on. */
export type Fatal = { readonly state: 'untrusted' | 'hostkey-mismatch'; readonly error: string; readonly key: PresentedKey | null };
