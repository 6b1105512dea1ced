import type { Capacity, Cycle, Drill, DrillRun } from '../../../shared/domain';
import type { Preflight } from '../../../shared/preflight';
import { ownEntry, type Config, type LoopConfig } from '../config/schema';
import { isReachable, type HostTable } from '../hosts/host-table';
import { fireTimes } from '../loops/deadman';
import type { DeliverRecord } from '../prs/pull-requests';
import { judgePreflight } from './checks';
import { parseProbe, probeScript, type PathAnswer } from './host-probe';
import { ORIGIN_BOUND_S, parseRunner, type RunnerAnswer, type RunnerAsk } from './runner-probe';
import { loopDuration, neighboursOf } from './overlap-check';
import { messageOf } from '../../../shared/errors';
import type { MaintenanceSchedule } from '../maintenance/maintenance-schedule';

/** A pre-flight that could not tell is run again this soon (ms), not at every poll. */
export const UNKNOWN_AGAIN_MS = 30_000;
/** How long one host's probe may take (ms): the origin checks' bound (they run at once) and room for the rest. */
const PROBE_TIMEOUT_MS = ORIGIN_BOUND_S * 1000 + 15_000;

/** What one host said for one loop. */
interface LoopAnswer {
  readonly paths: readonly PathAnswer[];
  readonly runner: RunnerAnswer;
}

/** What the pre-flight reads from the engine, as it is now. */
export interface PreflightState {
  /** Every loop has been read once since the start: before that its cycles are not known yet. */
  readonly caughtUp: () => boolean;
  readonly cycles: (loop: string) => readonly Cycle[];
  readonly deliverRecord: (loop: string) => DeliverRecord | null;
  readonly capacity: () => readonly Capacity[];
  readonly drills: () => readonly Drill[];
  readonly drillRuns: () => readonly DrillRun[];
}

/** What the service is made from. */
export interface PreflightServiceOptions {
  readonly config: Config;
  readonly hosts: HostTable;
  readonly now: () => Date;
  readonly state: PreflightState;
  /** The results changed (a pre-flight ran, or one's fire passed). */
  readonly onChange: (list: readonly Preflight[]) => void;
  /** The maintenance windows: a fire inside one in the loop's scope is `maintenance`, not at risk. */
  readonly maintenance?: MaintenanceSchedule;
}

/** A loop's lead before its fire (ms), or null when its pre-flight is off. */
export function leadOf(config: Config, loop: LoopConfig): number | null {
  return loop.preflight === undefined ? config.preflight.lead : loop.preflight;
}

/**
 * Pre-flight before each loop's fire: once `now` is within the loop's lead of its next fire, and
 * again every `preflight.every` inside that window (after UNKNOWN_AGAIN_MS for one that could not tell), each host is asked once (one script over its
 * one shell, all hosts at once) what its loops' folders need, whether their schedulers are
 * installed and their clones' origins answer, and each loop is judged from that and what the
 * engine already knows (host state, cycles, deliver record, fleet, drills).
 */
export class PreflightService {
  private readonly byLoop = new Map<string, Preflight>();
  /** Each result as marked (see marked), with the windows' version it was marked for. */
  private readonly marks = new WeakMap<Preflight, { readonly version: number; readonly marked: Preflight }>();
  private auto = false;
  /** What was last handed to onChange (see listKey). */
  private published = '';
  private running: Promise<readonly Preflight[]> | null = null;

  constructor(private readonly options: PreflightServiceOptions) {}

  /** The configured loops, in config order. */
  loops(): string[] {
    return Object.keys(this.options.config.loops);
  }

  /** The current results, one per loop whose next fire has not passed, in config order (each marked with the window its fire is in, if any). */
  list(): Preflight[] {
    const now = this.options.now().getTime();
    return Object.keys(this.options.config.loops).flatMap((name) => {
      const p = this.byLoop.get(name);
      return p && Date.parse(p.fireAt) > now ? [this.marked(p)] : [];
    });
  }

  /**
   * A fire inside a maintenance window: the checks are kept for what they say, the state is the
   * window's. Asked when listed, so a window added or ended in the console moves it at the next look.
   */
  private marked(r: Preflight): Preflight {
    const schedule = this.options.maintenance;
    if (!schedule) return r;
    // The list is read after every poll: a result's mark (its fire is a fixed moment) is worked
    // out once for each set of windows, not once a poll.
    const kept = this.marks.get(r);
    if (kept?.version === schedule.version) return kept.marked;
    const mark = schedule.markAt({ kind: 'loop', name: r.loop }, Date.parse(r.fireAt));
    const marked: Preflight = mark ? { ...r, state: 'maintenance', maintenance: mark } : r;
    this.marks.set(r, { version: schedule.version, marked });
    return marked;
  }

  /** Run the pre-flights that come due from now on: the engine calls `look` after each of its polls. */
  start(): void {
    this.auto = true;
  }

  /** Stop running them on its own (a pre-flight in flight finishes). */
  async stop(): Promise<void> {
    this.auto = false;
    await this.running?.catch(() => undefined);
  }

  /**
   * After a poll, once started: run the pre-flights that are due, unless one is in flight. Cheap
   * when none is (the next fire of each loop is cached until it passes), so it can follow every poll.
   */
  look(): void {
    if (!this.auto || this.running) return;
    // A fire that passed takes its pre-flight off the list: the dead-man speaks for that night now.
    if (this.listKey(this.list()) !== this.published) this.publish();
    void this.runDue().catch(() => undefined);
  }

  private listKey(list: readonly Preflight[]): string {
    return list.map((p) => `${p.loop}\u0000${p.fireAt}\u0000${p.checkedAt}\u0000${p.state}\u0000${p.maintenance?.until ?? ''}`).join('\u0001');
  }

  private publish(): void {
    const list = this.list();
    this.published = this.listKey(list);
    this.options.onChange(list);
  }

  /** The loops inside their lead window whose pre-flight for this fire has not run, or ran `preflight.every` ago. */
  due(): string[] {
    const now = this.options.now();
    const { config } = this.options;
    return Object.entries(config.loops).flatMap(([name, loop]) => {
      const lead = leadOf(config, loop);
      if (lead === null) return [];
      const next = fireTimes(loop.schedule, loop.timezone, now).next;
      if (next === null || now.getTime() < next - lead) return [];
      const last = this.byLoop.get(name);
      // One that could not tell (a host still connecting, the fleet not polled yet) is asked again sooner.
      const again = last?.state === 'unknown' ? Math.min(UNKNOWN_AGAIN_MS, config.preflight.every) : config.preflight.every;
      const fresh = last && Date.parse(last.fireAt) === next && now.getTime() - Date.parse(last.checkedAt) < again;
      return fresh ? [] : [name];
    });
  }

  /** Run the pre-flights that are due; what ran. */
  async runDue(): Promise<readonly Preflight[]> {
    // Not before the first read has caught up: a running previous cycle would not be known yet.
    if (!this.options.state.caughtUp()) return [];
    const due = this.due();
    return due.length === 0 ? [] : this.run(due);
  }

  /** Run the pre-flight of these loops (all by default) for their next fire, now, whatever their lead. */
  run(loops: readonly string[] = Object.keys(this.options.config.loops)): Promise<readonly Preflight[]> {
    // One at a time: a tick that comes while the CLI's run is in flight waits for it.
    const previous = this.running ?? Promise.resolve([]);
    const next = previous.catch(() => []).then(() => this.runNow(loops));
    this.running = next.finally(() => {
      if (this.running === next) this.running = null;
    });
    return next;
  }

  private async runNow(loops: readonly string[]): Promise<readonly Preflight[]> {
    const { config, hosts, state } = this.options;
    const now = this.options.now();
    const entries = loops.flatMap((name) => {
      const loop = ownEntry(config.loops, name);
      return loop ? [[name, loop] as const] : [];
    });
    // Each host is asked once for all of its loops' folders, and every host at once.
    const byHost = new Map<string, (readonly [string, LoopConfig])[]>();
    for (const e of entries) byHost.set(e[1].host, [...(byHost.get(e[1].host) ?? []), e]);
    const answers = new Map<string, LoopAnswer | string | null>();
    await Promise.all(
      [...byHost].map(async ([host, group]) => {
        const got = await this.probe(host, group.map(([, l]) => folders(l)), group.map(([, l]) => runnerAsk(l)));
        group.forEach(([name], i) => answers.set(name, typeof got === 'string' || got === null ? got : (got[i] ?? null)));
      }),
    );
    const hostStates = new Map(hosts.states().map((h) => [h.name, h]));
    const capacity = state.capacity();
    const results = entries.map(([name, loop]): Preflight => {
      const fireAt = fireTimes(loop.schedule, loop.timezone, now).next ?? now.getTime();
      const uses = loop.uses ?? Object.keys(config.proxies);
      const answer = answers.get(name) ?? null;
      const said = <T>(f: (a: LoopAnswer) => T): T | string | null => (answer === null || typeof answer === 'string' ? answer : f(answer));
      return judgePreflight({
        loop: name,
        hostName: loop.host,
        host: hostStates.get(loop.host),
        fireAt,
        capMs: loop.cap,
        now,
        disk: said((a) => a.paths),
        threshold: loop.preflightDisk ?? config.preflight.disk,
        cycles: state.cycles(name),
        deliverRecordPath: loop.deliverRecord ?? null,
        deliverRecord: state.deliverRecord(name),
        proxies: uses.map((p) => ({ name: p, host: ownEntry(config.proxies, p)?.host ?? null })),
        capacity,
        models: loop.models ?? [],
        drills: state.drills(),
        drillRuns: state.drillRuns(),
        scheduler: loop.scheduler,
        dir: loop.dir,
        runner: said((a) => a.runner),
        overlap: { duration: loopDuration(state.cycles(name), loop.cap), neighbours: neighboursOf(name, config.loops, state.cycles) },
      });
    });
    for (const r of results) this.byLoop.set(r.loop, r);
    this.publish();
    return results.map((r) => this.marked(r));
  }

  /** One script on the host for every folder group and runner ask; null when the host cannot be read now, a string when the script failed. */
  private async probe(host: string, groups: readonly (readonly string[])[], asks: readonly RunnerAsk[]): Promise<LoopAnswer[] | string | null> {
    const h = this.options.hosts.get(host);
    if (!isReachable(h) || !h.shell) return null;
    const script = probeScript(groups, asks);
    try {
      const out = h.ssh ? await h.ssh.connection.run(script, PROBE_TIMEOUT_MS) : await h.shell.exec(script, PROBE_TIMEOUT_MS);
      if (out.code !== 0) return `the check script exited ${out.code ?? 'without a code'}${out.stderr ? `: ${out.stderr.trim().slice(0, 200)}` : ''}`;
      const stdout = out.stdout.toString('utf8');
      const runner = parseRunner(stdout, asks);
      return parseProbe(stdout, groups).map((paths, i) => ({ paths, runner: runner[i] ?? { scheduler: null, origin: null } }));
    } catch (err) {
      return messageOf(err);
    }
  }
}

/** What the pre-flight asks of a loop's runner beyond its folders: its scheduler (when declared), its clone's origin (with `dir`). */
function runnerAsk(loop: LoopConfig): RunnerAsk {
  return { scheduler: loop.scheduler, dir: loop.dir };
}

/** The folders a loop writes to: its runs folder, then its clone. */
function folders(loop: LoopConfig): string[] {
  return loop.dir ? [loop.runs, loop.dir] : [loop.runs];
}
