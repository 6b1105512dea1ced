import { nightCost, type NightSummary } from '../../../shared/night-summary';
import type { CostsConfig } from '../config/costs-config';
import type { BudgetNight } from '../notices/rules/budget-rules';

/** The kept nights of every loop from a date on (TrendNights.rows). */
export interface KeptNights {
  list(loop: string | null, from: string): NightSummary[];
}

/**
 * The month's spend against `costs.budget.monthly`, for the budget notice: worked out again only
 * when a poll wrote a priced night (cost proportional to change), from the kept nights of that
 * night's month up to it, every loop summed. Null without a budget or a priced night.
 */
export class BudgetWatch {
  private night: BudgetNight | null = null;

  constructor(
    private readonly costs: CostsConfig | undefined,
    private readonly kept: KeptNights,
  ) {}

  /** Nights a poll wrote: the newest priced one sets the month, and its spend is summed again. */
  note(written: readonly NightSummary[]): void {
    const budget = this.costs?.budget?.monthly;
    if (budget === undefined) return;
    const priced = written.filter((n) => nightCost(n) !== null);
    if (priced.length === 0) return;
    // The newest priced night seen so far sets the month; an older one written now (a backfill) moves its spend.
    const newest = priced.reduce((d, n) => (n.date > d ? n.date : d), this.night?.date ?? '');
    const month = newest.slice(0, 7);
    const spent = this.kept
      .list(null, `${month}-01`)
      .filter((n) => n.date <= newest && n.date.startsWith(month))
      .reduce((a, n) => a + (nightCost(n)?.amount ?? 0), 0);
    this.night = { date: newest, spent, budget, currency: this.costs?.currency ?? 'USD' };
  }

  /** What the budget notice reads now. */
  current(): BudgetNight | null {
    return this.night;
  }
}
