import { breachKey, sortBreaches, type ContractBreach } from '../../../shared/contract-breach';
import { loopBreaches, type LoopContractInput } from './loop-breaches';
import { PerCycle } from './per-cycle';

/** At most this many items are kept (and published): the list is for a person, and a source is bounded. */
export const MAX_CONTRACT_BREACHES = 500;

interface Derived {
  readonly loop: LoopContractInput['loop'];
  readonly backlog: LoopContractInput['backlog'];
  readonly more: LoopContractInput['more'];
  readonly list: readonly ContractBreach[];
}

/**
 * The Broken contract list over every loop. A loop's part is derived again only when one of its
 * inputs is a new object (a loop state, a backlog, a list of breaches found elsewhere: each is
 * replaced when it changes), so a poll that changed nothing of a loop costs a comparison. A breach
 * without a `since` of its own gets the time Loopdeck first saw it.
 */
export class ContractBook {
  private readonly loops = new Map<string, Derived>();
  /** Each loop's cycles' breaches, kept by cycle for the paths they were found with (see loopBreaches). */
  private readonly cycles = new Map<string, PerCycle<readonly ContractBreach[]>>();
  private readonly firstSeen = new Map<string, string>();
  private published: readonly ContractBreach[] = [];
  /** Each breach without a `since` of its own, as dated (see `dated`). */
  private readonly datedOf = new WeakMap<ContractBreach, ContractBreach>();

  /** Derive the loops whose inputs changed; the whole (bounded, sorted) list when it changed, else null. */
  update(inputs: Iterable<LoopContractInput>, now: Date): readonly ContractBreach[] | null {
    let moved = false;
    const names = new Set<string>();
    for (const input of inputs) {
      const name = input.loop.name;
      names.add(name);
      const was = this.loops.get(name);
      if (was && was.loop === input.loop && was.backlog === input.backlog && was.more === input.more) continue;
      const list = loopBreaches(input, this.byCycle(name, input.paths)).map((b) => this.dated(b, now));
      this.loops.set(name, { loop: input.loop, backlog: input.backlog, more: input.more, list });
      if (!was || !sameList(was.list, list)) moved = true;
    }
    for (const name of [...this.loops.keys()]) {
      if (names.has(name)) continue;
      this.loops.delete(name);
      this.cycles.delete(name);
      moved = true;
    }
    if (!moved) return null;
    this.published = sortBreaches([...this.loops.values()].flatMap((d) => d.list)).slice(0, MAX_CONTRACT_BREACHES);
    return this.published;
  }

  /** The list as last derived. */
  list(): readonly ContractBreach[] {
    return this.published;
  }

  private byCycle(loop: string, paths: LoopContractInput['paths']): PerCycle<readonly ContractBreach[]> {
    let kept = this.cycles.get(loop);
    if (!kept) this.cycles.set(loop, (kept = new PerCycle()));
    kept.renew([paths]);
    return kept;
  }

  private dated(b: ContractBreach, now: Date): ContractBreach {
    if (b.since !== null) return b;
    // A breach kept with its cycle (loopBreaches) is the same object poll after poll: so is its dated copy.
    const was = this.datedOf.get(b);
    if (was) return was;
    const key = breachKey(b);
    let since = this.firstSeen.get(key);
    if (since === undefined) this.firstSeen.set(key, (since = now.toISOString()));
    const dated = { ...b, since };
    this.datedOf.set(b, dated);
    return dated;
  }
}

/** The same objects (a cycle's breaches as kept) are the same; others are compared by what they say. */
const sameList = (a: readonly ContractBreach[], b: readonly ContractBreach[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i] || JSON.stringify(x) === JSON.stringify(b[i]));
