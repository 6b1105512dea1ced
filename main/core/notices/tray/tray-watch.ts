import type { EventListener, EventName } from '../../../../shared/contract';
import type { Capacity, Notice } from '../../../../shared/domain';
import type { LiveState } from '../../state/live-state';
import { sameTrayState, trayStateOf, type TrayState } from './tray-state';

/** What the tray watch reads: the app core's events and the engine's live state (null before a config loads). */
export interface TraySource {
  subscribe(listener: EventListener): () => void;
  liveState(): LiveState | null;
}

/** Options of `watchTrayState` (tests pass a clock). */
export interface TrayWatchOptions {
  readonly now?: () => Date;
}

// Events that can move the tray; ledgers and drills cannot (a P0 finding moves it through its notice).
const MOVES_TRAY: ReadonlySet<EventName> = new Set<EventName>([
  'loop.changed',
  'hosts.changed',
  'prs.changed',
  'capacity.changed',
  'notices.changed',
  'problems.changed',
  'config.changed',
]);

/**
 * Keep the tray's state: on each event that can move it, recompute once per burst (a poll publishes
 * several events in one go) from the engine's live state — no snapshot, no findings — and call
 * `onChange` only when the level, count or tooltip differ. The notice list (a small SQL query) is
 * read again only when notices changed; the fleet is taken from `capacity.changed`, a whole slice.
 * Calls `onChange` once at once with the current state. Returns the unsubscribe function.
 */
export function watchTrayState(source: TraySource, onChange: (state: TrayState) => void, options: TrayWatchOptions = {}): () => void {
  const now = options.now ?? (() => new Date());
  let last: TrayState | null = null;
  let notices: readonly Notice[] | null = null;
  let capacity: readonly Capacity[] = [];
  let scheduled: ReturnType<typeof setImmediate> | null = null;

  const recompute = (): void => {
    scheduled = null;
    const live = source.liveState();
    // Cached only once an engine answers: before the config loads there is no list to keep.
    if (live && notices === null) notices = live.notices();
    const state = trayStateOf({
      loops: live?.loops ?? [],
      hosts: live?.hosts ?? [],
      prs: live?.prs ?? [],
      capacity,
      notices: notices ?? [],
      sourceErrors: live?.sourceErrors ?? 0,
      now: now(),
    });
    if (sameTrayState(last, state)) return;
    last = state;
    onChange(state);
  };

  const unsubscribe = source.subscribe((event, payload) => {
    if (!MOVES_TRAY.has(event)) return;
    if (event === 'capacity.changed') capacity = payload.capacity;
    if (event === 'notices.changed') notices = null;
    if (event === 'config.changed') {
      // Another engine (the demo): its notices and fleet, not the last one's.
      notices = null;
      capacity = [];
    }
    scheduled ??= setImmediate(recompute);
  });
  recompute();
  return () => {
    unsubscribe();
    if (scheduled) clearImmediate(scheduled);
    scheduled = null;
  };
}
