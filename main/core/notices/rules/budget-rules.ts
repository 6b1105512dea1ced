import type { NoticePriority } from '../../../../shared/domain';
import { formatAmount, monthDays, monthPace } from '../../../../shared/night-cost';
import { makeDraft, type NoticeDraft } from '../notice-draft';
import { consoleLink } from '../notice-text';

/** What the budget notice reads: a night, what the month has cost up to and with it, and the budget. */
export interface BudgetNight {
  /** The night's date (`YYYY-MM-DD`, the cycle's date): its month and its day in it. */
  readonly date: string;
  /** What the month's nights cost, from its first through this one. */
  readonly spent: number;
  /** `costs.budget.monthly`. */
  readonly budget: number;
  /** `costs.currency`. */
  readonly currency: string;
}

/**
 * The notice (rule `budget`) when a night's pace would pass the monthly budget: what the month
 * cost so far, projected over its days (monthPace), above `costs.budget.monthly`. Keyed by the
 * month (`budget:<YYYY-MM>`), so it is raised once a month however many nights keep the pace, and
 * again the next month. Null while the pace stays within the budget, or for a date that is not one.
 */
export function budgetDraft(night: BudgetNight, priority: NoticePriority, consoleUrl?: string): NoticeDraft | null {
  const day = monthDays(night.date);
  if (day === null) return null;
  const pace = monthPace(night.spent, day.dayOfMonth, day.daysInMonth, night.budget);
  if (!pace.passes) return null;
  const money = (n: number): string => formatAmount(n, night.currency);
  return makeDraft({
    key: `budget:${day.month}`,
    priority,
    source: 'costs',
    title: `${day.month}: at this pace the month costs ${money(pace.projected)}`,
    message:
      `${day.month} has cost ${money(pace.spent)} up to the night of ${night.date} (${day.dayOfMonth} of ${day.daysInMonth} days); ` +
      `at this pace the month comes to about ${money(pace.projected)}, past the budget of ${money(pace.budget)} (costs.budget.monthly). ` +
      'See what each night cost in Trends, and which models and hosts it priced.',
    url: consoleLink(consoleUrl, '#/trends'),
    urlTitle: 'Trends in Loopdeck',
  });
}
