/** How long the first read waits for a console to ask for the saved summary (ms). */
export const FIRST_READ_WAIT_MS = 3000;

/**
 * After the saved summary was answered, how long the first read waits (ms): for the answer to go
 * out and the console to paint it. The first read of a long history is a second or two of CPU;
 * started 100 ms after the answer it ran beside the page's first render (on a 2-core box, ~150 ms
 * later to paint at 365 days); the saved summary is on screen meanwhile.
 */
export const FIRST_READ_AFTER_ANSWER_MS = 600;

/**
 * When the first read after a start begins. Without a saved summary: at once. With one: once a
 * console was answered with it (and the answer had FIRST_READ_AFTER_ANSWER_MS to go out), or after
 * FIRST_READ_WAIT_MS when none asks; the first read of a year of history keeps the event loop
 * busy for seconds, and the page, its assets and its summary would otherwise wait behind it.
 */
export class FirstReadStart {
  private timer: NodeJS.Timeout | null = null;
  private started = false;

  constructor(private readonly begin: () => void) {}

  /** The app started; `waitForConsole` when a saved summary will be answered first. */
  start(waitForConsole: boolean): void {
    if (!waitForConsole) return this.go();
    this.timer = setTimeout(() => this.go(), FIRST_READ_WAIT_MS);
  }

  /** A console was answered with the saved summary: begin shortly. */
  soon(): void {
    if (this.started || this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.go(), FIRST_READ_AFTER_ANSWER_MS);
  }

  /** The app is closing: never begin. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.started = true;
  }

  private go(): void {
    if (this.started) return;
    this.started = true;
    this.timer = null;
    this.begin();
  }
}
