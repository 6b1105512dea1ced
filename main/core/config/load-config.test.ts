import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, MAX_CONFIG_BYTES, parseConfig } from './load-config';
import { formatDuration, parseDuration } from './duration';
import { phaseCap } from './schema';

const FULL = `
hosts:
  runner: { local: true }
  mac: { ssh: "ops@mac-mini:2222", identityFile: ~/.ssh/id_ed25519, knownHosts: ./known_hosts }
loops:
  reliability:
    host: runner
    runs: runs
    dir: clone
    phases: [audit, remediate, deliver]
    schedule: "0 0 * * *"
    timezone: America/New_York
    grace: 2h
    cap: 20h
    ledgers: { audit: RELIABILITY_AUDIT.md, log: RELIABILITY_LOG.md, implementer: docs/implementer-log.md }
    deliverRecord: deliver/reliability.json
proxies:
  crossbar: { host: mac, kind: crossbar, url: "http://127.0.0.1:8080", every: 10s }
drills:
  drain: { host: mac, command: "./drills/drain.sh", cwd: /srv/gw, timeout: 30m, args: { mode: [sigterm, sigkill] } }
notify: { quietHours: "22:00-07:00", pushover: { user: u123, token: t456 } }
`;

describe('parseConfig', () => {
  it('loads every documented key, with durations in ms and local paths resolved', () => {
    const cfg = parseConfig('/etc/loopdeck/config.yaml', FULL);
    const loop = cfg.loops.reliability!;
    expect(loop.grace).toBe(7_200_000);
    expect(loop.cap).toBe(72_000_000);
    expect(loop.runs).toBe('/etc/loopdeck/runs');
    expect(loop.deliverRecord).toBe('/etc/loopdeck/deliver/reliability.json');
    expect(loop.layout.rc).toBe('{phase}.{stage}.rc');
    expect(cfg.proxies.crossbar!.every).toBe(10_000);
    expect(cfg.drills.drain!.args).toEqual({ mode: ['sigterm', 'sigkill'] });
    expect(cfg.notify.quietHours).toBe('22:00-07:00');
    expect(cfg.hosts.mac).toEqual({ ssh: 'ops@mac-mini:2222', identityFile: '~/.ssh/id_ed25519', knownHosts: './known_hosts' });
  });

  it('fills defaults for a minimal loop', () => {
    const cfg = parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /runs } }\n');
    expect(cfg.loops.l).toMatchObject({ phases: ['audit', 'remediate', 'deliver'], cap: 72_000_000, grace: 7_200_000, silence: 1_800_000, cycles: 14 });
  });

  it('takes a loop\'s silence as a duration', () => {
    const cfg = parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /runs, silence: 45m } }\n');
    expect(cfg.loops.l?.silence).toBe(2_700_000);
    expect(() => parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops:\n  l:\n    host: r\n    runs: /x\n    silence: quiet\n')).toThrow(/\/c\.yaml:6: loops\.l\.silence: expected a duration/);
  });

  it('takes a drill\'s optional cadence as a duration', () => {
    const cfg = parseConfig('/c.yaml', 'hosts: { r: { local: true } }\ndrills:\n  d: { host: r, command: ./d.sh, every: 30d }\n  e: { host: r, command: ./e.sh }\n');
    expect(cfg.drills.d?.every).toBe(30 * 86_400_000);
    expect(cfg.drills.e?.every).toBeUndefined();
    expect(() => parseConfig('/c.yaml', 'hosts: { r: { local: true } }\ndrills:\n  d: { host: r, command: ./d.sh, every: monthly }\n')).toThrow(/drills\.d\.every: expected a duration/);
  });

  it('takes per-phase caps beside cap, and refuses a caps key that is not a phase, naming it', () => {
    const cfg = parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /runs, cap: 20h, caps: { deliver: 3h } } }\n');
    const loop = cfg.loops.l;
    expect(loop?.caps).toEqual({ deliver: 10_800_000 });
    expect(loop && phaseCap(loop, 'deliver')).toBe(10_800_000);
    expect(loop && phaseCap(loop, 'audit')).toBe(72_000_000);
    expect(parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /runs } }\n').loops.l?.caps).toEqual({});
    const bad = 'hosts: { r: { local: true } }\nloops:\n  l:\n    host: r\n    runs: /x\n    caps: { delivr: 3h }\n';
    expect(() => parseConfig('/c.yaml', bad)).toThrow(ConfigError);
    expect(() => parseConfig('/c.yaml', bad)).toThrow(/loops\.l\.caps\.delivr: "delivr" is not one of this loop's phases \(audit, remediate, deliver\)/);
    expect(() => parseConfig('/c.yaml', 'hosts: { r: { local: true } }\nloops: { l: { host: r, runs: /x, caps: { deliver: soon } } }\n')).toThrow(/loops\.l\.caps\.deliver: expected a duration/);
  });

  it('takes a proxy\'s incident thresholds, each optional, and refuses bad ones naming the key', () => {
    const head = 'hosts: { r: { local: true } }\nproxies:\n  xb: { host: r, kind: crossbar, url: "http://127.0.0.1:8080" }\n';
    const gw = (incidents: string) => `${head}  gw:\n    host: r\n    kind: gateway\n    url: "http://127.0.0.1:8787"\n    incidents: ${incidents}\n`;
    const cfg = parseConfig('/c.yaml', gw('{ errorPct: 2.5, errorWindow: 5m, errorMinRequests: 50, shedFactor: 3, heapPct: 90, fleet: xb }'));
    expect(cfg.proxies.gw?.incidents).toEqual({ errorPct: 2.5, errorWindow: 300_000, errorMinRequests: 50, shedFactor: 3, heapPct: 90, fleet: 'xb' });
    expect(parseConfig('/c.yaml', head).proxies.xb?.incidents).toBeUndefined();
    expect(() => parseConfig('/c.yaml', gw('{ errorPct: 0 }'))).toThrow(/\/c\.yaml:8: proxies\.gw\.incidents\.errorPct: expected a percentage above 0/);
    expect(() => parseConfig('/c.yaml', gw('{ heapPct: 120 }'))).toThrow(/proxies\.gw\.incidents\.heapPct: expected a percentage of at most 100/);
    expect(() => parseConfig('/c.yaml', gw('{ errorPct: "5%" }'))).toThrow(/proxies\.gw\.incidents\.errorPct: expected a percentage, a number such as 5/);
    expect(() => parseConfig('/c.yaml', gw('{ errorWindow: often }'))).toThrow(/proxies\.gw\.incidents\.errorWindow: expected a duration/);
    expect(() => parseConfig('/c.yaml', gw('{ errorMinRequests: 0 }'))).toThrow(/proxies\.gw\.incidents\.errorMinRequests: expected at least 1 request/);
    expect(() => parseConfig('/c.yaml', gw('{ shedFactor: 0.5 }'))).toThrow(/proxies\.gw\.incidents\.shedFactor: expected a factor of at least 1/);
    expect(() => parseConfig('/c.yaml', gw('{ fleet: nope }'))).toThrow(/proxies\.gw\.incidents\.fleet: "nope" is not a crossbar, llama-server, vllm or prometheus proxy under proxies \(there: xb\)/);
    expect(() => parseConfig('/c.yaml', gw('{ fleet: gw }'))).toThrow(/proxies\.gw\.incidents\.fleet: "gw" is not a crossbar/);
    expect(() => parseConfig('/c.yaml', gw('{ heap: 90 }'))).toThrow(/proxies\.gw\.incidents: Unrecognized key: "heap"/);
    expect(() => parseConfig('/c.yaml', `${head.replace('url: "http://127.0.0.1:8080" }', 'url: "http://127.0.0.1:8080", incidents: { fleet: xb } }')}`)).toThrow(/proxies\.xb\.incidents\.fleet: only a "gateway" proxy takes a fleet/);
  });

  it("takes a loop's uses (the proxies its phases depend on) and names one that is not declared", () => {
    const cfg = (uses: string) => `hosts: { r: { local: true } }\nproxies:\n  xb: { host: r, kind: crossbar, url: "http://127.0.0.1:8080" }\nloops:\n  l: { host: r, runs: /x, uses: ${uses} }\n`;
    expect(parseConfig('/c.yaml', cfg('[xb]')).loops.l?.uses).toEqual(['xb']);
    expect(() => parseConfig('/c.yaml', cfg('[xb, gpu]'))).toThrow(/\/c\.yaml:5: loops\.l\.uses\.1: proxy "gpu" is not declared under proxies \(declared: xb\)/);
  });

  it('takes an optional github section: GitHub\'s API by default, https or loopback http, the token as env:NAME', () => {
    expect(parseConfig('/c.yaml', 'hosts: {}\n').github).toBeUndefined();
    expect(parseConfig('/c.yaml', 'github: {}\n').github).toEqual({ apiUrl: 'https://api.github.com', every: 300_000, timeout: 20_000 });
    const ghe = parseConfig('/c.yaml', 'github: { token: "env:GITHUB_TOKEN", apiUrl: "https://github.example.com/api/v3", every: 10m, timeout: 5s }\n').github;
    expect(ghe).toEqual({ token: 'env:GITHUB_TOKEN', apiUrl: 'https://github.example.com/api/v3', every: 600_000, timeout: 5000 });
    expect(parseConfig('/c.yaml', 'github: { apiUrl: "http://127.0.0.1:8080" }\n').github?.apiUrl).toBe('http://127.0.0.1:8080');
    expect(parseConfig('/c.yaml', 'github: { apiUrl: "http://[::1]:8080/api/v3" }\n').github?.apiUrl).toBe('http://[::1]:8080/api/v3');
    for (const bad of ['http://github.example.com/api/v3', 'http://10.0.0.5:8080', 'ftp://api.github.com', 'api.github.com']) {
      expect(() => parseConfig('/c.yaml', `github:\n  apiUrl: "${bad}"\n`)).toThrow(/\/c\.yaml:2: github\.apiUrl: expected/);
    }
    expect(() => parseConfig('/c.yaml', 'github: { apiUrl: "http://github.example.com" }\n')).toThrow(/plain http:\/\/ only on loopback/);
    expect(() => parseConfig('/c.yaml', 'github: { token: "env:" }\n')).toThrow(/github\.token: expected "env:NAME"/);
  });

  it.each([
    ['a bad duration', 'hosts: { r: { local: true } }\nloops:\n  l:\n    host: r\n    runs: /x\n    cap: soon\n', /\/c\.yaml:6: loops\.l\.cap: expected a duration/],
    ['an undeclared host', 'hosts: { r: { local: true } }\nloops:\n  l: { host: nope, runs: /x }\n', /\/c\.yaml:3: loops\.l\.host: host "nope" is not declared under hosts \(declared: r\)/],
    ['an unknown key', 'hosts: { r: { local: true } }\nloops:\n  l: { host: r, runs: /x, rnus: 1 }\n', /loops\.l: Unrecognized key: "rnus"/],
    ['a bad proxy kind', 'hosts: { r: { local: true } }\nproxies:\n  p: { host: r, kind: nginx, url: "http://x" }\n', /proxies\.p\.kind/],
    ['a bad time zone', 'hosts: { r: { local: true } }\nloops:\n  l: { host: r, runs: /x, timezone: Mars/Base }\n', /loops\.l\.timezone: expected an IANA time zone/],
    ['a bad host shape', 'hosts:\n  r: { sssh: x }\n', /hosts\.r: expected \{ local: true \} or \{ ssh:/],
    ['broken YAML', 'hosts: [\n', /\/c\.yaml:2:1: YAML syntax/],
  ])('rejects %s with the file, line and key path', (_what, text, pattern) => {
    expect(() => parseConfig('/c.yaml', text)).toThrow(ConfigError);
    expect(() => parseConfig('/c.yaml', text)).toThrow(pattern);
  });
});

describe('loadConfig', () => {
  it('reports a missing file as the first-run state and an invalid one as invalid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-cfg-'));
    expect((await loadConfig(join(dir, 'none.yaml'))).state).toBe('missing');
    writeFileSync(join(dir, 'bad.yaml'), 'loops: 3\n');
    const bad = await loadConfig(join(dir, 'bad.yaml'));
    expect(bad.state).toBe('invalid');
    if (bad.state === 'invalid') expect(bad.error.message).toContain('bad.yaml:1: loops');
  });
});

describe('loadConfig: hostile files', () => {
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`),
    'hosts: { runner: { local: true } }',
    '',
  ].join('\n');

  it('names the file of a YAML alias bomb instead of throwing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-cfg-'));
    const file = join(dir, 'bomb.yaml');
    writeFileSync(file, bomb);
    expect(() => parseConfig(file, bomb)).toThrow(ConfigError);
    const out = await loadConfig(file);
    expect(out.state).toBe('invalid');
    if (out.state === 'invalid') expect(out.error.message).toMatch(new RegExp(`${file}: cannot be read as YAML: .*alias`, 'i'));
  });

  it('refuses a config file larger than a config can be, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ld-cfg-'));
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    const out = await loadConfig(file);
    expect(out.state).toBe('invalid');
    if (out.state === 'invalid') expect(out.error.message).toContain(`${file}: `);
  });
});

describe('durations', () => {
  it('parses simple and compound forms and formats them back', () => {
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('2 h')).toBeNull();
    expect(parseDuration('0s')).toBeNull();
    expect(formatDuration(5_400_000)).toBe('1h30m');
  });
});
