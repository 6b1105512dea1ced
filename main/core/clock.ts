// The clock the core reads. Normally the system's; `--now` pins it, so a snapshot is
// reproducible. What asks the outside world about "now" (Prometheus's instant queries) then asks
// about the pinned time, and says so when the answer is empty.

/** What time it is, as the core sees it. */
export type Clock = () => Date;

const pinned = new WeakMap<Clock, Date>();

/** A clock stopped at `at`, known as pinned to `pinnedAt`. */
export function pinnedClock(at: Date): Clock {
  const time = new Date(at.getTime());
  const clock: Clock = () => time;
  pinned.set(clock, time);
  return clock;
}

/** The time a clock made by `pinnedClock` is pinned at; null for any other clock (or none). */
export function pinnedAt(clock: Clock | undefined): Date | null {
  return clock === undefined ? null : (pinned.get(clock) ?? null);
}
