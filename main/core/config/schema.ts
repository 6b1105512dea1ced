import * as z from 'zod';
import { parseDuration } from './duration';
import { Duration, httpsOrLoopback, Name, NonEmpty, TimeZone } from './config-parts';
import { NotifyConfigSchema } from './notify-schema';

export { NtfyConfigSchema, NotifyConfigSchema, WebhookConfigSchema, WEBHOOK_FORMATS } from './notify-schema';
import { ServeConfigSchema } from './serve-config';
import { MetricsConfigSchema } from './metrics-config';
import { CostsConfigSchema, undeclaredCostProxies } from './costs-config';
import { secretSource } from './secret';
import { parseDiskThreshold } from './disk-threshold';
import { MaintenanceConfigSchema, undeclaredMaintenanceNames } from './maintenance-config';
import { DigestConfigSchema, EscalateConfigSchema, unconfiguredSinks } from './push-config';


/** A pre-flight lead (`1h`, `30m`) or `off`: parsed to milliseconds, `off` to null. */
const Lead = z.string().transform((text, ctx) => {
  if (text.trim() === 'off') return null;
  const ms = parseDuration(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `expected a lead before the fire like "1h" or "30m", or "off", got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return ms;
});

/** Free room a pre-flight asks for: `2GB`, `500MB`, or `10%` of the filesystem. */
const DiskRoom = z.string().transform((text, ctx) => {
  const t = parseDiskThreshold(text);
  if (t === null) {
    ctx.addIssue({ code: 'custom', message: `expected free room like "2GB", "500MB" or "10%", got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return t;
});


/** Five-field cron: checked for shape here; the dead-man model evaluates it. */
const Cron = z.string().refine((s) => s.trim().split(/\s+/).length === 5, {
  message: 'expected a five-field cron expression such as "0 0 * * *"',
});

const LocalHost = z.object({ local: z.literal(true) }).strict();
const SshHost = z
  .object({ ssh: NonEmpty, identityFile: NonEmpty.optional(), knownHosts: NonEmpty.optional() })
  .strict();

/** A host: this machine (`local: true`) or one reached over SSH. */
export const HostConfigSchema = z.union([LocalHost, SshHost], {
  error: () => 'expected { local: true } or { ssh: "alias | user@host[:port]", identityFile?, knownHosts? }',
});

/** Where a cycle's files are, relative to its folder; `{phase}` and `{stage}` are placeholders. */
export const LayoutSchema = z
  .object({
    status: NonEmpty.default('{phase}.status'),
    log: NonEmpty.default('{phase}.log'),
    rc: NonEmpty.default('{phase}.{stage}.rc'),
  })
  .strict();

/** `owner/name` of a GitHub repository. */
const RepoName = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected a GitHub repository as "owner/name"');

/** What fires a loop on its runner: a crontab line matching a pattern, a systemd unit, or a launchd label. */
export const SchedulerSchema = z.union(
  [z.object({ cron: NonEmpty }).strict(), z.object({ systemd: NonEmpty }).strict(), z.object({ launchd: NonEmpty }).strict()],
  { error: () => 'expected one of { cron: PATTERN } (a crontab line containing it), { systemd: UNIT } or { launchd: LABEL }' },
);
/** What fires a loop on its runner. */
export type SchedulerConfig = z.infer<typeof SchedulerSchema>;

/** One agent loop on a runner host. */
export const LoopConfigSchema = z
  .object({
    host: Name,
    runs: NonEmpty,
    dir: NonEmpty.optional(),
    phases: z.array(Name).min(1).default(['audit', 'remediate', 'deliver']),
    /** When it fires (cron, in `timezone`); absent: midnight, and no pre-flight (there is no fire the operator declared to check before). */
    schedule: Cron.optional(),
    timezone: TimeZone.default('UTC'),
    grace: Duration.default(2 * 3_600_000),
    cap: Duration.default(20 * 3_600_000),
    /** Per-phase caps (`caps: { deliver: 3h }`), each key one of `phases`; a phase not named here has `cap`. */
    caps: z.record(z.string(), Duration).default({}),
    /** A running phase whose transcript is silent (or only repeats itself) this long, with no rc step, is hung (or spinning). */
    silence: Duration.default(30 * 60_000),
    ledgers: z
      .object({ audit: NonEmpty.optional(), log: NonEmpty.optional(), implementer: NonEmpty.optional() })
      .strict()
      .default({}),
    deliverRecord: NonEmpty.optional(),
    layout: LayoutSchema.default({ status: '{phase}.status', log: '{phase}.log', rc: '{phase}.{stage}.rc' }),
    cycles: z.number().int().min(1).max(400).default(14),
    /** The proxies whose fleet its phases depend on (failure attribution); absent: all of them. */
    uses: z.array(Name).optional(),
    /** Pre-flight this long before each fire (`off`: none); absent: the top-level `preflight.lead` (1h). */
    preflight: Lead.optional(),
    /** Free room the pre-flight asks of the runs folder and the clone; absent: `preflight.disk` (2GB). */
    preflightDisk: DiskRoom.optional(),
    /** Model ids the loop expects loaded on the fleet it uses (matched against the proxies' models). */
    models: z.array(NonEmpty).optional(),
    /** How many nights back Trends reaches (kept in the store as summaries, past the followed `cycles`). */
    history: z.number().int().min(1).max(1000).default(90),
    /** The GitHub repository its PRs are opened on (`owner/name`): the merge desk lists its open PRs whose head is `branch`. */
    repo: RepoName.optional(),
    /** The nightly branch in the clone (`dir`), `{date}` the cycle's date: its reflog says what each phase committed. */
    branch: NonEmpty.default('reliability/{date}'),
    /** The rolling GitHub issue each phase comments on (the manual's dead-man); absent: not checked. */
    deadman: z.object({ repo: RepoName, label: NonEmpty.default('reliability-nightly') }).strict().optional(),
    /** What fires the loop on its runner; the pre-flight checks that it is installed. Absent: not checked. */
    scheduler: SchedulerSchema.optional(),
    /**
     * Failures its suites have on this runner whatever the code (the manual's "darwin baseline is 37
     * failed"): a suite's failures are counted beyond it. Absent: learned from its last green nights.
     */
    knownFailures: z.number().int().min(0).optional(),
  })
  .strict()
  .superRefine((loop, ctx) => {
    for (const key of Object.keys(loop.caps)) {
      if (loop.phases.includes(key)) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['caps', key],
        message: `${JSON.stringify(key)} is not one of this loop's phases (${loop.phases.join(', ')}); caps takes a phase name and a duration, e.g. caps: { deliver: 3h }`,
      });
    }
  })
  .transform(({ schedule, preflight, ...loop }) => ({
    ...loop,
    schedule: schedule ?? DEFAULT_SCHEDULE,
    // A pre-flight checks before a fire the operator declared: a loop without a schedule has none unless asked.
    preflight: preflight !== undefined ? preflight : schedule === undefined ? null : undefined,
  }));

/** When a loop without a `schedule` is expected to fire (the dead-man's default). */
export const DEFAULT_SCHEDULE = '0 0 * * *';

/**
 * The entry named `name` of a config record (loops, hosts, proxies, drills, a drill's args...), or
 * undefined: only the record's own keys count, so a name from input such as `__proto__`,
 * `constructor` or `toString` is no entry rather than something Object's prototype holds.
 */
export function ownEntry<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** The cap of one phase of a loop: its own under `caps`, else the loop's `cap`. */
export function phaseCap(loop: { readonly cap: number; readonly caps?: Readonly<Record<string, number>> }, phase: string): number {
  return ownEntry(loop.caps ?? {}, phase) ?? loop.cap;
}

const Percent = z.number({ error: 'expected a percentage, a number such as 5' }).gt(0, 'expected a percentage above 0').max(100, 'expected a percentage of at most 100');

/**
 * A proxy's fleet-incident thresholds (shared/fleet-incidents.ts holds the rules and defaults):
 * an error burst (`errorPct` % of at least `errorMinRequests` requests over `errorWindow`), a
 * gateway shed threshold over `shedFactor` × the capacity it has shown (`fleet`'s slots, else its
 * high-water mark while it fails), a gateway heap above `heapPct` %.
 */
export const IncidentConfigSchema = z
  .object({
    errorPct: Percent.optional(),
    errorWindow: Duration.optional(),
    errorMinRequests: z.number().int('expected a whole number of requests').min(1, 'expected at least 1 request').optional(),
    shedFactor: z.number({ error: 'expected a factor, a number such as 2' }).min(1, 'expected a factor of at least 1 (the threshold compared with the capacity times this)').optional(),
    heapPct: Percent.optional(),
    fleet: Name.optional(),
  })
  .strict();

/** One inference endpoint polled for capacity; a `prometheus` one reads a whole fleet from Prometheus. */
export const ProxyConfigSchema = z
  .object({
    /** The host whose loopback the URL is on; optional for `prometheus` (then reached directly). */
    host: Name.optional(),
    kind: z.enum(['crossbar', 'llama-server', 'vllm', 'gateway', 'prometheus']),
    url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL such as "http://127.0.0.1:8080"' }),
    /** Default 10s, 15s for `prometheus`. */
    every: Duration.optional(),
    /** Gateway: its configured shed threshold (e.g. BR_MAX_INFLIGHT_REQUESTS), when its status does not say. */
    shedThreshold: z.number().positive().optional(),
    /** Prometheus: label matchers picking the inference servers' series, e.g. `{job="llama"}`. */
    selector: z
      .string()
      .trim()
      .regex(/^\{[^\n]*\}$/, 'expected PromQL label matchers in braces, e.g. \'{job="llama"}\'')
      .optional(),
    /** Fleet-incident thresholds; see IncidentConfigSchema. */
    incidents: IncidentConfigSchema.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.kind !== 'gateway' && p.incidents?.fleet !== undefined) ctx.addIssue({ code: 'custom', path: ['incidents', 'fleet'], message: 'only a "gateway" proxy takes a fleet (the proxy whose slots are its real capacity)' });
    if (p.kind !== 'prometheus' && p.host === undefined) ctx.addIssue({ code: 'custom', path: ['host'], message: `required for kind "${p.kind}": the host whose loopback the URL is on` });
    if (p.kind !== 'prometheus' && p.selector !== undefined) ctx.addIssue({ code: 'custom', path: ['selector'], message: 'only a "prometheus" proxy takes a selector' });
    // http-over-ssh speaks plain HTTP only; say so here rather than on every poll.
    if (p.kind === 'prometheus' && !p.url.startsWith('http://')) ctx.addIssue({ code: 'custom', path: ['url'], message: 'Prometheus is read over plain http:// (directly, or through host:\'s SSH link); https is not supported' });
  })
  .transform((p) => ({ ...p, every: p.every ?? (p.kind === 'prometheus' ? 15_000 : 10_000) }));

/** A drill the operator may trigger by hand; nothing else can run a command on a host. */
export const DrillConfigSchema = z
  .object({
    host: Name,
    command: NonEmpty,
    cwd: NonEmpty.optional(),
    timeout: Duration.default(30 * 60_000),
    /** Its cadence: due (in "Waiting on you") when its last successful run is older than this, or it never ran. */
    every: Duration.optional(),
    args: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'expected an argument name of letters, digits and "_"'), z.array(z.string()).min(1)).default({}),
  })
  .strict();

/** GitHub's public API; GitHub Enterprise Server's is `https://<host>/api/v3`. */
export const DEFAULT_GITHUB_API = 'https://api.github.com';

/** An API base URL: https, or plain http on this machine's loopback only (a token must not cross a network in clear). */
const GithubApiUrl = httpsOrLoopback("GitHub's API URL", `"${DEFAULT_GITHUB_API}" or "https://github.example.com/api/v3"`, 'the token');

/** `github:` — PR state, checks and the body's Next section from GitHub; nothing is fetched without it. */
export const GithubConfigSchema = z
  .object({
    /** `env:NAME` (read from that variable) or the token itself; without it, `gh auth token` is asked. */
    token: NonEmpty.refine((v) => secretSource(v) !== null, { message: 'expected "env:NAME" with NAME an environment variable name, e.g. "env:GITHUB_TOKEN"' }).optional(),
    apiUrl: GithubApiUrl.default(DEFAULT_GITHUB_API),
    /** How often each open PR is asked about. */
    every: Duration.default(5 * 60_000),
    /** A request without an answer this long is given up (until the next round). */
    timeout: Duration.default(20_000),
  })
  .strict();
/** A validated `github:` section. */
export type GithubConfig = z.infer<typeof GithubConfigSchema>;
/** `prs:` — the merge desk: when an open PR is stale, when it is large, and how the console merges. */
export const PrsConfigSchema = z
  .object({
    /** An open PR older than this is marked and noticed (`pr-stale`). */
    staleAfter: Duration.default(2 * 86_400_000),
    /** A PR changing more files than this says it is large. */
    largeFiles: z.number().int().min(1).default(50),
    /** How `prs.merge` merges (GitHub's merge_method). */
    mergeMethod: z.enum(['merge', 'squash', 'rebase']).default('merge'),
  })
  .strict();
/** A validated `prs:` section. */
export type PrsConfig = z.infer<typeof PrsConfigSchema>;

/** Pre-flight defaults for every loop: the lead before the fire, the free room asked for, how often it re-runs in the lead. */
export const PreflightConfigSchema = z
  .object({
    lead: Lead.default(3_600_000),
    disk: DiskRoom.default({ kind: 'bytes', bytes: 2 * 1024 ** 3 }),
    every: Duration.default(10 * 60_000),
  })
  .strict();

/** The whole configuration file. */
export const ConfigSchema = z
  .object({
    hosts: z.record(Name, HostConfigSchema).default({}),
    loops: z.record(Name, LoopConfigSchema).default({}),
    proxies: z.record(Name, ProxyConfigSchema).default({}),
    drills: z.record(Name, DrillConfigSchema).default({}),
    notify: NotifyConfigSchema.default({}),
    /** The Prometheus exporter (`GET /metrics`); off unless present. */
    metrics: MetricsConfigSchema.optional(),
    /** GitHub, for the PRs' state; off unless present. */
    github: GithubConfigSchema.optional(),
    prs: PrsConfigSchema.default({ staleAfter: 2 * 86_400_000, largeFiles: 50, mergeMethod: 'merge' }),
    /** Serve mode shared by a team: the URL people open, sign-in and roles (see serve-config.ts). */
    serve: ServeConfigSchema.optional(),
    /** Pre-flight defaults (see PreflightConfigSchema). */
    preflight: PreflightConfigSchema.default({ lead: 3_600_000, disk: { kind: 'bytes', bytes: 2 * 1024 ** 3 }, every: 10 * 60_000 }),
    /** Prices per model and per host, and a monthly budget (see costs-config.ts); no costs unless present. */
    costs: CostsConfigSchema.optional(),
    /** Maintenance windows: what falls inside one in its scope is held back, not alerted (see maintenance-config.ts). */
    maintenance: MaintenanceConfigSchema.default([]),
    /** The morning summary, pushed: at a time, to the notify sinks named (see push-config.ts); off unless present. */
    digest: DigestConfigSchema.optional(),
    /** A priority 1–2 notice nobody acknowledged in time, sent on to more sinks (see push-config.ts); off unless present. */
    escalate: EscalateConfigSchema.optional(),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const sections = [
      ['loops', cfg.loops],
      ['proxies', cfg.proxies],
      ['drills', cfg.drills],
    ] as const;
    for (const [name, p] of Object.entries(cfg.proxies)) {
      const fleet = p.incidents?.fleet;
      const target = fleet === undefined ? undefined : ownEntry(cfg.proxies, fleet);
      if (fleet === undefined || (fleet !== name && target !== undefined && target.kind !== 'gateway')) continue;
      const others = Object.keys(cfg.proxies).filter((n) => n !== name && cfg.proxies[n]?.kind !== 'gateway');
      ctx.addIssue({
        code: 'custom',
        path: ['proxies', name, 'incidents', 'fleet'],
        message: `${JSON.stringify(fleet)} is not a crossbar, llama-server, vllm or prometheus proxy under proxies (there: ${others.length ? others.join(', ') : 'none'})`,
      });
    }
    for (const [name, loop] of Object.entries(cfg.loops)) {
      for (const [i, proxy] of (loop.uses ?? []).entries()) {
        if (ownEntry(cfg.proxies, proxy) !== undefined) continue;
        const known = Object.keys(cfg.proxies);
        ctx.addIssue({
          code: 'custom',
          path: ['loops', name, 'uses', i],
          message: `proxy ${JSON.stringify(proxy)} is not declared under proxies (declared: ${known.length ? known.join(', ') : 'none'})`,
        });
      }
    }
    for (const { path, message } of undeclaredMaintenanceNames(cfg.maintenance, { loops: Object.keys(cfg.loops), hosts: Object.keys(cfg.hosts), proxies: Object.keys(cfg.proxies) })) {
      ctx.addIssue({ code: 'custom', path: ['maintenance', ...path], message });
    }
    for (const section of ['digest', 'escalate'] as const) {
      const list = cfg[section];
      for (const { index, message } of list ? unconfiguredSinks(list, cfg.notify) : []) ctx.addIssue({ code: 'custom', path: [section, 'to', index], message });
    }
    for (const { key, message } of cfg.costs ? undeclaredCostProxies(cfg.costs, Object.keys(cfg.proxies)) : []) {
      ctx.addIssue({ code: 'custom', path: ['costs', 'hosts', key], message });
    }
    for (const [section, entries] of sections) {
      for (const [name, entry] of Object.entries(entries)) {
        // A prometheus proxy without a host is reached directly from this machine.
        if (entry.host === undefined) continue;
        if (ownEntry(cfg.hosts, entry.host) === undefined) {
          const known = Object.keys(cfg.hosts);
          ctx.addIssue({
            code: 'custom',
            path: [section, name, 'host'],
            message: `host ${JSON.stringify(entry.host)} is not declared under hosts (declared: ${known.length ? known.join(', ') : 'none'})`,
          });
        }
      }
    }
  });

/** A validated configuration (durations in milliseconds, paths as written). */
export type Config = z.infer<typeof ConfigSchema>;
/** One loop's validated configuration. */
export type LoopConfig = z.infer<typeof LoopConfigSchema>;
/** One host's validated configuration. */
export type HostConfig = z.infer<typeof HostConfigSchema>;
