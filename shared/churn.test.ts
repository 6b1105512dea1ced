import { describe, expect, it } from 'vitest';
import type { BacklogItem, Finding, LogOutcome } from './domain';
import { deriveChurn } from './churn';

function finding(id: string, date: string, over: Partial<Finding> = {}): Finding {
  return {
    id,
    loop: 'reliability',
    source: 'RELIABILITY_AUDIT.md',
    section: `Delta audit ${date}`,
    severity: 'P1',
    category: 'durability',
    where: 'src/orders.py:120',
    text: 'x',
    status: 'open',
    backlog: [],
    firstSeenAt: `${date}T07:00:00.000Z`,
    line: 1,
    ...over,
  };
}

const row = (date: string | null, outcome: string, line: number): LogOutcome => ({ date, outcome, red: null, green: null, note: null, line });

function item(id: string, findings: string[], outcomes: LogOutcome[]): BacklogItem {
  const last = outcomes.at(-1)?.outcome ?? '';
  return { id, loop: 'reliability', section: 's', findings, severity: 'P1', acceptance: '', status: /^done/i.test(last) ? 'done' : last ? 'blocked' : 'open', red: null, green: null, outcomes };
}

describe('churn', () => {
  it('lists a DONE item the log later gives another outcome, with its IDs', () => {
    const b = [item('REL-7', ['R-70'], [row('2026-08-01', 'DONE', 10), row('2026-08-09', 'BLOCKED — the fix did not hold', 40)]), item('REL-8', ['R-80'], [row('2026-08-02', 'DONE', 11)])];
    expect(deriveChurn([], b)).toEqual([expect.objectContaining({ kind: 'reopened', item: 'REL-7', findings: ['R-70'], doneOn: '2026-08-01', date: '2026-08-09', outcome: 'BLOCKED' })]);
  });

  it('lists a finding re-found at the same file:line and category within 30 days of a DONE, not one at 31 days, another category or place', () => {
    const b = [item('REL-1', ['R-1'], [row('2026-08-01', 'DONE', 5)]), item('REL-2', ['R-2'], [row('2026-06-01', 'DONE', 6)])];
    const f = [
      finding('R-1', '2026-07-30', { status: 'done', backlog: ['REL-1'] }),
      finding('R-9', '2026-08-20'), // 19 days after R-1's DONE: churn
      finding('R-10', '2026-08-21', { category: 'safety' }), // another category
      finding('R-11', '2026-08-22', { where: 'src/orders.py:121' }), // another line
      finding('R-2', '2026-05-20', { status: 'done', backlog: ['REL-2'], where: 'src/fills.py:7' }),
      finding('R-12', '2026-07-02', { where: 'src/fills.py:7' }), // 31 days after R-2's DONE: not churn
      finding('R-13', '2026-07-01', { where: 'src/fills.py:7' }), // 30 days: churn
    ];
    const churn = deriveChurn(f, b);
    expect(churn.map((c) => (c.kind === 'refound' ? [c.id, c.of, c.days] : null))).toEqual([
      ['R-9', 'R-1', 19],
      ['R-13', 'R-2', 30],
    ]);
    expect(churn[0]).toMatchObject({ items: ['REL-1'], where: 'src/orders.py:120', category: 'durability', doneOn: '2026-08-01', date: '2026-08-20' });
    // A window keeps what happened in it.
    expect(deriveChurn(f, b, { from: '2026-08-10', to: '2026-08-31' }).map((c) => c.kind === 'refound' && c.id)).toEqual(['R-9']);
  });
});
