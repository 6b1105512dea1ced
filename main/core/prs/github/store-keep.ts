import { log } from '../../logging/log';
import type { Store } from '../../store/store';
import { messageOf } from '../../../../shared/errors';

/** The store's meta key for the PRs GitHub said were merged or closed. */
export const GITHUB_FINALS_META = 'github.finalPrs';

/** Where GithubPrs keeps the merged and closed PRs between runs: the store's meta. */
export function storeKeep(store: Store): { readonly load: () => string | null; readonly save: (json: string) => void } {
  return {
    load: () => store.getMeta(GITHUB_FINALS_META),
    save: (json) => {
      // A failed write costs one request after a restart; a full disk or a damaged store is the store's problem.
      try {
        store.setMeta(GITHUB_FINALS_META, json);
      } catch (err) {
        if (store.noteFailure(err, 'keeping the PRs merged on GitHub') === null) log.warn(`GitHub: could not keep the merged and closed PRs for the next run: ${messageOf(err)}`);
      }
    },
  };
}
