import type { Capacity, Cycle, Drill, DrillRun, HostState } from '../../../shared/domain';
import { isSaturated } from '../../../shared/capacity-domain';
import { drillCadence } from '../../../shared/drill-due';
import { preflightCheck, preflightState, type Preflight, type PreflightCheck } from '../../../shared/preflight';
import { formatBytes, formatThreshold, type DiskThreshold } from '../config/disk-threshold';
import { formatDuration } from '../config/duration';
import type { SchedulerConfig } from '../config/schema';
import type { DeliverRecord } from '../prs/pull-requests';
import type { PathAnswer } from './host-probe';
import { originCheck, schedulerCheck, type HostSaid } from './runner-checks';
import { ORIGIN_BOUND_S, type RunnerAnswer } from './runner-probe';
import { overlapCheck, type OverlapInput } from './overlap-check';

// The pre-flight's rules: pure functions of what the engine knows and what the host answered.

/** Everything one loop's pre-flight reads. */
export interface PreflightInput {
  readonly loop: string;
  readonly hostName: string;
  readonly host: HostState | undefined;
  /** The fire it is about, and the loop's cap: the night's window is fire to fire + cap. */
  readonly fireAt: number;
  readonly capMs: number;
  readonly now: Date;
  /** The host's answers for the runs folder (first) and the clone; null: not asked (the host cannot be read); a string: the probe failed. */
  readonly disk: readonly PathAnswer[] | string | null;
  readonly threshold: DiskThreshold;
  /** Newest first. */
  readonly cycles: readonly Cycle[];
  /** Whether the loop declares a deliver record, and the record as last read. */
  readonly deliverRecordPath: string | null;
  readonly deliverRecord: DeliverRecord | null;
  /** The proxies the loop uses (`uses`, else all), with the hosts they are on. */
  readonly proxies: readonly { readonly name: string; readonly host: string | null }[];
  readonly capacity: readonly Capacity[];
  readonly models: readonly string[];
  readonly drills: readonly Drill[];
  readonly drillRuns: readonly DrillRun[];
  /** `loops.<name>.scheduler`; absent: not checked, and no `scheduler` check is shown (as `deliver-record` without `deliverRecord`). */
  readonly scheduler?: SchedulerConfig | undefined;
  /** The clone (`loops.<name>.dir`); absent: no `origin` check. */
  readonly dir?: string | undefined;
  /** The host's answer about the scheduler and origin: null when not asked (the host cannot be read), a string when the probe failed. */
  readonly runner?: HostSaid<RunnerAnswer>;
  /** The bound on `git ls-remote` (s); default ORIGIN_BOUND_S. */
  readonly originBoundS?: number;
  /** This loop's duration and the other loops on its host; absent (or none): no `overlap` check. */
  readonly overlap?: OverlapInput | undefined;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** The host is connected and its key trusted. */
export function hostCheck(name: string, h: HostState | undefined): PreflightCheck {
  if (!h) return preflightCheck('host', 'fail', `host ${name} is not declared under hosts`);
  switch (h.state) {
    case 'connected':
      return preflightCheck('host', 'ok', `host ${name} is connected${h.kind === 'ssh' ? ' and its key trusted' : ''}`);
    case 'connecting':
      return preflightCheck('host', 'unknown', `host ${name} is still connecting`);
    case 'untrusted':
      return preflightCheck('host', 'fail', `host ${name}'s key is not trusted${h.fingerprint ? ` (${h.fingerprint})` : ''}: compare it with the host's own and run \`loopdeck trust ${name}\``);
    default:
      return preflightCheck('host', 'fail', `host ${name} is ${h.state}${h.error ? `: ${h.error}` : ''}`);
  }
}

/** The runs folder and the clone exist, are writable, and have the room asked for. */
export function diskCheck(hostName: string, disk: PreflightInput['disk'], threshold: DiskThreshold): PreflightCheck {
  if (disk === null) return preflightCheck('disk', 'unknown', `free room not checked: host ${hostName} cannot be read`);
  if (typeof disk === 'string') return preflightCheck('disk', 'unknown', `free room not checked on host ${hostName}: ${disk}`);
  const fails: string[] = [];
  const unknown: string[] = [];
  const fine: string[] = [];
  disk.forEach((a, i) => {
    const what = `${i === 0 ? 'runs folder' : 'clone'} ${a.path}`;
    if (!a.exists) return fails.push(`${what} does not exist on ${hostName}`);
    if (!a.writable) return fails.push(`${what} is not writable on ${hostName}`);
    if (!a.df) return unknown.push(`df said nothing about ${what}`);
    const need = threshold.kind === 'bytes' ? threshold.bytes : (a.df.totalBytes * threshold.percent) / 100;
    const free = `${formatBytes(a.df.availableBytes)} free on ${a.df.mount}`;
    if (a.df.availableBytes < need) fails.push(`${what} has ${free} (needs ${formatThreshold(threshold)}, preflightDisk)`);
    else fine.push(`${what}: ${free}`);
  });
  if (fails.length) return preflightCheck('disk', 'fail', fails.join('; '));
  if (unknown.length) return preflightCheck('disk', 'unknown', unknown.join('; '));
  return preflightCheck('disk', 'ok', `${fine.join('; ')} (needs ${formatThreshold(threshold)})`);
}

/** The previous cycle has finished: one still running at the fire makes tonight's an overrun. */
export function previousCycleCheck(cycles: readonly Cycle[], fireAt: number): PreflightCheck {
  const running = cycles.find((c) => c.status === 'running');
  if (running) {
    const phase = running.phases.find((p) => p.status === 'running');
    const since = phase?.startedAt ? ` since ${clock(Date.parse(phase.startedAt))}` : '';
    return preflightCheck('previous-cycle', 'fail', `cycle ${running.date} is still running${phase ? ` (${phase.name}${since})` : ''}: unless it ends by the ${clock(fireAt)} fire, tonight's run overruns`);
  }
  const last = cycles[0];
  if (!last) return preflightCheck('previous-cycle', 'ok', 'no earlier cycle');
  return preflightCheck('previous-cycle', 'ok', last.status === 'pending' ? `cycle ${last.date} has not started (pending)` : `cycle ${last.date} finished (${last.status})`);
}

/** A resumable deliver record (status incomplete): tonight's fire finishes that PR first — a warning. */
export function deliverRecordCheck(path: string, r: DeliverRecord | null): PreflightCheck {
  if (!r) return preflightCheck('deliver-record', 'ok', `no deliver record at ${path} yet`);
  if (r.status !== 'incomplete') return preflightCheck('deliver-record', 'ok', `deliver record ${r.status ?? 'without a status'}: nothing to resume`);
  const pr = r.url ?? (r.pr !== null ? `PR #${r.pr}` : 'its PR');
  const check = r.check ? ` (failing check ${r.check})` : '';
  return preflightCheck('deliver-record', 'warn', `tonight's fire resumes ${pr}${r.branch ? ` on ${r.branch}` : ''}${check} before today's branch`);
}

/** Each proxy the loop uses is up with a free slot. */
export function fleetChecks(proxies: PreflightInput['proxies'], capacity: readonly Capacity[]): PreflightCheck[] {
  return proxies.map(({ name }) => {
    const rows = capacity.filter((c) => c.proxy === name);
    if (rows.length === 0) return preflightCheck('fleet', 'unknown', `proxy ${name} has not been polled yet`);
    const up = rows.filter((c) => c.up);
    if (up.length === 0) {
      const error = rows.find((c) => c.error)?.error;
      return preflightCheck('fleet', 'fail', `proxy ${name}: no host is up${error ? ` (${error})` : ''}`);
    }
    const sized = up.filter((c) => c.slotsTotal !== null);
    const free = sized.reduce((n, c) => n + Math.max(0, (c.slotsTotal ?? 0) - (c.slotsBusy ?? 0)), 0);
    const total = sized.reduce((n, c) => n + (c.slotsTotal ?? 0), 0);
    if (sized.length > 0 && (free === 0 || up.every(isSaturated))) {
      const queued = up.reduce((n, c) => n + (c.queued ?? 0), 0);
      return preflightCheck('fleet', 'fail', `proxy ${name} has no free slot (${total - free} of ${total} busy${queued ? `, ${queued} queued` : ''})`);
    }
    return preflightCheck('fleet', 'ok', `proxy ${name}: ${up.length} of ${rows.length} hosts up${sized.length ? `, ${free} of ${total} slots free` : ''}`);
  });
}

/** The models the loop expects are loaded on a host that is up, behind a proxy it uses. */
export function modelsCheck(models: readonly string[], proxies: PreflightInput['proxies'], capacity: readonly Capacity[]): PreflightCheck | null {
  if (models.length === 0) return null;
  const names = new Set(proxies.map((p) => p.name));
  const rows = capacity.filter((c) => names.has(c.proxy));
  if (rows.length === 0) return preflightCheck('models', 'unknown', `models not checked: ${proxies.length ? `${[...names].join(', ')} not polled yet` : 'the loop uses no proxy'}`);
  const loaded = new Set(rows.filter((c) => c.up).flatMap((c) => c.models.map((m) => m.id)));
  const missing = models.filter((m) => !loaded.has(m));
  if (missing.length === 0) return preflightCheck('models', 'ok', `${models.join(', ')} loaded`);
  const have = loaded.size ? [...loaded].sort().join(', ') : 'none';
  return preflightCheck('models', 'fail', `${missing.length === 1 ? 'model' : 'models'} ${missing.join(', ')} not loaded on ${[...names].join(', ')} (loaded: ${have})`);
}

/** No drill (on the loop's host or its fleet's) is running now or falls due inside tonight's window. */
export function drillsCheck(input: Pick<PreflightInput, 'drills' | 'drillRuns' | 'now' | 'fireAt' | 'capMs' | 'hostName' | 'proxies'>): PreflightCheck {
  const hosts = new Set([input.hostName, ...input.proxies.flatMap((p) => (p.host ? [p.host] : []))]);
  const end = input.fireAt + input.capMs;
  const fails: string[] = [];
  const warns: string[] = [];
  for (const run of input.drillRuns) {
    if (run.status === 'running' && hosts.has(run.host)) fails.push(`drill ${run.drill} is running now on ${run.host} (started ${clock(Date.parse(run.startedAt))})`);
  }
  for (const d of input.drills) {
    if (!hosts.has(d.host)) continue;
    const cadence = drillCadence(d, input.drillRuns, input.now.getTime());
    if (!cadence) continue;
    const due = cadence.dueAt === null ? null : Date.parse(cadence.dueAt);
    if (due !== null && due >= input.fireAt && due <= end) {
      fails.push(`drill ${d.name} on ${d.host} falls due at ${clock(due)}, inside tonight's window (${clock(input.fireAt)} + cap ${formatDuration(input.capMs)}): run it before the fire`);
    } else if (cadence.due) {
      warns.push(`drill ${d.name} on ${d.host} is already due${cadence.lastOkAt ? '' : ' (never succeeded)'}: do not run it during tonight's window`);
    }
  }
  if (fails.length) return preflightCheck('drills', 'fail', fails.join('; '));
  if (warns.length) return preflightCheck('drills', 'warn', warns.join('; '));
  return preflightCheck('drills', 'ok', 'no drill running or falling due over tonight\'s window');
}

/** One loop's pre-flight from what is known. */
export function judgePreflight(input: PreflightInput): Preflight {
  const checks: PreflightCheck[] = [hostCheck(input.hostName, input.host), diskCheck(input.hostName, input.disk, input.threshold)];
  const runner = input.runner ?? null;
  const said = <K extends keyof RunnerAnswer>(k: K): HostSaid<RunnerAnswer[K]> => (runner === null || typeof runner === 'string' ? runner : (runner[k] ?? 'the check script said nothing about it'));
  if (input.scheduler) checks.push(schedulerCheck(input.loop, input.hostName, input.scheduler, said('scheduler')));
  if (input.dir !== undefined) checks.push(originCheck(input.hostName, input.dir, said('origin'), input.originBoundS ?? ORIGIN_BOUND_S));
  checks.push(previousCycleCheck(input.cycles, input.fireAt));
  const overlap = overlapCheck(input);
  if (overlap) checks.push(overlap);
  if (input.deliverRecordPath !== null) checks.push(deliverRecordCheck(input.deliverRecordPath, input.deliverRecord));
  checks.push(...fleetChecks(input.proxies, input.capacity));
  const models = modelsCheck(input.models, input.proxies, input.capacity);
  if (models) checks.push(models);
  checks.push(drillsCheck(input));
  return { loop: input.loop, fireAt: new Date(input.fireAt).toISOString(), state: preflightState(checks), checks, checkedAt: input.now.toISOString() };
}
