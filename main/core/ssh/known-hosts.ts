// OpenSSH known_hosts: parsing, host matching and host-key verification, as sshd(8) "SSH_KNOWN_HOSTS
// FILE FORMAT" describes it. Pure: the caller reads the files and hands over their text.
import { createHash, createHmac } from 'node:crypto';
import type { Problem } from '../../../shared/domain';

/** One comma-separated host pattern of a plain known_hosts entry. */
export type HostPattern = { readonly negated: boolean; readonly pattern: string };

/** The hosts an entry names: plain patterns, or one hashed name (`|1|salt|hash`). */
export type KnownHostNames =
  | { readonly kind: 'patterns'; readonly patterns: readonly HostPattern[] }
  | { readonly kind: 'hashed'; readonly salt: Buffer; readonly hash: Buffer };

/** One well-formed known_hosts line. */
export type KnownHostEntry = {
  readonly source: string;
  readonly line: number;
  readonly marker: 'cert-authority' | 'revoked' | null;
  readonly names: KnownHostNames;
  readonly keyType: string;
  readonly keyBase64: string;
  readonly keyBlob: Buffer;
  readonly comment: string | null;
};

/** What Loopdeck should do with the host key a server presented. */
export type HostKeyVerdict =
  | { readonly kind: 'trusted'; readonly via: string /* file path or 'loopdeck' */ }
  | { readonly kind: 'unknown'; readonly fingerprint: string; readonly keyType: string }
  | { readonly kind: 'mismatch'; readonly fingerprint: string; readonly expected: string[]; readonly via: string }
  | { readonly kind: 'revoked'; readonly fingerprint: string; readonly via: string };

/** Input of {@link verifyHostKey}: the presented key, the known_hosts texts and Loopdeck's own pinned keys. */
export type VerifyHostKeyInput = {
  readonly host: string;
  readonly port: number;
  readonly keyBlob: Buffer;
  readonly knownHosts: readonly { readonly source: string; readonly text: string }[];
  /** Keys Loopdeck itself has pinned for this host (base64 wire blobs). */
  readonly trusted: readonly { readonly keyBase64: string }[];
};

const SHA1_BYTES = 20;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Parses known_hosts text; malformed lines become problems (with 1-based line numbers), never exceptions. */
export function parseKnownHosts(text: string, source: string): { entries: KnownHostEntry[]; problems: Problem[] } {
  const entries: KnownHostEntry[] = [];
  const problems: Problem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const result = parseLine(trimmed, source, i + 1);
    if (typeof result === 'string') problems.push({ source, line: i + 1, message: result });
    else entries.push(result);
  }
  return { entries, problems };
}

function parseLine(line: string, source: string, lineNo: number): KnownHostEntry | string {
  const fields = line.split(/[ \t]+/);
  let marker: KnownHostEntry['marker'] = null;
  if (fields[0]?.startsWith('@')) {
    const m = fields.shift() as string;
    if (m === '@cert-authority') marker = 'cert-authority';
    else if (m === '@revoked') marker = 'revoked';
    else return `unknown marker ${JSON.stringify(m)} (expected @cert-authority or @revoked)`;
  }
  const [hostField, keyType, keyBase64] = fields;
  if (hostField === undefined || keyType === undefined || keyBase64 === undefined) return 'expected host patterns, key type and base64 key';
  const comment = fields.length > 3 ? fields.slice(3).join(' ') : null;
  if (/^\d+$/.test(keyType)) return 'SSH-1 RSA keys are not supported';
  const names = parseNames(hostField);
  if (typeof names === 'string') return names;
  if (!BASE64.test(keyBase64)) return `key for ${keyType} is not valid base64`;
  const keyBlob = Buffer.from(keyBase64, 'base64');
  const blobType = readKeyType(keyBlob);
  if (blobType === null) return `key for ${keyType} is not an SSH public key blob`;
  if (blobType !== keyType) return `key type ${keyType} does not match the key, which is ${blobType}`;
  return { source, line: lineNo, marker, names, keyType, keyBase64, keyBlob, comment };
}

function parseNames(field: string): KnownHostNames | string {
  if (field.startsWith('|')) {
    // `|1|salt|hash` splits into ['', '1', salt, hash].
    const [empty, version, saltB64, hashB64, ...extra] = field.split('|');
    if (empty !== '' || version !== '1' || saltB64 === undefined || hashB64 === undefined || extra.length > 0) {
      return `unsupported hashed host ${JSON.stringify(field)} (expected |1|salt|hash)`;
    }
    if (!BASE64.test(saltB64) || !BASE64.test(hashB64)) return 'hashed host salt or hash is not valid base64';
    const salt = Buffer.from(saltB64, 'base64');
    const hash = Buffer.from(hashB64, 'base64');
    if (salt.length !== SHA1_BYTES || hash.length !== SHA1_BYTES) return 'hashed host salt and hash must be 20 bytes each';
    return { kind: 'hashed', salt, hash };
  }
  const patterns: HostPattern[] = [];
  for (const raw of field.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (pattern === '') return `empty host pattern in ${JSON.stringify(field)}`;
    patterns.push({ negated, pattern: pattern.toLowerCase() });
  }
  return { kind: 'patterns', patterns };
}

/** Reads the key type name at the start of an SSH wire-format public key blob; null when the blob is malformed. */
export function readKeyType(blob: Buffer): string | null {
  if (blob.length < 4) return null;
  const len = blob.readUInt32BE(0);
  if (len === 0 || len > 64 || 4 + len > blob.length) return null;
  const name = blob.toString('latin1', 4, 4 + len);
  return /^[\x21-\x7e]+$/.test(name) ? name : null;
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise; lowercased as ssh(1) does. */
export function knownHostsName(host: string, port: number): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  return port === 22 ? lower : `[${lower}]:${port}`;
}

/** Whether an entry names `host` on `port`, with OpenSSH's semantics (a matching negated pattern excludes). */
export function hostMatches(entry: KnownHostEntry, host: string, port: number): boolean {
  const name = knownHostsName(host, port);
  if (entry.names.kind === 'hashed') {
    const digest = createHmac('sha1', entry.names.salt).update(name).digest();
    return digest.equals(entry.names.hash);
  }
  let matched = false;
  for (const { negated, pattern } of entry.names.patterns) {
    if (!globMatch(pattern, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** OpenSSH's match_pattern: `*` any run of characters, `?` exactly one; the whole name must match. */
function globMatch(pattern: string, name: string): boolean {
  // Iterative wildcard matching with a single backtrack point: linear-ish, no regex, no recursion.
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starN = n;
    } else if (starP >= 0) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** OpenSSH's SHA256 fingerprint of a public key blob: `SHA256:` and unpadded base64. */
export function fingerprintSha256(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Decides whether the key a server presented is trusted, unknown, changed or revoked.
 * Order: revoked first, then an exact match (known_hosts, then Loopdeck's pinned keys), then any key
 * on record for the host (mismatch), else unknown. Malformed known_hosts lines are skipped here;
 * callers that want to show them use {@link parseKnownHosts}.
 */
export function verifyHostKey(input: VerifyHostKeyInput): HostKeyVerdict {
  const { host, port, keyBlob } = input;
  const fingerprint = fingerprintSha256(keyBlob);
  const entries = input.knownHosts.flatMap(({ source, text }) => parseKnownHosts(text, source).entries);

  // A revoked key is compromised whichever host presents it, so @revoked applies regardless of
  // its host patterns (stricter than OpenSSH, which only consults lines naming the host).
  const revoked = entries.find((e) => e.marker === 'revoked' && e.keyBlob.equals(keyBlob));
  if (revoked) return { kind: 'revoked', fingerprint, via: revoked.source };

  // @cert-authority entries are ignored: certificate host keys are not supported, and a CA key is
  // never itself a host key.
  const forHost = entries.filter((e) => e.marker === null && hostMatches(e, host, port));
  const exact = forHost.find((e) => e.keyBlob.equals(keyBlob));
  if (exact) return { kind: 'trusted', via: exact.source };
  const pinned = input.trusted.map((t) => Buffer.from(t.keyBase64, 'base64'));
  if (pinned.some((b) => b.equals(keyBlob))) return { kind: 'trusted', via: 'loopdeck' };

  // Loopdeck's pinned keys are pinned for this host, so a different key is a mismatch too.
  const expected = [...new Set([...forHost.map((e) => fingerprintSha256(e.keyBlob)), ...pinned.map(fingerprintSha256)])];
  if (expected.length > 0) return { kind: 'mismatch', fingerprint, expected, via: forHost[0]?.source ?? 'loopdeck' };
  return { kind: 'unknown', fingerprint, keyType: readKeyType(keyBlob) ?? '(unreadable key)' };
}
