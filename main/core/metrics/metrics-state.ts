import type { Finding, HostState, LoopState, Problem, PullRequest, Severity } from '../../../shared/domain';
import type { Notice } from '../../../shared/ops-domain';

/**
 * What a scrape counts, handed over by the engine without copies: its live loops, each loop's
 * findings array, the PRs, the hosts. Building a snapshot (every finding's text, every notice)
 * per scrape is what this avoids.
 */
export interface MetricsState {
  /** Every configured loop, its cycles newest first. */
  readonly loops: readonly LoopState[];
  /** A loop's findings as the engine holds them (the same array until its ledgers change). */
  findingsOf(loop: string): readonly Finding[];
  readonly prs: readonly PullRequest[];
  readonly hosts: readonly HostState[];
  /** Sources that currently fail to be read (a runs folder, a loop's ledgers, the drills). */
  readonly sourceErrors: number;
  /** The notice list (a small SQL query): asked only when the notices gauge is collected. */
  notices(): readonly Notice[];
}

/** What the exporter reads and reports to: the engine, structurally. */
export interface MetricsSource {
  metricsState(): MetricsState;
  /** Record (or clear, with null) a problem of the exporter under its own key. */
  setProblem(key: string, problem: Problem | null): void;
}

/** The severities a loop always reports (0 when none is open); findings without one count as `none`. */
export const SEVERITIES: readonly Severity[] = ['P0', 'P1', 'P2', 'P3'];

const openCounts = new WeakMap<readonly Finding[], ReadonlyMap<string, number>>();

/**
 * Open findings by severity (`none` for a finding without one). Cached per findings array: the
 * engine replaces a loop's array when its ledgers change, so a scrape between changes is a lookup.
 */
export function openFindingsBySeverity(findings: readonly Finding[]): ReadonlyMap<string, number> {
  const cached = openCounts.get(findings);
  if (cached) return cached;
  const counts = new Map<string, number>(SEVERITIES.map((s) => [s, 0]));
  for (const f of findings) {
    if (f.status !== 'open') continue;
    const key = f.severity ?? 'none';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  openCounts.set(findings, counts);
  return counts;
}
