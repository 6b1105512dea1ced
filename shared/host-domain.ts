import * as z from 'zod';

// Hosts: how Loopdeck reaches each, and the problems met reading them (re-exported by domain.ts).

/** Connection states of a host (local hosts are always `connected`). */
export const HostConnStateSchema = z.enum([
  'connecting',
  'connected',
  'reconnecting',
  'untrusted',
  'hostkey-mismatch',
  'auth-failed',
  'unreachable',
]);
/** Connection state of a host. */
export type HostConnState = z.infer<typeof HostConnStateSchema>;

/** A configured host and how Loopdeck reaches it. */
export const HostStateSchema = z
  .object({
    name: z.string(),
    kind: z.enum(['local', 'ssh']),
    state: HostConnStateSchema,
    error: z.string().nullable(),
    /** When the current state began (for `reconnecting`: when the link was lost). */
    since: z.string().nullable(),
    /** Failed attempts in the current outage. */
    attempt: z.number().int(),
    /** For `untrusted` and `hostkey-mismatch`: the SHA256 fingerprint the server presented. */
    fingerprint: z.string().nullable(),
    /** An identity file that needs its passphrase before this host can be reached. */
    needsPassphrase: z.string().nullable(),
    /** Whether a key for this host was trusted in Loopdeck (not known_hosts): it can be forgotten here. */
    trustedInLoopdeck: z.boolean(),
  })
  .readonly();
/** A configured host and how Loopdeck reaches it. */
export type HostState = z.infer<typeof HostStateSchema>;

/** Something that could not be read: the file (or source), the line when known, and why. */
export const ProblemSchema = z
  .object({ source: z.string(), line: z.number().int().nullable(), message: z.string() })
  .readonly();
/** Something that could not be read. */
export type Problem = z.infer<typeof ProblemSchema>;
