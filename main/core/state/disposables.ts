/** Something to undo at teardown: a close, a stop, an unsubscribe. */
export type Disposer = () => void | Promise<void>;

/**
 * Teardown written once: what was started is added as it starts, and `dispose` undoes it in the
 * reverse order (the last started, the first stopped), one step after another. A step that throws
 * does not keep the later ones from running; the first error is thrown once all have run.
 * Disposing twice runs nothing the second time.
 */
export class Disposables {
  private readonly steps: Disposer[] = [];
  private disposing: Promise<void> | null = null;

  /** Undo `step` at teardown (before anything added earlier). */
  add(step: Disposer): void {
    this.steps.push(step);
  }

  /** Run every step, newest first; resolves once all have run (the same promise on every call). */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      let first: { err: unknown } | null = null;
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        try {
          await step();
        } catch (err) {
          first ??= { err };
        }
      }
      if (first) throw first.err;
    })();
    return this.disposing;
  }
}
