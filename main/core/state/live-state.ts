import type { Finding, HostState, LoopState, PullRequest } from '../../../shared/domain';
import type { Notice } from '../../../shared/ops-domain';
import type { ContractBreach } from '../../../shared/contract-breach';

/**
 * The engine's live state, handed over without copies: its loops, each loop's findings array, the
 * PRs, the hosts. What a `/metrics` scrape counts and what the tray icon shows are read from it;
 * building a snapshot (every finding's text, every notice) for either is what it avoids.
 */
export interface LiveState {
  /** Every configured loop, its cycles newest first. */
  readonly loops: readonly LoopState[];
  /** A loop's findings as the engine holds them (the same array until its ledgers change). */
  findingsOf(loop: string): readonly Finding[];
  readonly prs: readonly PullRequest[];
  readonly hosts: readonly HostState[];
  /** Sources that currently fail to be read (a runs folder, a loop's ledgers, the drills). */
  readonly sourceErrors: number;
  /** The Broken contract list as last derived (bounded). */
  readonly contract: readonly ContractBreach[];
  /** The notice list (a small SQL query): asked only when it is needed. */
  notices(): readonly Notice[];
}
