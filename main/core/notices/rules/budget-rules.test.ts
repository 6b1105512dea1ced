import { describe, expect, it } from 'vitest';
import { ruleOfKey } from '../sinks/alertmanager-alert';
import { DEFAULT_RULES, ruleOverrides } from '../notify-config';
import { budgetDraft } from './budget-rules';

describe('the budget notice', () => {
  it('is drafted when a night\'s pace passes the monthly budget, once a month (its key), linking Trends', () => {
    // 12 nights of November cost 480 USD: 40 a night, 1,200 over 30 days, past 1,000.
    const draft = budgetDraft({ date: '2026-11-12', spent: 480, budget: 1000, currency: 'USD' }, DEFAULT_RULES.budget, 'http://127.0.0.1:7777/');
    expect(draft).toEqual({
      key: 'budget:2026-11',
      priority: 0,
      source: 'costs',
      title: '2026-11: at this pace the month costs 1,200.00 USD',
      message:
        '2026-11 has cost 480.00 USD up to the night of 2026-11-12 (12 of 30 days); at this pace the month comes to about 1,200.00 USD, ' +
        'past the budget of 1,000.00 USD (costs.budget.monthly). See what each night cost in Trends, and which models and hosts it priced.',
      url: 'http://127.0.0.1:7777/#/trends',
      urlTitle: 'Trends in Loopdeck',
    });
    // A later night of the same month keeps the key (not raised again); the next month is news.
    expect(budgetDraft({ date: '2026-11-20', spent: 900, budget: 1000, currency: 'USD' }, 0)?.key).toBe('budget:2026-11');
    expect(budgetDraft({ date: '2026-12-01', spent: 50, budget: 1000, currency: 'USD' }, 0)?.key).toBe('budget:2026-12');
  });

  it('is not drafted within the budget, or for a date that is not one', () => {
    expect(budgetDraft({ date: '2026-11-12', spent: 400, budget: 1000, currency: 'USD' }, 0)).toBeNull();
    expect(budgetDraft({ date: 'soon', spent: 4000, budget: 1000, currency: 'USD' }, 0)).toBeNull();
  });

  it('is a rule of its own: notify.rules takes it, and Alertmanager names it', () => {
    expect(ruleOverrides({ budget: 1 })).toEqual({ rules: { budget: 1 }, unknown: [] });
    expect(ruleOfKey('budget:2026-11')).toBe('budget');
  });
});
