import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSshSpec, resolveSshTarget, SshTargetError, type ResolvedTarget } from './ssh-target';

describe('parseSshSpec', () => {
  it.each([
    ['runner', { user: null, host: 'runner', port: null }],
    ['runner:2222', { user: null, host: 'runner', port: 2222 }],
    ['ops@runner', { user: 'ops', host: 'runner', port: null }],
    ['ops@runner.example.com:22', { user: 'ops', host: 'runner.example.com', port: 22 }],
    ['ops@10.0.0.5:65535', { user: 'ops', host: '10.0.0.5', port: 65535 }],
    ['[::1]:2222', { user: null, host: '::1', port: 2222 }],
    ['[::1]', { user: null, host: '::1', port: null }],
    ['::1', { user: null, host: '::1', port: null }],
    ['user@[fe80::1]:22', { user: 'user', host: 'fe80::1', port: 22 }],
    ['user@[fe80::1%eth0]:22', { user: 'user', host: 'fe80::1%eth0', port: 22 }],
    ['me@corp.example@jump', { user: 'me@corp.example', host: 'jump', port: null }],
    ['ssh://ops@runner:2200', { user: 'ops', host: 'runner', port: 2200 }],
    ['gpu_01', { user: null, host: 'gpu_01', port: null }],
  ])('%j', (spec, expected) => {
    expect(parseSshSpec(spec)).toEqual(expected);
  });

  it.each(['', ' ', 'run ner', '@host', 'user@', 'host:', 'host:0', 'host:65536', 'host:22x', 'host:-1', '-oProxyCommand=x', '[::1', '[::1]x', '[::1]:', 'a:b:c', 'u:x@h', 'h/x', 'ho$t'])(
    'rejects %j',
    (spec) => {
      expect(parseSshSpec(spec)).toBeNull();
    },
  );

  it('never throws on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => void parseSshSpec(s)), { numRuns: 1000 });
  });
});

const base = { username: 'alice', home: '/home/alice' };
const DEFAULT_IDS = ['/home/alice/.ssh/id_ed25519', '/home/alice/.ssh/id_ecdsa', '/home/alice/.ssh/id_rsa'];

const realisticConfig = `
# ~/.ssh/config
Host bastion
  HostName bastion.corp.example
  User jump
  Port 2022
  IdentityFile ~/.ssh/bastion_ed25519
  ProxyJump none

Host edge
  HostName edge.corp.example
  ProxyJump bastion

Host runner
  HostName runner-01.internal
  User ops
  IdentityFile %d/.ssh/keys/%h-%r
  IdentityFile ~/.ssh/id_runner
  ProxyJump edge

Host gpu-*
  HostName %h.fleet.internal
  ProxyJump ops@bastion:2200,edge

Host lab
  HostName 192.0.2.7
  Port 2222
  IdentityFile none

Host loop-a
  ProxyJump loop-b
Host loop-b
  ProxyJump loop-a
Host self
  ProxyJump self

Host badport
  Port ssh
Host legacy
  ProxyCommand nc %h %p

Host * !bastion
  User default-user
  ServerAliveInterval 30
  IdentityFile ~/.ssh/id_ed25519
Host *
  ProxyJump none
`;

const hop = (alias: string, host: string, port: number, user: string, identityFiles: string[], jumps: ResolvedTarget[] = []): ResolvedTarget => ({
  alias,
  host,
  port,
  user,
  identityFiles,
  jumps,
});
const bastion = hop('bastion', 'bastion.corp.example', 2022, 'jump', ['/home/alice/.ssh/bastion_ed25519']);
const edge = hop('edge', 'edge.corp.example', 22, 'default-user', ['/home/alice/.ssh/id_ed25519'], [bastion]);

describe('resolveSshTarget', () => {
  const resolve = (spec: string, extra: Partial<Parameters<typeof resolveSshTarget>[1]> = {}) =>
    resolveSshTarget(spec, { ...base, sshConfigText: realisticConfig, ...extra });

  it.each<[string, Partial<Parameters<typeof resolveSshTarget>[1]>, ResolvedTarget]>([
    ['plain.host', { sshConfigText: null }, hop('plain.host', 'plain.host', 22, 'alice', DEFAULT_IDS)],
    ['bob@plain.host:2200', { sshConfigText: null }, hop('plain.host', 'plain.host', 2200, 'bob', DEFAULT_IDS)],
    ['[::1]:2222', { sshConfigText: null, identityFile: '~/keys/loopdeck' }, hop('::1', '::1', 2222, 'alice', ['/home/alice/keys/loopdeck'])],
    // Host * defaults apply to a name the config does not list
    ['unlisted', {}, hop('unlisted', 'unlisted', 22, 'default-user', ['/home/alice/.ssh/id_ed25519'])],
    ['bastion', {}, bastion],
    // explicit user and port in the spec win over the config
    ['root@bastion:22', {}, { ...bastion, user: 'root', port: 22 }],
    ['lab', {}, hop('lab', '192.0.2.7', 2222, 'default-user', ['/home/alice/.ssh/id_ed25519'])],
    ['edge', {}, edge],
    [
      'runner',
      { identityFile: '/etc/loopdeck/runner_key' },
      hop(
        'runner',
        'runner-01.internal',
        22,
        'ops',
        ['/etc/loopdeck/runner_key', '/home/alice/.ssh/keys/runner-01.internal-ops', '/home/alice/.ssh/id_runner', '/home/alice/.ssh/id_ed25519'],
        [edge],
      ),
    ],
    // multi-hop: the first hop keeps its own ProxyJump; later hops are reached through the earlier ones
    [
      'gpu-3',
      {},
      hop('gpu-3', 'gpu-3.fleet.internal', 22, 'default-user', ['/home/alice/.ssh/id_ed25519'], [
        { ...bastion, user: 'ops', port: 2200 },
        { ...edge, jumps: [] },
      ]),
    ],
  ])('%s', (spec, extra, expected) => {
    expect(resolve(spec, extra)).toEqual(expected);
  });

  it('uses the default identities only when nothing names one', () => {
    expect(resolveSshTarget('h', { ...base, sshConfigText: 'Host h\n  User u\n' }).identityFiles).toEqual(DEFAULT_IDS);
    expect(resolveSshTarget('h', { ...base, sshConfigText: '', identityFile: '/k' }).identityFiles).toEqual(['/k']);
  });

  it('expands only the simple tokens and leaves the rest literal', () => {
    const text = 'Host t\n  HostName real.example\n  User svc\n  Port 2201\n  IdentityFile %d/%u/%h/%r/%p/%n/%%/%C/%L/~x\n';
    expect(resolveSshTarget('t', { ...base, sshConfigText: text }).identityFiles).toEqual(['/home/alice/alice/real.example/svc/2201/t/%/%C/%L/~x']);
  });

  it.each([
    ['loop-a', /ProxyJump loops: loop-a -> loop-b -> loop-a/],
    ['self', /ProxyJump loops: self -> self/],
    ['badport', /Port "ssh" in the ssh config for "badport" is not a port number/],
    ['legacy', /ProxyCommand in the ssh config for "legacy" is not supported/],
    ['not a host', /expected user@host\[:port\]/],
  ])('refuses %s with a clear SshTargetError', (spec, message) => {
    const attempt = () => resolve(spec);
    expect(attempt).toThrow(SshTargetError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(`SSH target "${spec}"`);
  });

  it('names a bad ProxyJump hop and an unparsable config', () => {
    expect(() => resolveSshTarget('x', { ...base, sshConfigText: 'Host x\n  ProxyJump a,,b\n' })).toThrow(/empty hop/);
    expect(() => resolveSshTarget('x', { ...base, sshConfigText: 'Host x\n  ProxyJump bad$hop\n' })).toThrow(/ProxyJump hop "bad\$hop"/);
    expect(() => resolveSshTarget('x', { ...base, sshConfigText: 'Match host\n' })).toThrow(/ssh config cannot be parsed/);
  });

  describe('Match exec guard', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopdeck-match-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('neither runs nor applies a Match exec block, but still applies other Match blocks', () => {
      const marker = join(dir, `pwned-${process.pid}-${Date.now()}`);
      const marker2 = `${marker}-negated`;
      const text = [
        'Host runner',
        '  HostName runner.internal',
        `Match exec "touch ${marker}"`,
        '  Port 4444',
        '  User pwned',
        `Match !exec "touch ${marker2}" host runner.internal`,
        '  IdentityFile /pwned',
        'Match host runner.internal',
        '  Port 2200',
        '',
      ].join('\n');
      const t = resolveSshTarget('runner', { ...base, sshConfigText: text });
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(marker2)).toBe(false);
      expect(t).toEqual(hop('runner', 'runner.internal', 2200, 'alice', DEFAULT_IDS));
    });
  });
});
