import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintSha256, hostMatches, parseKnownHosts, readKeyType, verifyHostKey } from './known-hosts';

// Real keys and real known_hosts lines from OpenSSH's ssh-keygen; expected values come from the tool.
type Key = { name: string; type: string; b64: string; blob: Buffer; fp: string };
let dir = '';
type KeyName = 'ed' | 'ec' | 'rsa' | 'revoked' | 'ca' | 'stranger';
const keys = {} as Record<KeyName, Key>;
let plainPath = '';
let hashedPath = '';
let plain = '';
let hashed = '';

function keygen(...args: string[]): string {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function makeKey(name: string, ...typeArgs: string[]): Key {
  const file = join(dir, name);
  keygen('-q', ...typeArgs, '-N', '', '-C', `${name}@test`, '-f', file);
  const [type = '', b64 = ''] = readFileSync(`${file}.pub`, 'utf8').trim().split(' ');
  const fp = keygen('-lf', `${file}.pub`, '-E', 'sha256').split(' ')[1] ?? '';
  return { name, type, b64, blob: Buffer.from(b64, 'base64'), fp };
}

const line = (hosts: string, k: Key, marker = ''): string => `${marker ? `${marker} ` : ''}${hosts} ${k.type} ${k.b64}`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopdeck-kh-'));
  keys.ed = makeKey('ed', '-t', 'ed25519');
  keys.ec = makeKey('ec', '-t', 'ecdsa', '-b', '256');
  keys.rsa = makeKey('rsa', '-t', 'rsa', '-b', '2048');
  keys.revoked = makeKey('revoked', '-t', 'ed25519');
  keys.ca = makeKey('ca', '-t', 'ed25519');
  keys.stranger = makeKey('stranger', '-t', 'ed25519');
  plain = [
    '# comment line',
    '',
    line('127.0.0.1,Runner.Example', keys.ed) + ' the runner',
    line('[127.0.0.1]:2222', keys.ec),
    line('*.fleet.test,!bad.fleet.test,gpu?.lab', keys.rsa),
    line('*', keys.revoked, '@revoked'),
    line('*.ca.test', keys.ca, '@cert-authority'),
    '',
  ].join('\n');
  plainPath = join(dir, 'known_hosts');
  hashedPath = join(dir, 'known_hosts_hashed');
  writeFileSync(plainPath, plain);
  copyFileSync(plainPath, hashedPath);
  keygen('-H', '-f', hashedPath);
  hashed = readFileSync(hashedPath, 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Line numbers ssh-keygen -F reports for a name: the real tool as the oracle for matching. */
function keygenMatches(file: string, name: string): number[] {
  let out: string;
  try {
    out = keygen('-F', name, '-f', file);
  } catch {
    return []; // exit status 1: not found
  }
  return [...out.matchAll(/^# Host .* found: line (\d+)/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
}

describe('fingerprintSha256 and readKeyType', () => {
  it.each(['ed', 'ec', 'rsa'] as const)('equals ssh-keygen -lf for the %s key', (k) => {
    expect(fingerprintSha256(keys[k].blob)).toBe(keys[k].fp);
    expect(readKeyType(keys[k].blob)).toBe(keys[k].type);
  });
  it('rejects blobs that are not SSH keys', () => {
    expect(readKeyType(Buffer.alloc(0))).toBeNull();
    expect(readKeyType(Buffer.from([0, 0, 0, 9, 65]))).toBeNull();
  });
});

describe('parseKnownHosts', () => {
  it('reads markers, patterns, hashed names, key types and comments', () => {
    const { entries, problems } = parseKnownHosts(plain, 'kh');
    expect(problems).toEqual([]);
    expect(entries.map((e) => [e.line, e.marker, e.keyType])).toEqual([
      [3, null, 'ssh-ed25519'],
      [4, null, 'ecdsa-sha2-nistp256'],
      [5, null, 'ssh-rsa'],
      [6, 'revoked', 'ssh-ed25519'],
      [7, 'cert-authority', 'ssh-ed25519'],
    ]);
    expect(entries[0]?.comment).toBe('the runner');
    expect(entries[2]?.names).toEqual({
      kind: 'patterns',
      patterns: [
        { negated: false, pattern: '*.fleet.test' },
        { negated: true, pattern: 'bad.fleet.test' },
        { negated: false, pattern: 'gpu?.lab' },
      ],
    });
    const h = parseKnownHosts(hashed, 'h');
    expect(h.problems).toEqual([]);
    expect(h.entries.filter((e) => e.names.kind === 'hashed')).toHaveLength(3); // two names of line 3 split, plus line 4
  });

  it.each([
    ['@bogus * ssh-ed25519 AAAA', /unknown marker/],
    ['onlyhost ssh-ed25519', /expected host patterns/],
    ['h ssh-ed25519 not*base64', /not valid base64/],
    ['h ssh-ed25519 AAAA', /not an SSH public key blob/],
    ['h 1024 35 1234567', /SSH-1/],
    ['|1|abc|def ssh-ed25519 AAAA', /20 bytes/],
    ['|2|a|b ssh-ed25519 AAAA', /unsupported hashed host/],
    ['a,,b ssh-ed25519 AAAA', /empty host pattern/],
  ])('reports %j and keeps going', (bad, message) => {
    const good = line('ok.test', keys.ed);
    const { entries, problems } = parseKnownHosts(`${good}\n${bad}\r\n${good}`, 'f');
    expect(entries.map((e) => e.line)).toEqual([1, 3]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ source: 'f', line: 2 });
    expect(problems[0]?.message).toMatch(message);
  });

  it('reports a key whose type field disagrees with the blob', () => {
    const { problems } = parseKnownHosts(`h ssh-rsa ${keys.ed.b64}`, 'f');
    expect(problems[0]?.message).toMatch(/does not match the key, which is ssh-ed25519/);
  });

  it('never throws on arbitrary text, and accounts for every non-comment line', () => {
    const token = fc.constantFrom('@revoked', '@cert-authority', '@x', '|1|', '|', '*', '!', ',', '[h]:22', 'ssh-ed25519', 'AAAA', '#', ' ', '\t', '\n', '\r\n', '=');
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.oneof(token, fc.string())).map((a) => a.join('')));
    fc.assert(
      fc.property(text, (t) => {
        const { entries, problems } = parseKnownHosts(t, 's');
        const meaningful = t.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trim().startsWith('#')).length;
        expect(entries.length + problems.length).toBe(meaningful);
      }),
      { numRuns: 500 },
    );
  });
});

describe('hostMatches agrees with ssh-keygen -F', () => {
  const cases: [string, number][] = [
    ['127.0.0.1', 22],
    ['127.0.0.1', 2222],
    ['127.0.0.1', 2223],
    ['runner.example', 22],
    ['RUNNER.example', 22],
    ['a.fleet.test', 22],
    ['bad.fleet.test', 22],
    ['a.fleet.test', 2200],
    ['gpu1.lab', 22],
    ['gpu12.lab', 22],
    ['elsewhere', 22],
  ];
  it.each(cases)('%s port %i', (host, port) => {
    const name = port === 22 ? host : `[${host}]:${port}`;
    const files: [string, string][] = [
      [plainPath, plain],
      [hashedPath, hashed],
    ];
    for (const [file, text] of files) {
      const ours = parseKnownHosts(text, file)
        .entries.filter((e) => hostMatches(e, host, port))
        .map((e) => e.line);
      // ssh(1) lowercases the host before looking it up; ssh-keygen -F does not for hashed lines.
      expect(ours, `${file} ${name}`).toEqual(keygenMatches(file, name.toLowerCase()));
    }
  });
});

describe('verifyHostKey', () => {
  const verify = (host: string, port: number, key: Key, useHashed = false, trusted: string[] = []) =>
    verifyHostKey({
      host,
      port,
      keyBlob: key.blob,
      knownHosts: [{ source: useHashed ? hashedPath : plainPath, text: useHashed ? hashed : plain }],
      trusted: trusted.map((keyBase64) => ({ keyBase64 })),
    });

  it.each([false, true])('trusts recorded keys (hashed file: %s)', (h) => {
    expect(verify('127.0.0.1', 22, keys.ed, h)).toEqual({ kind: 'trusted', via: h ? hashedPath : plainPath });
    expect(verify('127.0.0.1', 2222, keys.ec, h).kind).toBe('trusted');
    expect(verify('x.fleet.test', 22, keys.rsa, h).kind).toBe('trusted');
  });

  it.each([false, true])('reports a changed key as a mismatch with the fingerprints on record (hashed: %s)', (h) => {
    expect(verify('127.0.0.1', 22, keys.rsa, h)).toEqual({
      kind: 'mismatch',
      fingerprint: keys.rsa.fp,
      expected: [keys.ed.fp],
      via: h ? hashedPath : plainPath,
    });
    // the same host on another port has its own record
    expect(verify('127.0.0.1', 2222, keys.ed, h)).toMatchObject({ kind: 'mismatch', expected: [keys.ec.fp] });
  });

  it('treats a negated name as unknown, not as the wildcard record', () => {
    expect(verify('bad.fleet.test', 22, keys.rsa)).toEqual({ kind: 'unknown', fingerprint: keys.rsa.fp, keyType: 'ssh-rsa' });
    expect(verify('127.0.0.1', 2223, keys.ed)).toEqual({ kind: 'unknown', fingerprint: keys.ed.fp, keyType: 'ssh-ed25519' });
  });

  it('refuses a revoked key even where it would otherwise be trusted', () => {
    expect(verify('anything', 22, keys.revoked)).toEqual({ kind: 'revoked', fingerprint: keys.revoked.fp, via: plainPath });
    expect(verify('anything', 22, keys.revoked, false, [keys.revoked.b64]).kind).toBe('revoked');
  });

  it('ignores @cert-authority lines (certificate host keys are not supported)', () => {
    expect(verify('host.ca.test', 22, keys.ca).kind).toBe('unknown');
  });

  it("uses Loopdeck's pinned keys: trusted when equal, mismatch when different", () => {
    expect(verify('new.host', 22, keys.stranger, false, [keys.stranger.b64])).toEqual({ kind: 'trusted', via: 'loopdeck' });
    expect(verify('new.host', 22, keys.stranger, false, [keys.ed.b64])).toEqual({
      kind: 'mismatch',
      fingerprint: keys.stranger.fp,
      expected: [keys.ed.fp],
      via: 'loopdeck',
    });
  });

  it('skips malformed known_hosts lines instead of failing', () => {
    const v = verifyHostKey({
      host: '127.0.0.1',
      port: 22,
      keyBlob: keys.ed.blob,
      knownHosts: [{ source: 'broken', text: 'garbage\n@x y z\n' }, { source: plainPath, text: plain }],
      trusted: [],
    });
    expect(v).toEqual({ kind: 'trusted', via: plainPath });
  });
});
