import type { Cycle } from '../../../shared/domain';

/**
 * A value derived from each cycle, kept by the cycle object (the loop state keeps the same object
 * for a night nothing moved) while the inputs derived beside it stand, compared by identity; new
 * inputs forget every cycle's. A loop whose tonight moved derives tonight, not its year.
 */
export class PerCycle<T> {
  private kept = new WeakMap<Cycle, T>();
  private inputs: readonly unknown[] | null = null;

  /** Derive with `inputs` from now on: true (every cycle forgotten) when they are not the ones before. */
  renew(inputs: readonly unknown[]): boolean {
    const was = this.inputs;
    if (was && was.length === inputs.length && was.every((x, i) => x === inputs[i])) return false;
    this.inputs = inputs;
    this.kept = new WeakMap();
    return true;
  }

  /** The cycle's value: as kept, or `derive`d now and kept. */
  of(cycle: Cycle, derive: (cycle: Cycle) => T): T {
    if (this.kept.has(cycle)) return this.kept.get(cycle) as T;
    const value = derive(cycle);
    this.kept.set(cycle, value);
    return value;
  }
}
