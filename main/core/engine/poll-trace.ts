import { appendFileSync } from 'node:fs';
import { pollSideBySide, type PollChanges } from './poll-changes';

/** One traced poll, as a line of the trace file (JSON). */
export interface PollTraceLine {
  /** When it ended (epoch ms). */
  readonly at: number;
  readonly reason: 'wake' | 'timer' | null;
  /** Loops read, and the hosts they are on. */
  readonly loops: number;
  readonly hosts: number;
  /** The reads, first to last (ms). */
  readonly readMs: number;
  /** The hosts' read times (each host's loops one after another), median and slowest (ms). */
  readonly hostMsP50: number;
  readonly hostMsMax: number;
  /** From each host's first watcher report since the poll before to this poll's start, median and longest (ms); 0 when none reported. */
  readonly waitMsP50: number;
  readonly waitMsMax: number;
}

const at = (sorted: readonly number[], q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0);

/**
 * Where a line's time goes in serve (bench figure 6d): `LOOPDECK_POLL_TRACE=FILE` appends a line
 * for each poll — its reason, what it read, how long each host took, and how long the hosts'
 * watcher reports waited for it. Off (null, nothing timed) unless the variable is set.
 */
export class PollTrace {
  private readonly firstReport = new Map<string, number>();

  private constructor(private readonly file: string) {}

  /** The trace `LOOPDECK_POLL_TRACE` asks for, or null. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): PollTrace | null {
    const file = env.LOOPDECK_POLL_TRACE;
    return file ? new PollTrace(file) : null;
  }

  /** A host's watcher reported a change (the first since the last poll began is kept). */
  reported(host: string): void {
    if (!this.firstReport.has(host)) this.firstReport.set(host, performance.now());
  }

  /** pollSideBySide, timed per host, and its line written. */
  async poll<T>(reason: PollTraceLine['reason'], items: readonly T[], hostOf: (item: T) => string, poll: (item: T, changed: PollChanges) => Promise<boolean>): Promise<{ changed: PollChanges; any: boolean }> {
    const start = performance.now();
    const waits = [...this.firstReport.values()].map((t) => start - t).sort((a, b) => a - b);
    this.firstReport.clear();
    const hostMs = new Map<string, number>();
    const result = await pollSideBySide(items, hostOf, async (item, changed) => {
      const t = performance.now();
      try {
        return await poll(item, changed);
      } finally {
        hostMs.set(hostOf(item), (hostMs.get(hostOf(item)) ?? 0) + performance.now() - t);
      }
    });
    const hosts = [...hostMs.values()].sort((a, b) => a - b);
    const line: PollTraceLine = {
      at: Date.now(),
      reason,
      loops: items.length,
      hosts: hosts.length,
      readMs: Math.round(performance.now() - start),
      hostMsP50: at(hosts, 0.5),
      hostMsMax: at(hosts, 1),
      waitMsP50: at(waits, 0.5),
      waitMsMax: at(waits, 1),
    };
    try {
      appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    } catch {
      // A diagnostic that cannot write says nothing; the poll is not its business.
    }
    return result;
  }
}
