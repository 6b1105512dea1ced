import * as z from 'zod';

// What a night cost (issue "Night against night", item 5): a window's cost — a night, a phase, the
// phases behind a PR — from the prices under `costs:` (main/core/costs/night-cost.ts prices it),
// and the month's pace against `costs.budget.monthly`. Pure, so the console and the notices agree.

/** The most lines a cost's basis keeps (a night summary is small: see shared/night-summary.ts). */
export const MAX_BASIS_LINES = 12;
/** The most characters of one basis line. */
export const MAX_BASIS_CHARS = 240;

/**
 * A window's cost: `amount` in `currency`, the fleet tokens and the host hours it priced from, and
 * its `basis` — one line per thing priced (how) or not (why). `tokens` is null when no usage row
 * in the window said a count (not known, not 0); `hostHours` null when no priced host was seen.
 */
export const CostSchema = z
  .object({
    amount: z.number().nonnegative(),
    currency: z.string().min(1),
    tokens: z.number().int().nonnegative().nullable(),
    hostHours: z.number().nonnegative().nullable(),
    basis: z.array(z.string().max(MAX_BASIS_CHARS)).max(MAX_BASIS_LINES).readonly(),
  })
  .readonly();
/** A window's cost. */
export type Cost = z.infer<typeof CostSchema>;

/** The month's pace: spent so far, the month's projection at that rate, and whether it passes the budget. */
export interface MonthPace {
  readonly spent: number;
  /** Spent so far ÷ the days it covers × the days of the month. */
  readonly projected: number;
  readonly budget: number;
  /** The projection is above the budget. */
  readonly passes: boolean;
}

/**
 * The month's pace after `dayOfMonth` of its `daysInMonth` days (1-based, the day's spending
 * included): a straight line through what was spent. Throws a RangeError on impossible days or a
 * negative amount (a caller's mistake, not data).
 */
export function monthPace(spentSoFar: number, dayOfMonth: number, daysInMonth: number, budget: number): MonthPace {
  if (!Number.isInteger(daysInMonth) || daysInMonth < 1) throw new RangeError(`monthPace: daysInMonth ${daysInMonth} is not a whole number of days`);
  if (!Number.isInteger(dayOfMonth) || dayOfMonth < 1 || dayOfMonth > daysInMonth) throw new RangeError(`monthPace: dayOfMonth ${dayOfMonth} is not a day of a ${daysInMonth}-day month`);
  if (!(spentSoFar >= 0) || !(budget >= 0)) throw new RangeError(`monthPace: spent ${spentSoFar} and budget ${budget} must be 0 or more`);
  const projected = roundAmount((spentSoFar / dayOfMonth) * daysInMonth);
  return { spent: spentSoFar, projected, budget, passes: projected > budget };
}

/** A night's date (`YYYY-MM-DD`, the cycle's date) as its month (`YYYY-MM`), its day and the month's length; null when not a date. */
export function monthDays(date: string): { month: string; dayOfMonth: number; daysInMonth: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Day 0 of the next month is the last of this one (UTC: no time zone moves it).
  const daysInMonth = month >= 1 && month <= 12 ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 0;
  if (day < 1 || day > daysInMonth) return null;
  return { month: `${m[1]}-${m[2]}`, dayOfMonth: day, daysInMonth };
}

/** An amount kept to six decimals: sums of prices per million drift in the last bits. */
export function roundAmount(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

/** An amount for a person: two decimals (four below 1), thousands grouped, and the currency (`1,031.25 USD`). */
export function formatAmount(amount: number, currency: string): string {
  const digits = amount !== 0 && Math.abs(amount) < 1 ? 4 : 2;
  return `${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })} ${currency}`;
}
