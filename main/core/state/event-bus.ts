import { deliverEvent, type EventListener, type EventName, type EventPayload } from '../../../shared/contract';

/**
 * Where the core's parts publish what changed: the engine's own events and its services' (the
 * capacity, the drills, the pre-flight, the notices, GitHub's PRs). Every listener gets each
 * event, keyed by name; the engine listens too, for what its next derive depends on, so a service
 * reports through the events it publishes rather than through calls into the engine.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  /** Hand `payload` to every listener, in the order they subscribed. */
  publish<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) deliverEvent(listener, event, payload);
  }

  /** Listen to every event from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
