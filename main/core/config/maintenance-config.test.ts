import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config';
import { configJsonSchema } from './config-json-schema';

// `maintenance:` as written: the two shapes, the scope's names checked against the config, and
// errors that name the key and say what to write.

const BASE = `hosts:
  runner: { local: true }
  gpu: { local: true }
loops:
  reliability: { host: runner, runs: /tmp/runs }
  testing: { host: runner, runs: /tmp/runs2 }
proxies:
  crossbar: { host: gpu, kind: crossbar, url: "http://127.0.0.1:8080" }
`;

function problems(maintenance: string): string[] {
  try {
    parseConfig('/c.yaml', `${BASE}maintenance:\n${maintenance}`);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe('maintenance: in the config', () => {
  it('reads one-off and recurring windows, with and without a scope', () => {
    const cfg = parseConfig(
      '/c.yaml',
      `${BASE}maintenance:
  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T03:00:00+01:00", reason: kernel upgrade, hosts: [runner] }
  - { every: "0 2 * * *", for: 2h, timezone: Europe/Berlin, reason: nightly backup, proxies: [crossbar], loops: [testing] }
  - { every: "30 4 * * 0", for: 1h30m, reason: weekly reboot }
`,
    );
    expect(cfg.maintenance).toEqual([
      { kind: 'once', startMs: Date.parse('2026-11-29T01:00:00Z'), endMs: Date.parse('2026-11-29T02:00:00Z'), reason: 'kernel upgrade', hosts: ['runner'] },
      { kind: 'every', every: '0 2 * * *', forMs: 2 * 3_600_000, timezone: 'Europe/Berlin', reason: 'nightly backup', loops: ['testing'], proxies: ['crossbar'] },
      { kind: 'every', every: '30 4 * * 0', forMs: 5_400_000, timezone: 'UTC', reason: 'weekly reboot' },
    ]);
    expect(parseConfig('/c.yaml', BASE).maintenance).toEqual([]);
  });

  it('is in the config\'s JSON Schema, for an editor to check', () => {
    const schema = configJsonSchema() as { properties: Record<string, { type?: string; items?: { properties?: Record<string, unknown> } }> };
    expect(schema.properties.maintenance?.type).toBe('array');
    expect(Object.keys(schema.properties.maintenance?.items?.properties ?? {})).toEqual(['start', 'end', 'every', 'for', 'timezone', 'reason', 'loops', 'hosts', 'proxies']);
  });

  it('names the key of a loop, host or proxy the config does not declare, and says which are', () => {
    expect(
      problems(`  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T03:00:00Z", reason: a }
  - { every: "0 2 * * *", for: 2h, reason: b, loops: [reliability, nightly], hosts: [runer], proxies: [xb] }
`),
    ).toEqual([
      '/c.yaml:11: maintenance.1.loops.1: loop "nightly" is not declared under loops (declared: reliability, testing)',
      '/c.yaml:11: maintenance.1.hosts.0: host "runer" is not declared under hosts (declared: runner, gpu)',
      '/c.yaml:11: maintenance.1.proxies.0: proxy "xb" is not declared under proxies (declared: crossbar)',
    ]);
  });

  it.each([
    ['neither shape', '  - { reason: a }\n', 'maintenance.0: expected { start, end } (ISO times) or { every: "<cron>", for: <duration>, timezone? }'],
    ['both shapes', '  - { start: "2026-11-29T01:00:00Z", end: "2026-11-29T03:00:00Z", every: "0 2 * * *", for: 2h, reason: a }\n', 'maintenance.0.every: a window is either one-off or recurring'],
    ['a start without an end', '  - { start: "2026-11-29T01:00:00Z", reason: a }\n', 'maintenance.0.end: required with start'],
    ['an end before the start', '  - { start: "2026-11-29T03:00:00Z", end: "2026-11-29T01:00:00Z", reason: a }\n', 'maintenance.0.end: expected a time after start'],
    ['a time without its offset', '  - { start: "2026-11-29T01:00:00", end: "2026-11-29T03:00:00Z", reason: a }\n', 'maintenance.0.start: expected an ISO time with its offset'],
    ['every without for', '  - { every: "0 2 * * *", reason: a }\n', 'maintenance.0.for: required with every'],
    ['a cron of four fields', '  - { every: "0 2 * *", for: 2h, reason: a }\n', 'maintenance.0.every: expected a five-field cron expression'],
    ['a cron cron-parser refuses', '  - { every: "0 25 * * *", for: 2h, reason: a }\n', 'maintenance.0.every: expected a cron expression such as "0 2 * * *"'],
    ['a bad duration', '  - { every: "0 2 * * *", for: two hours, reason: a }\n', 'maintenance.0.for: expected a duration like'],
    ['an unknown time zone', '  - { every: "0 2 * * *", for: 2h, timezone: Mars/Olympus, reason: a }\n', 'maintenance.0.timezone: expected an IANA time zone'],
    ['no reason', '  - { every: "0 2 * * *", for: 2h }\n', 'maintenance.0.reason:'],
    ['an empty scope list', '  - { every: "0 2 * * *", for: 2h, reason: a, loops: [] }\n', 'maintenance.0.loops: expected at least one name'],
    ['an unknown key', '  - { every: "0 2 * * *", for: 2h, reason: a, host: runner }\n', 'maintenance.0:'],
  ])('refuses %s', (_what, text, message) => {
    const got = problems(text);
    expect(got.some((p) => p.includes(message)), got.join('\n')).toBe(true);
  });
});
