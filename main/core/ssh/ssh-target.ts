// Turns a Loopdeck host spec (`user@host:port` or an ~/.ssh/config alias) into everything needed to
// connect with ssh2: address, user, identity files and the ProxyJump chain. Pure: the caller reads
// the config file; nothing here runs a command or touches the network.
import { isIPv6 } from 'node:net';
import SSHConfig, { LineType, type Line } from 'ssh-config';
import { messageOf } from '../../../shared/errors';

/** A spec split into its parts; null parts were not given. */
export type SshSpec = { user: string | null; host: string; port: number | null };

/** A fully resolved SSH destination; `jumps` are the hops to go through, first hop first. */
export type ResolvedTarget = {
  alias: string;
  host: string;
  port: number;
  user: string;
  identityFiles: string[];
  jumps: ResolvedTarget[];
};

/** Options for {@link resolveSshTarget}: the ssh config text (null when there is none) and local facts. */
export type ResolveSshTargetOptions = {
  sshConfigText: string | null;
  /** Local user name: the default remote user, and `%u`. */
  username: string;
  /** Local home directory: `~` and `%d`. */
  home: string;
  /** The identity file from Loopdeck's own host config; tried first. */
  identityFile?: string;
};

/** A spec or ssh config that cannot be resolved; the message names the spec and what is wrong. */
export class SshTargetError extends Error {
  override name = 'SshTargetError';
}

const HOSTNAME = /^[A-Za-z0-9_][A-Za-z0-9._~+-]*$/;
const DEFAULT_IDENTITIES = ['~/.ssh/id_ed25519', '~/.ssh/id_ecdsa', '~/.ssh/id_rsa'];
const MAX_JUMP_DEPTH = 10;

/** Splits `user@host[:port]`, `host`, `host:port`, `[::1]:2222`, `user@[fe80::1]:22` (and `ssh://` URIs); null for anything else. */
export function parseSshSpec(spec: string): SshSpec | null {
  let rest = spec.startsWith('ssh://') ? spec.slice('ssh://'.length) : spec;
  if (rest === '' || /\s/.test(rest)) return null;
  let user: string | null = null;
  const at = rest.lastIndexOf('@'); // user names may themselves contain '@' (user@corp@host)
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (user === '' || user.startsWith('-') || /[:/[\]]/.test(user)) return null;
  }
  let host: string;
  let portText: string | null = null;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) return null;
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== '') {
      if (!after.startsWith(':')) return null;
      portText = after.slice(1);
    }
    if (!isIPv6(host) && !HOSTNAME.test(host)) return null;
  } else if (isIPv6(rest)) {
    host = rest; // a bare IPv6 address carries no port; write [addr]:port for one
  } else {
    const colon = rest.indexOf(':');
    host = colon < 0 ? rest : rest.slice(0, colon);
    if (colon >= 0) portText = rest.slice(colon + 1);
    if (!HOSTNAME.test(host)) return null;
  }
  if (portText === null) return { user, host, port: null };
  const port = parsePort(portText);
  return port === null ? null : { user, host, port };
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : null;
}

/**
 * Resolves a spec through the ssh config text (HostName, User, Port, IdentityFile, ProxyJump), the
 * way ssh(1) would, without ever running anything: `Match exec` blocks are dropped, not evaluated.
 */
export function resolveSshTarget(spec: string, opts: ResolveSshTargetOptions): ResolvedTarget {
  const config = opts.sshConfigText === null ? null : prepareConfig(opts.sshConfigText, spec);
  return resolveHop(spec, { spec, config, opts }, [], true, true);
}

type Ctx = { spec: string; config: SSHConfig | null; opts: ResolveSshTargetOptions };

function fail(ctx: Ctx, what: string): never {
  throw new SshTargetError(`SSH target "${ctx.spec}": ${what}`);
}

function prepareConfig(text: string, spec: string): SSHConfig {
  let config: SSHConfig;
  try {
    config = SSHConfig.parse(text);
  } catch (e) {
    throw new SshTargetError(`SSH target "${spec}": the ssh config cannot be parsed (${messageOf(e)}); fix ~/.ssh/config`);
  }
  // `Match exec` runs a shell command; ssh-config would run it during compute(). Such blocks are
  // removed outright (and matchExec is also turned off below), so they are neither run nor applied.
  const isExecMatch = (l: Line): boolean =>
    l.type === LineType.DIRECTIVE &&
    'criteria' in l &&
    Object.keys(l.criteria).some((k) => k.replace(/^!/, '').toLowerCase() === 'exec');
  // CanonicalizeHostName makes ssh-config call nslookup; Loopdeck resolves names only when connecting.
  const isCanonicalize = (l: Line): boolean => l.type === LineType.DIRECTIVE && /^CanonicalizeHostName$/i.test(l.param);
  const kept = config.filter((l) => !isExecMatch(l) && !isCanonicalize(l));
  config.splice(0, config.length, ...kept);
  for (const l of config) {
    if (l.type === LineType.DIRECTIVE && 'config' in l) {
      const inner = l.config.filter((s) => !isCanonicalize(s));
      l.config.splice(0, l.config.length, ...inner);
    }
  }
  return config;
}

function first(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? null : s;
}

type Tokens = { home: string; localUser: string; host: string; remoteUser: string; port: number; alias: string };

/** Expands a leading `~` and the simple `%` tokens (d u h r p n %); other tokens stay literal. */
function expand(value: string, t: Tokens): string {
  const tilde = value === '~' || value.startsWith('~/') ? t.home + value.slice(1) : value;
  const map: Record<string, string> = { d: t.home, u: t.localUser, h: t.host, r: t.remoteUser, p: String(t.port), n: t.alias, '%': '%' };
  return tilde.replace(/%(.)/g, (whole, c: string) => map[c] ?? whole);
}

function resolveHop(hopSpec: string, ctx: Ctx, chain: readonly string[], isTarget: boolean, followJumps: boolean): ResolvedTarget {
  const parsed = parseSshSpec(hopSpec);
  if (parsed === null) {
    fail(ctx, isTarget ? 'expected user@host[:port], host[:port] or an ssh config alias' : `ProxyJump hop "${hopSpec}" is not user@host[:port]`);
  }
  const alias = parsed.host;
  if (chain.includes(alias.toLowerCase())) {
    fail(ctx, `ProxyJump loops: ${[...chain, alias.toLowerCase()].join(' -> ')}; set "ProxyJump none" for the jump host in ~/.ssh/config`);
  }
  if (chain.length >= MAX_JUMP_DEPTH) fail(ctx, `ProxyJump chain is deeper than ${MAX_JUMP_DEPTH} hops`);

  const computed = ctx.config?.compute(parsed.user === null ? { Host: alias } : { Host: alias, User: parsed.user }, { ignoreCase: true, matchExec: false }) ?? {};
  const where = `in the ssh config for "${alias}"`;

  const user = parsed.user ?? first(computed.user) ?? ctx.opts.username;
  let port = parsed.port ?? 22;
  const portText = first(computed.port);
  if (parsed.port === null && portText !== null) {
    port = parsePort(portText) ?? fail(ctx, `Port "${portText}" ${where} is not a port number (1-65535)`);
  }
  const hostNameRaw = first(computed.hostname);
  const host = hostNameRaw === null ? alias : hostNameRaw.replace(/%([h%])/g, (_w, c: string) => (c === 'h' ? alias : '%'));
  const tokens: Tokens = { home: ctx.opts.home, localUser: ctx.opts.username, host, remoteUser: user, port, alias };

  const fromConfig = [computed.identityfile ?? []].flat().filter((f) => f !== '' && f.toLowerCase() !== 'none');
  // Like `ssh -i`, Loopdeck's own identity file counts as configured: the defaults apply only when
  // neither it nor the ssh config names one. It applies to the target only, not to jump hosts.
  const given = isTarget && ctx.opts.identityFile ? [ctx.opts.identityFile, ...fromConfig] : fromConfig;
  const identityFiles = [...new Set((given.length > 0 ? given : DEFAULT_IDENTITIES).map((f) => expand(f, tokens)))];

  const proxyCommand = first(computed.proxycommand);
  const proxyJump = first(computed.proxyjump);
  if (proxyCommand !== null && proxyCommand.toLowerCase() !== 'none' && (proxyJump === null || proxyJump.toLowerCase() === 'none')) {
    fail(ctx, `ProxyCommand ${where} is not supported; use ProxyJump instead`);
  }

  const here = [...chain, alias.toLowerCase()];
  let jumps: ResolvedTarget[] = [];
  if (followJumps && proxyJump !== null && proxyJump.toLowerCase() !== 'none') {
    const hops = proxyJump.split(',').map((h) => h.trim());
    if (hops.some((h) => h === '')) fail(ctx, `ProxyJump "${proxyJump}" ${where} has an empty hop`);
    // As in ssh(1): `ProxyJump a,b` reaches b through a, so only the first hop's own ProxyJump is
    // honoured; later hops are reached through the earlier ones.
    jumps = hops.map((h, i) => resolveHop(h, ctx, here, false, i === 0));
  }
  return { alias, host, port, user, identityFiles, jumps };
}
