import type { SshHostEnv } from '../ssh/ssh-host';
import type { Store } from '../store/store';
import type { SourceTap } from '../hosts/host-table';
import type { EventBus } from '../state/event-bus';

// What an Engine is made with and run with, and what listens to it.

/** Receives every event the engine publishes. */
export type { EventListener } from '../../../shared/contract';

/** What the engine is built from. */
export interface EngineOptions {
  readonly store: Store;
  readonly now?: () => Date;
  /** Where SSH hosts find ~/.ssh and how their connections are tuned (tests shorten keepalive). */
  readonly ssh?: Omit<SshHostEnv, 'store'>;
  /** Emergency repeats and receipt polls run this often (ms). */
  readonly noticeTickMs?: number;
  /** Called after every poll, whoever asked for it (the session's saved summary watches for the first read's end). */
  readonly afterPoll?: () => void;
  /** Wraps each host's file source as it is made (figure 2 of the bench counts the bytes read). */
  readonly tapSource?: SourceTap;
  /** Where `github.token: env:NAME` is read and what `gh auth token` runs with (process.env by default). */
  readonly githubEnv?: NodeJS.ProcessEnv;
  /** Where the engine and its services publish and signal (a new one by default; the composition root passes the core's). */
  readonly bus?: EventBus;
}

/** How the engine polls on its own (`run`). */
export interface RunOptions {
  /** Poll this often when nothing wakes a poll (IDLE_POLL_MS by default). */
  readonly intervalMs?: number;
  /** Poll this often once timer polls are quiet (QUIET_POLL_MS by default; see PollScheduler). */
  readonly quietIntervalMs?: number;
  /** A poll that failed (the schedule goes on). */
  readonly onError?: (err: unknown) => void;
}
