import type { NoticePriority } from '../../../../shared/domain';
import { breachHref, breachKey, CONTRACT_LABEL, CONTRACT_RULE, evidenceText, type ContractBreach, type ContractKind } from '../../../../shared/contract-breach';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink } from '../notice-text';

/** A kind's rule name, as `notify.rules` spells it. */
export const contractRule = (kind: ContractKind): `contract-${ContractKind}` => `contract-${kind}`;

/**
 * A notice for each item of the Broken contract list, raised once per item (its key). A hollow
 * remediate keeps the key it had before the list (`hollow:<loop>:<date>:<phase>`), so a notice
 * already raised for one is not raised again.
 */
export function contractDrafts(list: readonly ContractBreach[], prio: (kind: ContractKind) => NoticePriority, consoleUrl?: string): readonly NoticeDraft[] {
  // The book hands out the same list while nothing in it moved, and the notices are derived every
  // few seconds for the clock's rules: the same list with the same priorities makes the same drafts.
  const made = `${KINDS.map(prio).join(',')}\u0000${consoleUrl ?? ''}`;
  const was = drafted.get(list);
  if (was?.made === made) return was.drafts;
  const drafts = draftsOf(list, prio, consoleUrl);
  drafted.set(list, { made, drafts });
  return drafts;
}

const KINDS = Object.keys(CONTRACT_LABEL) as ContractKind[];

/** The drafts last made of each list (a list no longer held is let go), with the priorities and link they were made with. */
const drafted = new WeakMap<readonly ContractBreach[], { readonly made: string; readonly drafts: readonly NoticeDraft[] }>();

function draftsOf(list: readonly ContractBreach[], prio: (kind: ContractKind) => NoticePriority, consoleUrl?: string): NoticeDraft[] {
  return list.map((b) => {
    const href = breachHref(b);
    const where = evidenceText(b.evidence);
    return makeDraft({
      key: b.kind === 'hollow' ? `hollow:${b.loop}:${b.date ?? ''}:${b.phase ?? ''}` : `contract:${breachKey(b)}`,
      priority: prio(b.kind),
      source: `loop:${b.loop}`,
      title: `${b.loop}: ${CONTRACT_LABEL[b.kind]}${b.date ? ` (${b.date}${b.phase ? ` ${b.phase}` : ''})` : ''}`,
      message: `${b.detail}. The manual: "${CONTRACT_RULE[b.kind]}"${where ? ` Evidence: ${where}.` : ''}`,
      url: href.startsWith('#') ? consoleLink(consoleUrl, href) : href,
      urlTitle: href.startsWith('#') ? 'The evidence in Loopdeck' : 'The evidence',
    });
  });
}
