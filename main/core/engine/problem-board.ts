import type { Problem } from '../../../shared/domain';
import type { Store } from '../store/store';
import { SourceErrors } from './source-errors';
import type { ProblemKey } from '../state/problem-key';

/**
 * What could not be read, in one place: the sources' failures (keyed, SourceErrors), the store's
 * own problems and health, and those of the parts beside it (the notices); published only when
 * one was added or removed.
 */
export class ProblemBoard {
  /** The sources' failures, one problem under each key. */
  readonly errors = new SourceErrors();
  private published = '';

  constructor(
    private readonly store: Store,
    private readonly others: () => readonly Problem[],
    private readonly publish: (problems: Problem[]) => void,
  ) {}

  /**
   * A failure caught in a poll or a timer: the store's to say when it is the store's (a full data
   * folder, a damaged database; see Store.noteFailure), else the problem of the source under `key`.
   */
  failed(key: ProblemKey, err: unknown, problem: () => Problem): void {
    if (this.store.noteFailure(err, key) === null) this.errors.set(key, problem());
  }

  /** Publish the problems when one was added or removed since the last time (the store counts its own). */
  publishIfChanged(): void {
    const revision = `${this.errors.revision}/${this.store.problemsRevision}/${this.store.healthRevision}`;
    if (revision === this.published) return;
    this.published = revision;
    this.publish(this.list());
  }

  /** Every problem: the store's health, the sources', the other parts', the store's malformed lines. */
  list(): Problem[] {
    return [...this.store.healthProblems(), ...this.errors.list(), ...this.others(), ...this.store.problems()];
  }
}
