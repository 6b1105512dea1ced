import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { CommandInput } from '../../../shared/contract';
import type { Drill, DrillRun } from '../../../shared/domain';
import { ownEntry, type Config } from '../config/schema';
import type { FileSource } from '../sources/file-source';
import type { Store } from '../store/store';
import { log } from '../logging/log';
import { cancelScript, launchScript, parseProbe, statusScript } from './drill-script';
import type { HostShell } from '../hosts/host-shell';
import { DrillRuns, type RunRow } from './drill-runs';

/** With no drill in flight, how often a poll asks SQLite whether another process started one (ms). */
export const RUNNING_RECHECK_MS = 1000;

/** How the drills module reaches a host: a shell for its scripts and a source for the log. */
export interface DrillHost {
  readonly shell: HostShell;
  readonly source: FileSource;
}

/** A drill request refused by a guard rail; the message says which and what to do. */
export class DrillRefused extends Error {
  override readonly name = 'DrillRefused';
}

/** What the drills module needs from the engine. */
export interface DrillServiceOptions {
  readonly store: Store;
  readonly drills: Config['drills'];
  /** The host's shell and source while it is reachable, else null. */
  readonly hostFor: (host: string) => DrillHost | null;
  /** A running loop phase on the host (e.g. "reliability 2026-11-30 remediate"), or null. */
  readonly runningPhaseOn: (host: string) => string | null;
  readonly now?: () => Date;
  /** Seconds between SIGTERM and SIGKILL on timeout and cancel. */
  readonly graceSeconds?: number;
  readonly onRunsChanged: (runs: readonly DrillRun[]) => void;
  readonly onOutput: (runId: string, from: number, text: string) => void;
}

function toRun(r: RunRow): DrillRun {
  return {
    id: r.id,
    drill: r.drill,
    host: r.host,
    args: JSON.parse(r.args) as Record<string, string>,
    user: r.user,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    rc: r.rc,
    status: r.status,
    override: r.override === 1,
    logPath: posix.join(r.dir, 'out.log'),
    durationMs: r.duration_ms,
  };
}

/** Cut a chunk at its last newline (while the run goes on), so a line is never shown half. */
function completeText(buf: Buffer, final: boolean): Buffer {
  if (final) return buf;
  const nl = buf.lastIndexOf(0x0a);
  return nl < 0 ? buf.subarray(0, 0) : buf.subarray(0, nl + 1);
}

/**
 * Drills: the only way Loopdeck runs a command on a host, and only a command declared in the
 * config. A run is detached on the host (it outlives the SSH link and Loopdeck), its output and
 * rc are files there, and every run is recorded in the audit trail, resumed after a restart.
 */
export class DrillService {
  private readonly offsets = new Map<string, number>();
  /** The runs in flight as last asked of SQLite, and when (see runningRows); null: ask again. */
  private running: { readonly rows: RunRow[]; readonly at: number } | null = null;
  private readonly now: () => Date;
  private readonly runRows: DrillRuns;
  /**
   * The audit trail as last read, for `writes` (Store.writesElsewhere) and `limit`; null: read
   * again. Every poll's notices read it (and each summary): with nothing changed it was the
   * largest single cost of an idle serve's polls. Dropped when this service writes a run, and
   * read again when another process (`loopdeck drill run`) committed.
   */
  private trail: { readonly runs: readonly DrillRun[]; readonly limit: number; readonly writes: number } | null = null;

  constructor(private readonly options: DrillServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.runRows = new DrillRuns(options.store);
  }

  /** The declared drills, without their commands. */
  list(): Drill[] {
    return Object.entries(this.options.drills).map(([name, d]) => ({ name, host: d.host, timeoutMs: d.timeout, args: d.args, ...(d.every === undefined ? {} : { everyMs: d.every }) }));
  }

  /** The audit trail, newest first (shared: callers read it, never change it). */
  runs(limit = 200): readonly DrillRun[] {
    const writes = this.options.store.writesElsewhere();
    const t = this.trail;
    if (t !== null && t.limit === limit && t.writes === writes) return t.runs;
    const runs = this.runRows.newest(limit).map(toRun);
    this.trail = { runs, limit, writes };
    return runs;
  }

  /** Check every guard rail, then start the drill detached on its host. */
  /** Run a declared drill for `user` (recorded on the run); its run id. */
  async run(input: CommandInput<'drills.run'>, user: string): Promise<string> {
    const drill = ownEntry(this.options.drills, input.name);
    if (!drill) throw new DrillRefused(`No drill named ${JSON.stringify(input.name)} is declared under drills in the config.`);
    if (input.confirm !== input.name) throw new DrillRefused(`Type the drill's name (${input.name}) to confirm running it.`);
    for (const [key, value] of Object.entries(input.args)) {
      const allowed = ownEntry(drill.args, key);
      if (!allowed) throw new DrillRefused(`Drill ${input.name} has no argument ${JSON.stringify(key)} (drills.${input.name}.args).`);
      if (!allowed.includes(value)) {
        throw new DrillRefused(`Drill ${input.name}: ${JSON.stringify(value)} is not an allowed value of ${key} (allowed: ${allowed.join(', ')}).`);
      }
    }
    const running = this.options.runningPhaseOn(drill.host);
    if (running && !input.overrideRunningPhase) {
      throw new DrillRefused(`Host ${drill.host} is running a loop phase (${running}); confirm the override to run ${input.name} anyway.`);
    }
    const host = this.options.hostFor(drill.host);
    if (!host) throw new DrillRefused(`Host ${drill.host} is not connected; the drill was not started.`);
    const runId = `${this.now().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14)}-${randomBytes(4).toString('hex')}`;
    const script = launchScript({
      runId,
      drill: input.name,
      command: drill.command,
      cwd: drill.cwd ?? null,
      timeoutSeconds: Math.max(1, Math.ceil(drill.timeout / 1000)),
      graceSeconds: this.options.graceSeconds ?? 10,
      args: input.args,
    });
    const out = await host.shell.exec(script);
    const text = out.stdout.toString('utf8');
    if (/^LOCKED/m.test(text)) throw new DrillRefused(`Drill ${input.name} is already running on ${drill.host}; wait for it to finish or cancel it.`);
    const dir = /^STARTED (.+)$/m.exec(text)?.[1];
    if (!dir) throw new Error(`Drill ${input.name} could not be started on ${drill.host}: ${out.stderr.trim() || text.trim() || `exit ${out.code}`}`);
    this.runRows.insert({
      id: runId,
      drill: input.name,
      host: drill.host,
      args: JSON.stringify(input.args),
      user,
      startedAt: this.now().toISOString(),
      override: Boolean(running && input.overrideRunningPhase),
      dir,
    });
    this.offsets.set(runId, 0);
    this.running = null;
    this.trail = null;
    this.options.onRunsChanged(this.runs());
    return runId;
  }

  /** SIGTERM the run's process group, SIGKILL after the grace period. */
  /** Cancel a running drill for `user` (logged); whether the host signalled it. */
  async cancel(runId: string, user: string): Promise<boolean> {
    const run = this.row(runId);
    if (!run || run.status !== 'running') return false;
    log.info(`drill ${run.drill} (${runId}) on ${run.host}: cancel asked by ${user}`);
    const host = this.options.hostFor(run.host);
    if (!host) throw new DrillRefused(`Host ${run.host} is not connected; cancel again once it is.`);
    const out = await host.shell.exec(cancelScript(run.dir, this.options.graceSeconds ?? 10));
    return out.stdout.toString('utf8').includes('SIGNALLED');
  }

  /** A run's output from byte `from` (the log stays on the host). */
  async output(runId: string, from: number): Promise<{ text: string; next: number }> {
    const run = this.row(runId);
    if (!run) throw new DrillRefused(`No drill run ${runId}.`);
    const host = this.options.hostFor(run.host);
    if (!host) throw new DrillRefused(`Host ${run.host} is not connected.`);
    const path = posix.join(run.dir, 'out.log');
    const st = await host.source.stat(path);
    if (!st || st.size <= from) return { text: '', next: from };
    const buf = await host.source.read(path, from, Math.min(st.size - from, 4 * 1024 * 1024));
    return { text: buf.toString('utf8'), next: from + buf.length };
  }

  /** Whether a run was in flight when last asked (polls follow its output: see Engine's quiet polls). */
  inFlight(): boolean {
    return (this.running?.rows.length ?? 0) > 0;
  }

  /** Follow every running run: stream new output, and record the outcome once DONE is written. */
  async poll(): Promise<void> {
    const running = this.runningRows();
    let changed = false;
    for (const run of running) {
      const host = this.options.hostFor(run.host);
      if (!host) continue; // the link is down: the drill goes on, and so will we after the reconnect
      const probe = parseProbe((await host.shell.exec(statusScript(run.dir))).stdout.toString('utf8'));
      // After a restart nothing was streamed yet by this process; the UI catches up through `output`.
      const from = this.offsets.get(run.id) ?? 0;
      const final = probe.done || probe.gone || !probe.alive;
      if (probe.size > from) {
        const buf = completeText(await host.source.read(posix.join(run.dir, 'out.log'), from, probe.size - from), final);
        if (buf.length > 0) {
          this.offsets.set(run.id, from + buf.length);
          this.options.onOutput(run.id, from, buf.toString('utf8'));
        }
      }
      if (final) {
        this.finish(run, probe);
        changed = true;
      }
    }
    if (changed) this.options.onRunsChanged(this.runs());
  }

  /**
   * The runs in flight. Asked of SQLite when this process started or ended one, while any runs,
   * and otherwise at most every RUNNING_RECHECK_MS (for a run another process started, e.g. `loopdeck
   * drill run` beside the console): this runs on every poll, up to twenty a second, and with no drill
   * running the query was the largest part of a poll woken by one transcript line.
   */
  private runningRows(): RunRow[] {
    const at = performance.now();
    if (this.running === null || this.running.rows.length > 0 || at - this.running.at >= RUNNING_RECHECK_MS) {
      // Prepared once (by the store), since preparing costs more than an empty answer.
      this.running = { rows: this.runRows.running(), at };
    }
    return this.running.rows;
  }

  private finish(run: RunRow, probe: ReturnType<typeof parseProbe>): void {
    const status: DrillRun['status'] = !probe.done
      ? 'lost'
      : probe.cancelled
        ? 'cancelled'
        : probe.timedOut
          ? 'timeout'
          : probe.rc === 0
            ? 'ok'
            : 'failed';
    const ended = this.now();
    this.runRows.finish(run.id, status, probe.done ? probe.rc : null, ended.toISOString(), Math.max(0, ended.getTime() - Date.parse(run.started_at)));
    this.trail = null;
    this.offsets.delete(run.id);
  }

  private row(runId: string): RunRow | undefined {
    return this.runRows.byId(runId);
  }
}
