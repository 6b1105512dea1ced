import type { NoticePriority } from '../../../../shared/domain';
import { preflightReasons, PREFLIGHT_CHECK_LABEL, type Preflight } from '../../../../shared/preflight';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink } from '../notice-text';

/**
 * A notice for each loop whose pre-flight is at risk, keyed by the fire it is about
 * (`preflight:<loop>:<fireAt>`): raised once per fire however often the pre-flight re-runs in its
 * lead window, and a new one for the next night. A ready or unknown pre-flight raises none.
 */
export function preflightDrafts(list: readonly Preflight[], priority: NoticePriority, consoleUrl?: string): NoticeDraft[] {
  return list
    .filter((p) => p.state === 'at-risk')
    .map((p) =>
      makeDraft({
        key: `preflight:${p.loop}:${p.fireAt}`,
        priority,
        source: `loop:${p.loop}`,
        title: `${p.loop}: tonight's run is at risk`,
        message: `Pre-flight before the ${p.fireAt} fire of ${p.loop}: ${preflightReasons(p)
          .map((c) => `${PREFLIGHT_CHECK_LABEL[c.name]}: ${c.detail}`)
          .join('; ')}.`,
        url: consoleLink(consoleUrl, '#/review'),
        urlTitle: 'The Review in Loopdeck',
      }),
    );
}
