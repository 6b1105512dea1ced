import type { Problem } from '../../../shared/domain';
import { deliverEvent, type EventListener, type EventName, type EventPayload } from '../../../shared/contract';
import type { ProblemKey } from './problem-key';

/**
 * What the core's parts tell each other and no console: not part of the contract, never sent to a
 * client. The engine listens for them; a part reports with one rather than with a call into it.
 */
export interface CoreSignals {
  /** Prometheus's history of a bad phase's window was read: phases put down to `unknown` may now have a cause. */
  'capacity.window-read': null;
  /** A maintenance window was added or ended in the console: what read the schedule reads it again. */
  'maintenance.rescheduled': null;
  /** A part beside the loops has a problem under its key, or (null) no longer has one. */
  problem: { readonly key: ProblemKey; readonly problem: Problem | null };
}

/** The sending half of the signals, for a part that only reports. */
export interface SignalSink {
  signal<S extends keyof CoreSignals>(name: S, payload: CoreSignals[S]): void;
}

/**
 * Where the core's parts publish what changed: the engine's own events and its services' (the
 * capacity, the drills, the pre-flight, the notices, GitHub's PRs). Every listener gets each
 * event, keyed by name; the engine listens too, for what its next derive depends on, so a service
 * reports through the events it publishes rather than through calls into the engine. Signals
 * (CoreSignals) travel beside the events, to their own listeners only.
 */
export class EventBus implements SignalSink {
  private readonly listeners = new Set<EventListener>();
  private readonly signalListeners = new Map<keyof CoreSignals, Set<(payload: never) => void>>();
  private count = 0;

  /** News published so far (a poll that moved it published something: see Engine's quiet polls). */
  get published(): number {
    return this.count;
  }

  /**
   * Hand `payload` to every listener, in the order they subscribed. `news` false: a measurement the
   * consoles show that changes nothing else (a running phase's runner load), not counted in `published`.
   */
  publish<E extends EventName>(event: E, payload: EventPayload<E>, news = true): void {
    if (news) this.count += 1;
    for (const listener of this.listeners) deliverEvent(listener, event, payload);
  }

  /** Listen to every event from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hand a signal to its listeners, in the order they listened. */
  signal<S extends keyof CoreSignals>(name: S, payload: CoreSignals[S]): void {
    for (const listener of this.signalListeners.get(name) ?? []) (listener as (p: CoreSignals[S]) => void)(payload);
  }

  /** Listen to one signal from now on; returns the unsubscribe function. */
  onSignal<S extends keyof CoreSignals>(name: S, listener: (payload: CoreSignals[S]) => void): () => void {
    let set = this.signalListeners.get(name);
    if (!set) this.signalListeners.set(name, (set = new Set()));
    const added = listener as (payload: never) => void;
    set.add(added);
    return () => {
      set.delete(added);
    };
  }
}
