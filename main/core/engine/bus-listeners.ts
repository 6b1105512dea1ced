import type { NoticeGate } from '../notices/notice-gate';
import type { Disposables } from '../state/disposables';
import type { EventBus } from '../state/event-bus';
import type { Problem } from '../../../shared/domain';
import type { ProblemKey } from '../state/problem-key';

/** What the engine does with what its parts publish and signal. */
export interface EngineHears {
  readonly noticeGate: NoticeGate;
  /** Ask for a poll soon (coalesced). */
  readonly wake: () => void;
  /** A poll is in flight (its own PRs are derived in it). */
  readonly polling: () => boolean;
  readonly setProblem: (key: ProblemKey, problem: Problem | null) => void;
  /** Derive the bad phases' causes again (Prometheus's history of their windows was read). */
  readonly reattribute: () => void;
  /** Derive the dead-men again at the next read (the maintenance windows changed). */
  readonly forgetDeadmen: () => void;
}

/**
 * Listen on the bus for what the engine's next derive depends on: the notices read drills and the
 * pre-flight; a pre-flight that moved, or GitHub's news of a PR (outside a poll: a poll's own PRs
 * are derived in it), is news for the next poll. And the signals: a problem of a part beside the
 * loops (GitHub, /metrics, the database), a bad phase's window read, and the maintenance windows
 * changed (the dead-men derived again). Undone with `teardown`.
 */
export function listenOnBus(bus: EventBus, teardown: Disposables, e: EngineHears): void {
  teardown.add(
    bus.subscribe((...[event]) => {
      if (event === 'drills.changed') e.noticeGate.drillsChanged();
      if (event === 'preflight.changed') e.noticeGate.preflightChanged();
      if (event === 'preflight.changed' || (event === 'prs.changed' && !e.polling())) e.wake();
    }),
  );
  teardown.add(bus.onSignal('problem', ({ key, problem }) => e.setProblem(key, problem)));
  teardown.add(
    bus.onSignal('capacity.window-read', () => {
      e.reattribute();
      e.wake();
    }),
  );
  teardown.add(
    bus.onSignal('maintenance.rescheduled', () => {
      e.forgetDeadmen();
      e.wake();
    }),
  );
}
